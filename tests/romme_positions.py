"""Random live Rommé positions for the tests of the vector engine's ``load_states`` and the
heuristic's array policy: hands a random number of moves into a deal, played so that every
kind of position turns up (a meld being built card by card, lay-offs, joker swaps and the
joker they owe, a card taken from the pile, stocks turned over), every other one a world
sampled from the mover's information set (``Game.sample_world``) and stepped on."""

import numpy as np

from rummy_env.core.game import get_game
from rummy_env.romme.game import DRAW_STOCK, LAYOFF, SWAP, TAKE_DISCARD
from engine_checks import world_stepped_on

ROMME = get_game("romme")


def random_states(players: int, rules, count: int, seed: int, moves: int = 320) -> list:
    """``count`` live hands at ``players`` under ``rules``, each a random number of moves (up to
    ``moves``) into a deal: per hand a share of moves the lowest legal id (the stock drawn, a
    low discard: hands go on and the stock runs out), the rest half the highest legal id (joker
    swaps, lay-offs, melds card by card: hands go out) and half a random legal move."""
    rng = np.random.default_rng(seed)
    rules = ROMME.load_rules(rules)
    out = []
    while len(out) < count:
        state = ROMME.deal(rules, players, seed=int(rng.integers(1 << 30)))
        lowest = float(rng.choice([0.1, 0.5, 0.9, 0.98]))
        for _ in range(int(rng.integers(0, moves * (2 if lowest > 0.95 else 1)))):
            if state.is_over:
                break
            legal = state.legal_actions()
            u = rng.random()
            move = legal[0] if u < lowest else (legal[-1] if rng.random() < 0.5 else int(rng.choice(legal)))
            if move == DRAW_STOCK and TAKE_DISCARD in legal and rng.random() < 0.3:
                move = TAKE_DISCARD
            state.step(move)
            if move >= SWAP and rng.random() < 0.3:  # stop with the joker owed now and then
                break
        if state.is_over:
            continue
        if len(out) % 2:
            state = world_stepped_on(ROMME, state, rules, rng)
            if state.is_over:
                continue
        out.append(state)
    return out


def kinds_seen(states: list) -> dict:
    """How many of ``states`` show each kind of position the tests want covered."""
    seen = {"pending": 0, "table": 0, "layoff": 0, "swap": 0, "owed joker": 0, "taken": 0, "turned over": 0}
    for s in states:
        held = s.hands[s.current_player]
        seen["pending"] += bool(s.pending)
        seen["table"] += bool(s.table)
        seen["layoff"] += any(LAYOFF <= a < SWAP for _, a in s.history)
        seen["swap"] += any(a >= SWAP for _, a in s.history)
        seen["owed joker"] += s.swapped_joker is not None and s.swapped_joker in held
        seen["taken"] += s.taken_card is not None
        seen["turned over"] += s.turnovers > 0
    return seen


def inputs(state):
    """What the env's ``last()`` gives the player to move (the observation's mask, the info)."""
    seat = state.current_player
    return {"action_mask": state.legal_mask()}, {"information_set": state.information_set(seat), "rules": state.rules}
