"""Rommé agents: Rommé's ``heuristic``'s decisions in scripted positions worked out by hand
(coming out with its best arrangement, laying off, swapping a joker it can meld, the
discard by penalty, partial melds and danger, the draw), the pile replay behind its
"passed" cards checked against the full state, whole hands under every rule variant with
no illegal move, no peeking at hidden cards (at a table, its totals in the info), and its
edge over random play at 2, 4 and 6 players."""

import numpy as np
import pytest

from conftest import play_checking_no_peeking
from rummy_env import agents, romme_v0
from rummy_env.agents.arena import play_hand
from rummy_env.agents.romme.agents import RommeHeuristicAgent, passed_kinds
from rummy_env.romme.cards import JOKER, kind_of
from rummy_env.romme.cards import parse_kind as K
from rummy_env.romme.game import (
    COMMIT, DISCARD, DRAW_STOCK, JOKER_AS, LAYOFF, NUM_ACTIONS, PICK, SWAP, TAKE_DISCARD, RommeState,
)
from rummy_env.romme.rules import load_romme_rules

SEAT0 = "QH KH AH 5C 5D 5S 9D TD KS 2S 4C 6S 8C 3C"


def decide(agent, s: RommeState) -> int:
    """What ``agent`` plays for the player to move, given exactly what the env gives it."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[s.legal_actions()] = 1
    return agent.act({"action_mask": mask}, {"information_set": s.information_set(s.current_player), "rules": s.rules})


def play(s: RommeState, *actions: int) -> None:
    for a in actions:
        s.step(a)


def agent_turn(agent, s: RommeState) -> list[int]:
    """The agent plays the rest of the current player's turn; its actions."""
    p, done = s.current_player, []
    while not s.is_over and s.current_player == p:
        a = decide(agent, s)
        done.append(a)
        s.step(a)
    return done


def picks(*kinds: str) -> list[int]:
    return [PICK + K(k) for k in kinds]


def test_comes_out_at_once_with_its_best_arrangement_and_discards_the_lone_high_card():
    # QH KH AH is worth 10 + 10 + 11 = 31 (enough alone), 5C 5D 5S 15 more: the least
    # penalty lays both. Left: 9D TD KS 2S 4C 6S 8C 3C. KS (10) is near no card (no king
    # of another suit, no QS/JS), so it goes; 9D and TD are half a run, 2S/3C/4C near others.
    s = RommeState.from_hands([SEAT0, "AC 2C 3D 5H 6D 7H 8S 9C TH JC QS KD 4S"], "7S")
    done = agent_turn(RommeHeuristicAgent(seed=0), s)
    assert s.came_out[0] and len(s.table) == 2
    assert sorted(str(m.meld) for m in s.table) == ["5C 5D 5S", "QH KH AH"]
    assert done[-1] == DISCARD + K("KS")
    assert s.hand_text(0) == "3C 4C 8C 9D TD 2S 6S"


def seat0_out_then(seat1: str, seat1_turn: list, stock: str) -> RommeState:
    """Seat 0 comes out (QH KH AH, 5C 5D 5S) and discards 8C; seat 1 plays ``seat1_turn``
    after drawing the stock's top; seat 0 is then to draw."""
    s = RommeState.from_hands([SEAT0, seat1], "7S", stock=stock)
    play(s, *picks("QH", "KH", "AH"), COMMIT, *picks("5C", "5D", "5S"), COMMIT, DISCARD + K("8C"))
    play(s, DRAW_STOCK, *seat1_turn)
    assert s.current_player == 0
    return s


def test_once_out_it_draws_and_lays_off_what_fits_the_table():
    s = seat0_out_then("AC 2C 3D 6D 7H 8S 9C TH JC QS KD 4S 4D", [DISCARD + K("KD")], "2D 5H")
    agent = RommeHeuristicAgent(seed=0)
    assert decide(agent, s) == DRAW_STOCK  # KD melds with nothing and fits no table meld
    s.step(DRAW_STOCK)  # the 5H
    slot = next(i for i, m in enumerate(s.table) if str(m.meld) == "5C 5D 5S")
    assert decide(agent, s) == LAYOFF + 52 * slot + K("5H")


def test_once_out_it_takes_a_discard_it_can_lay_off():
    s = seat0_out_then("AC 2C 3D 6D 7H 8S 9C TH JC QS JH 4S 5H", [DISCARD + K("5H")], "2D 3S")
    assert decide(RommeHeuristicAgent(seed=0), s) == TAKE_DISCARD


def test_it_swaps_a_joker_that_joins_a_meld():
    # seat 1 comes out with KC KD [KH] (30); seat 0 holds KS, 9D and TD: the KS takes the
    # joker back, and the joker makes a run with 9D TD.
    s = seat0_out_then("KC KD JK 2H 3D 4S 6D 7H 8S 9C JH QS 4D",
                       [*picks("KC", "KD"), JOKER_AS + K("KH"), COMMIT, DISCARD + K("2D")], "2D 3S")
    agent = RommeHeuristicAgent(seed=0)
    assert decide(agent, s) == DRAW_STOCK
    s.step(DRAW_STOCK)  # the 3S
    slot = next(i for i, m in enumerate(s.table) if m.owner == 1)
    assert decide(agent, s) == SWAP + 52 * slot + K("KS")
    agent_turn(agent, s)
    assert str(s.table[slot].meld) == "KC KD KS"
    mine = [str(m.meld) for m in s.table if m.owner == 0]
    assert any("[" in m and "9D" in m for m in mine)  # the joker is in a run of diamonds
    assert not any(kind_of(c) == JOKER for c in s.hands[0])


def test_danger_keeps_a_card_the_next_player_can_lay_off():
    # Seat 0 has not come out (its hand holds no meld) and discards QS; seat 1 comes out
    # with KC KD KS (30). Seat 0 draws 8D: KH 9C 2S 4D 3C 7S 2H 5H 6C 4S 3D 6D 8H 8D, 77
    # points, no meld. Discarding k leaves 77 - value(k): KH 67, 9C 68, 8D or 8H 69. But
    # KH fits seat 1's set of kings and seat 1 (next to play) is out: danger 5 makes it 72,
    # so 9C goes; without danger, KH. (partial_weight 0: penalties and danger only.)
    seat0 = "KH 9C 2S 4D 3C 7S 2H 5H 6C 4S 3D 6D QS 8H"
    seat1 = "KC KD KS 2H 3D 4S 6D 8S 9D TH JC QD AD"
    for weight, expected in ((5.0, "9C"), (0.0, "KH")):
        s = RommeState.from_hands([seat0, seat1], "7D", stock="2D 8D")
        play(s, DISCARD + K("QS"))
        play(s, DRAW_STOCK, *picks("KC", "KD", "KS"), COMMIT, DISCARD + K("AD"))
        play(s, DRAW_STOCK)
        assert s.came_out == [False, True]
        agent = RommeHeuristicAgent(seed=0, danger_weight=weight, partial_weight=0.0)
        assert decide(agent, s) == DISCARD + K(expected)


def test_passed_cards_are_replayed_from_the_public_moves():
    """At every stock draw the true top of the pile (from the full state) is recorded;
    ``passed_kinds`` must find the same from any seat's information set."""
    rules = [load_romme_rules("romme"), load_romme_rules({"turnover": "flip", "deal_extra_card": False}),
             load_romme_rules({"max_turns": 1000})]
    for seed in range(9):
        r = rules[seed % 3]
        n = 2 + seed % 5
        s = RommeState.new_hand(n, r, seed=seed)
        rng = np.random.default_rng(seed)
        truth = [set() for _ in range(n)]
        turned = 0
        while not s.is_over:
            a = int(rng.choice(s.legal_actions()))
            if a == DRAW_STOCK:
                truth[s.current_player].add(kind_of(s.discard_pile[-1]))
            s.step(a)
            turned = max(turned, s.turnovers)
            if len(s.history) % 97 == 0 or s.is_over:
                got = passed_kinds(s.information_set(seed % n), r)
                # the upcard is not named by the history: when it has left the pile it may be missing
                for seat in range(n):
                    assert got[seat] <= truth[seat]
                    assert len(truth[seat] - got[seat]) <= 1
        assert sum(len(t) for t in truth) > 0
    assert turned  # a turnover happened in some hand


@pytest.mark.parametrize("spec", [
    "romme", "romme_40_run", {"go_out_without_discard": True}, {"take_discard_before_out": "free"},
    {"aces_around_the_corner": True, "adjacent_jokers": True}, {"naturals_per_meld": "more_than_jokers"},
    {"turnover": "flip", "jokers": 4, "deal_extra_card": False},
])
def test_heuristic_plays_whole_hands_under_every_rule_variant(spec):
    for seed in range(3):
        n = 2 + (seed * 2) % 5
        seats = [agents.make("heuristic" if i % 2 == 0 else "random", seed=seed + i, game="romme") for i in range(n)]
        result = play_hand(seats, spec, seed=seed)  # an illegal move would raise
        assert result.outcome in ("out", "hand_rummy", "stalemate")


@pytest.mark.parametrize("n", [2, 3, 6])
@pytest.mark.parametrize("spec", ["romme/random", "romme/heuristic"])
def test_no_agent_peeks_at_hidden_cards(spec, n):
    """Same seed, same information set, other hidden cards: the same action, at a table of
    hands (the totals in the info), at 2 to 6 players."""
    rng = np.random.default_rng(n)
    env = romme_v0.raw_env(num_players=n, episode="match", rules={"hands_per_table": 2})
    checked = scored = 0
    limit = 2000 if spec.endswith("random") else 400  # random play takes hundreds of moves to end a hand
    for game in range(2):
        done = play_checking_no_peeking(env, spec, game, lambda g, seat, r: g.redeal_hidden(seat, r), rng, limit)
        checked, scored = checked + done[0], scored + done[1]
    assert checked > 150 and scored > 0  # a table's second hand was checked too


@pytest.mark.parametrize("n", [2, 4, 6])
def test_heuristic_beats_random_play(n):
    won = points = 0.0
    deals = 3
    for deal in range(deals):
        for seat in range(n):
            seats = [agents.make("random", seed=100 * deal + i, game="romme") for i in range(n)]
            seats[seat] = agents.make("heuristic", seed=deal, game="romme")
            result = play_hand(seats, "romme", seed=deal)
            won += result.winner == seat
            points += result.rewards[seat]
    assert won / (deals * n) > 0.5  # random play would win 1/n of them
    assert points > 0


def test_bad_parameters_and_other_games_input_are_refused():
    with pytest.raises(ValueError, match="danger_weight must be >= 0"):
        agents.make("heuristic:danger_weight=-1", game="romme")
    agent = agents.make("heuristic", game="romme")
    with pytest.raises(TypeError, match="romme_v0"):
        agent.act({"action_mask": np.ones(NUM_ACTIONS, dtype=np.int8)}, {})
    assert agents.plays(agent) == "romme"
