"""Basic Rummy's ``heuristic`` and its array policy (``rummy_env.agents.basic.heuristic_vector``)
make the same moves: the engine's hands and the pure game's are played side by side from
the same decks, and at every decision of every seat the policy's move is the one the
agent, made with that seat's key as its seed for the hand, plays on the pure game's
information set, random tie-breaks included. The tournament test in
tests/basic/test_basic_vector.py compares whole results files."""

import pickle

import numpy as np
import pytest

from rummy_env import agents
from rummy_env.agents.basic import heuristic_vector
from rummy_env.basic.game import LAYOFF, MELD, TAKE_DISCARD, BasicRummyState
from rummy_env.basic.rules import PRESETS
from rummy_env.core import melds
from rummy_env.core.cards import NUM_CARDS
from rummy_env.core.game import BatchPolicy, get_game

BASIC = get_game("basic")

# table size, rules (every preset, and the options that change the heuristic's inputs:
# aces high, lay-offs without a meld, the last card melded, short hands, no turnover), agent
CASES = [
    (2, "basic", "heuristic"),
    (3, "basic_300", "heuristic:danger_weight=0"),
    (4, "basic_500", "heuristic:partial_weight=0.5,danger_weight=2.5"),
    (2, {"aces": "high", "layoff_needs_own_meld": False}, "heuristic:partial_weight=0"),
    (3, {"go_out_without_discard": False, "hand_size": 5, "aces": "high"}, "heuristic"),
    (4, {"stock_turnovers": 0, "hand_size": 5, "layoff_needs_own_meld": False}, "heuristic:danger_weight=7"),
]


def play_side_by_side(players, rules, spec, n=16, steps=220, engine="auto", seed=0):
    """Play ``n`` hands at a time on the engine with ``spec``'s array policy in every seat
    (rows dealt again as hands end) and the same hands in the pure game, checking every
    move against the agent's; returns how many moves of each kind were compared."""
    policy = agents.make(spec, game="basic").batch_policy()
    assert isinstance(policy, BatchPolicy)
    rules = BASIC.load_rules(rules)
    env = BASIC.vector(n, players, rules=rules, encoding=None, engine=engine)
    rng = np.random.default_rng(seed)
    decks = np.stack([rng.permutation(NUM_CARDS) for _ in range(n)])
    dealers = rng.integers(0, players, n)
    env.reset(decks=decks, dealers=dealers)
    states = [BasicRummyState.from_deck(d.tolist(), players, rules, int(k)) for d, k in zip(decks, dealers)]
    keys = rng.integers(0, 2**63, (n, players), dtype=np.uint64)
    decisions = np.zeros((n, players), dtype=np.int64)
    seated = [[None] * players for _ in range(n)]  # per game and seat, the agent of the hand being played
    rows = np.arange(n)
    kinds = {"draw": 0, "take": 0, "meld": 0, "layoff": 0, "discard": 0, "tie_drawn": 0, "hands": 0}
    for step in range(steps):
        seat = env.current.astype(np.intp)
        actions = policy(env, rows, keys[rows, seat], decisions[rows, seat])
        for g, state in enumerate(states):
            p = state.current_player
            assert p == seat[g]
            if decisions[g, p] == 0:  # as a tournament makes it for the hand: seeded, its key the seed's
                seated[g][p] = agents.make(spec, game="basic", seed=int(keys[g, p]))
            agent = seated[g][p]
            before = agent.rng.bit_generator.state
            expected = agent.act({"action_mask": state.legal_mask()},
                                 {"information_set": state.information_set(p), "rules": rules})
            assert actions[g] == expected, (step, g, int(actions[g]), expected)
            kinds["draw" if expected <= TAKE_DISCARD else "discard" if expected < MELD
                  else "meld" if expected < LAYOFF else "layoff"] += 1
            kinds["take"] += expected == TAKE_DISCARD
            kinds["tie_drawn"] += agent.rng.bit_generator.state != before
            state.step(expected)
        decisions[rows, seat] += 1
        result = env.step(actions)
        for g in np.flatnonzero(result.terminated).tolist():
            assert states[g].result == result.results[g]
            deck, dealer = rng.permutation(NUM_CARDS), int(rng.integers(0, players))
            env.deal_rows(np.array([g]), deck[None], np.array([dealer]))
            states[g] = BasicRummyState.from_deck(deck.tolist(), players, rules, dealer)
            decisions[g] = 0
            kinds["hands"] += 1
    return kinds


@pytest.mark.parametrize("players, rules, spec", CASES)
def test_the_array_policy_makes_the_agents_moves(players, rules, spec):
    kinds = play_side_by_side(players, rules, spec)
    # every kind of move, tie-breaks that drew from the generator, and hands played to the end
    assert all(kinds[k] > 0 for k in ("take", "meld", "layoff", "discard", "tie_drawn")), kinds
    assert kinds["hands"] > 10, kinds
    assert {c[1] for c in CASES if isinstance(c[1], str)} == set(PRESETS)  # every preset is among the cases


@pytest.mark.parametrize("players, rules, spec", [CASES[0], CASES[4]])
def test_without_numba_the_policy_plays_the_pure_hands_alike(monkeypatch, players, rules, spec):
    """Where numba is missing or switched off the batch player runs the pure hands in a
    loop (``StatesEngine``) and the meld choice is ``best_arrangement``'s per hand: the
    same moves."""
    monkeypatch.setattr(melds.KERNELS, "chosen", None)
    monkeypatch.setattr(heuristic_vector.KERNELS, "chosen", None)
    kinds = play_side_by_side(players, rules, spec, n=8, steps=120, engine="states")
    assert kinds["meld"] > 0 and kinds["tie_drawn"] > 0, kinds


def test_the_compiled_meld_choice_is_best_arrangements_and_its_check_sees_a_fault():
    kernels = heuristic_vector.KERNELS.get()
    if kernels is None:
        pytest.skip("numba is missing or switched off: the meld choice is best_arrangement's itself")
    rng = np.random.default_rng(3)
    crowded = np.array([r + 13 * s for r in (0, 1, 2, 3, 4, 10, 11, 12) for s in range(4)])  # sets and runs cross
    bits = np.uint64(1) << np.arange(52, dtype=np.uint64)
    hands = np.array([int(np.bitwise_or.reduce(bits[rng.choice(cards, size, replace=False)]))
                      for cards in (np.arange(52), crowded) for size in rng.integers(3, 14, 2000)], dtype=np.uint64)
    for aces_high in (False, True):
        got = heuristic_vector.best_meld_ids(hands, aces_high)
        assert np.array_equal(got, heuristic_vector._best_meld_ids_python(hands, aces_high))
        assert (got[:, 0] >= 0).mean() > 0.3 and (got[:, 3] >= 0).any()  # hands with melds, up to four
    assert heuristic_vector._kernels_agree(kernels) == ""

    class Reversed:  # the right melds, in another order: the self-check says so
        @staticmethod
        def best_melds(h, aces_high, out):
            kernels.best_melds(h, aces_high, out)
            out[:, :2] = out[:, 1::-1]
            return out

    assert heuristic_vector._kernels_agree(Reversed) == "they disagree with melds.best_arrangement"


def test_the_policy_draws_what_the_agents_choice_draws():
    """The policy skips the agent's ``rng.choice`` where one discard is best (numpy draws
    nothing for a choice among one) and draws the index of a choice among k as
    ``integers(0, k)``: the same numbers, the generator left where the agent's is."""
    rng = np.random.default_rng(11)
    state = rng.bit_generator.state
    assert rng.choice([7]) == 7 and rng.bit_generator.state == state
    rng.choice([7, 9])
    assert rng.bit_generator.state != state
    for seed in range(40):
        agent, policy, sizes = np.random.default_rng(seed), np.random.default_rng(seed), np.random.default_rng(-~seed)
        for k in sizes.integers(2, 40, 30).tolist():
            options = list(range(100, 100 + k))
            assert agent.choice(options) == options[policy.integers(0, k)]
        assert agent.bit_generator.state == policy.bit_generator.state


def test_the_policy_is_equal_for_equal_settings_pickles_and_refuses_decisions_out_of_order():
    policy = agents.make("basic/heuristic").batch_policy()
    assert policy == agents.make("basic/heuristic:seed=4").batch_policy()
    assert policy != agents.make("basic/heuristic:danger_weight=0").batch_policy()
    assert policy.observation is None
    copy = pickle.loads(pickle.dumps(policy))
    assert copy == policy and hash(copy) == hash(policy)
    env = BASIC.vector(8, 2, encoding=None, seed=1)
    env.reset()
    rows = np.arange(8)
    keys = np.arange(8, dtype=np.uint64)
    decisions = np.zeros((8, 2), dtype=np.int64)

    def play(keys, steps):
        for _ in range(steps):
            seat = env.current.astype(np.intp)
            env.step(policy(env, rows, keys, decisions[rows, seat]))
            decisions[rows, seat] += 1

    play(keys, 12)  # asked in order from each seat's decision 0: fine
    with pytest.raises(ValueError, match="without that hand's first decision"):
        play(keys + np.uint64(1), 60)  # other keys in the middle of the hands: no first decision of theirs was seen
