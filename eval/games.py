"""The games of a tournament: which ones (the schedule) and playing one (a record).

A game is identified by ``(i, j, deal, swap)``: agents ``i`` and ``j`` of the config, the
deal number, and whether the seats are swapped (``swap`` 1 puts agent ``j`` in seat 0).
Every pair plays the same deals (seeded by the tournament seed and the deal number), and
the agents' own seeds derive from the game's identity, so a game's outcome never depends
on which worker plays it or when.

A record holds what is needed to replay the game exactly: per hand the deck order, the
dealer and every action, next to the outcome.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

import agents
from rummy_env import gin_rummy_v0
from rummy_env.cards import NUM_CARDS
from rummy_env.game import GinRummyState
from rummy_env.rules import load_rules


class Game(NamedTuple):
    i: int
    j: int
    deal: int
    swap: int

    @property
    def key(self) -> str:
        return f"{self.i}-{self.j}-{self.deal}-{self.swap}"


def schedule(pairs: list[tuple[int, int]], deals: int) -> list[Game]:
    """Every game, deal by deal so that partial results cover all pairs evenly."""
    return [Game(i, j, d, s) for d in range(deals) for (i, j) in pairs for s in (0, 1)]


def deal_seed(seed: int, deal: int) -> int:
    return int(np.random.SeedSequence([seed, deal]).generate_state(1)[0])


def deck_for(seed: int, deal: int) -> list[int]:
    return np.random.default_rng([seed, deal]).permutation(NUM_CARDS).tolist()


def play_game(spec: dict[str, Any], game: Game) -> dict[str, Any]:
    """Play one game; ``spec`` holds agents, rules, mode, seed and record from the config."""
    names = [spec["agents"][game.i], spec["agents"][game.j]]
    if game.swap:
        names.reverse()
    seeds = [deal_seed(spec["seed"], game.deal) + 1 + (k ^ game.swap) for k in (0, 1)]
    players = [agents.make(name, seed=seed) for name, seed in zip(names, seeds)]
    match = spec["mode"] == "matches"
    env = gin_rummy_v0.raw_env(rules=spec["rules"], episode="match" if match else "hand")
    options: dict[str, Any] = {"dealer": 1}
    if not match:
        options["deck"] = deck_for(spec["seed"], game.deal)
    env.reset(seed=deal_seed(spec["seed"], game.deal), options=options)
    hands: list[dict[str, Any]] = []
    for name in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        before = env.game  # a match deals the next hand inside step: keep the one being played
        env.step(players[env.possible_agents.index(name)].act(obs, info))
        if before is not None and before.is_over:
            hands.append(_hand_record(before, spec["record"]))
    record: dict[str, Any] = {"key": game.key, "i": game.i, "j": game.j, "deal": game.deal, "swap": game.swap,
                              "players": names, "hands": hands}
    if match:
        assert env.match is not None
        final = env.match.result()
        record["match"] = final.to_dict()
        record["winner"] = final.winner
        record["margin"] = final.grand_total[0] - final.grand_total[1]
    else:
        result = hands[0]["result"]
        record["winner"] = result["winner"]
        record["margin"] = result["rewards"][0]
    return record


def _hand_record(state: GinRummyState, keep_moves: bool) -> dict[str, Any]:
    assert state.result is not None
    out: dict[str, Any] = {"result": state.result.to_dict(), "length": len(state.history)}
    if keep_moves:
        out.update(deck=list(state.deck or ()), dealer=state.dealer, actions=list(state.history))
    return out


def replay_hand(hand: dict[str, Any], rules: str) -> GinRummyState:
    """Replay a recorded hand; raises if the recorded outcome does not come out again."""
    if "actions" not in hand:
        raise ValueError("this game was stored without its moves (record: false); it cannot be replayed")
    state = GinRummyState.from_deck(hand["deck"], load_rules(rules), hand["dealer"])
    for action in hand["actions"]:
        state.step(action)
    if state.result is None or state.result.to_dict() != hand["result"]:
        raise ValueError("the replay does not reproduce the recorded outcome: the record or the rules differ")
    return state
