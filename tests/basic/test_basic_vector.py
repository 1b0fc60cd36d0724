"""Basic Rummy's vector engine (``rummy_env.basic.vector``) beyond the conformance suite
(tests/core/test_vector_conformance.py plays it against the pure game under the presets):
the compiled engine and the pure hands in a loop play the same games from one seed under
every rule option, explicit deals are ``from_deck``'s, mistakes are named, the engine
choice falls back with a warning, and tournaments played many hands at once give the
results of one hand at a time."""

import pickle
import types

import numpy as np
import pytest

from rummy_env import agents
from rummy_env.basic import vector
from rummy_env.basic.game import (
    DISCARD, DRAW_STOCK, LAYOFF, MELD, NUM_ACTIONS, TAKE_DISCARD, BasicRummyState, IllegalActionError,
)
from rummy_env.core.cards import parse_card, parse_hand
from rummy_env.core.meld_table import meld_table
from rummy_env.core.compiled import UNDECIDED
from rummy_env.core.game import get_game
from rummy_env.core.vector_states import StatesEngine

BASIC = get_game("basic")
COMPILED = vector.compiled_engine()
needs_compiled = pytest.mark.skipif(COMPILED is None, reason="the compiled engine is not in use (numba off or missing)")

# rule options beyond the presets, each with a table size: together they reach every rule
# of the pure game (aces high, lay-offs without a meld, the last card discarded, no or two
# turnovers, short hands that go out often, a turn limit that stalemates)
RULES = [
    (2, {}),
    (3, {"aces": "high", "layoff_needs_own_meld": False, "rummy_multiplier": 3}),
    (4, {"go_out_without_discard": False, "stock_turnovers": 2, "max_turns": 400}),
    (2, {"hand_size": 3, "stock_turnovers": 0}),
    (3, {"hand_size": 3, "go_out_without_discard": False, "layoff_needs_own_meld": False}),
    (4, {"hand_size": 4, "aces": "high", "max_turns": 25, "rummy_multiplier": 1}),
    (2, {"hand_size": 10, "max_turns": 60}),
]


def meld(cards: str) -> int:
    return MELD + meld_table(False).index[parse_hand(cards)]


def discard(card: str) -> int:
    return DISCARD + parse_card(card)


def layoff(slot: int, card: str) -> int:
    return LAYOFF + 52 * slot + parse_card(card)


def lockstep(n: int, rules, steps: int, seed: int, num_envs: int = 16, encoding: str = "flat") -> dict:
    """Play the compiled engine and the pure hands in a loop from one seed (shuffled deals,
    new deals as hands end), half the moves random and half the highest legal id (melds
    and lay-offs: hands go out), comparing everything at every step; returns what was seen."""
    fast = vector.engine(num_envs, n, engine="compiled", rules=rules, encoding=encoding, seed=seed)
    pure = vector.engine(num_envs, n, engine="states", rules=rules, encoding=encoding, seed=seed)
    assert isinstance(fast, vector.VectorBasicRummy) and isinstance(pure, StatesEngine)
    got, want = fast.reset(), pure.reset()
    rng = np.random.default_rng(seed)
    seen = {"outcomes": set(), "with_discard": set(), "turnovers": 0}
    for step in range(steps):
        for name in ("player", "observation", "action_mask", "rewards", "terminated"):
            np.testing.assert_array_equal(getattr(got, name), getattr(want, name), err_msg=f"step {step}: {name}")
        assert got.results == want.results, f"step {step}: results"
        others = rng.integers(0, n, num_envs)
        np.testing.assert_array_equal(fast.observe(players=others), pure.observe(players=others),
                                      err_msg=f"step {step}: other seats' observations")
        seen["turnovers"] += sum(s.turnovers > 0 for s in pure.states)
        for r in got.results:
            if r is not None:
                seen["outcomes"].add((r.outcome, r.reason))
                seen["with_discard"].add(r.with_discard)
        mask = fast.action_mask()
        last = NUM_ACTIONS - 1 - np.argmax(mask[:, ::-1] != 0, axis=1)
        actions = np.where(rng.random(num_envs) < 0.5, last, fast.random_actions(rng))
        got, want = fast.step(actions), pure.step(actions)
    return seen


@needs_compiled
@pytest.mark.parametrize("n, rules", RULES, ids=[f"{n}p-{'-'.join(r) or 'default'}" for n, r in RULES])
def test_the_compiled_engine_plays_as_the_pure_hands_under_every_rule_option(n, rules):
    seen = lockstep(n, rules, 400, seed=n + len(rules))
    assert {("out", ""), ("rummy", "")} & seen["outcomes"], seen
    if rules.get("max_turns", 300) <= 60:
        assert ("stalemate", "max_turns") in seen["outcomes"], seen
    if rules.get("hand_size", 10) == 3:  # the shortest hands: some go out in one turn
        assert ("rummy", "") in seen["outcomes"], seen


@needs_compiled
@pytest.mark.parametrize("without_discard", [True, False])
def test_plays_that_leave_only_the_card_taken_from_the_pile(without_discard):
    """A meld or lay-off leaving only the card taken this turn is legal only where that
    card can then be laid off (and going out without a discard is allowed): scripted
    hands where it can and cannot, the engine's masks equal to the pure game's."""
    rules = {"hand_size": 4, "go_out_without_discard": without_discard}
    # seat 0: 5H 5D 5S 9C, draws 5C, melds the fives, discards 9C; seat 1: 7D 8D 9D KS, draws
    # TD, melds the run, discards TD; seat 0 takes TD and holds 5C TD
    state = BasicRummyState.from_hands(["5H 5D 5S 9C", "7D 8D 9D KS"], "2C", "5C TD", rules=rules, dealer=1)
    engine = vector.VectorBasicRummy(1, 2, rules=rules)
    engine.reset(decks=np.array([state.deck]), dealers=np.array([1]))
    script = [DRAW_STOCK, meld("5H 5D 5S"), discard("9C"), DRAW_STOCK, meld("7D 8D 9D"), discard("TD"), TAKE_DISCARD]
    for action in script:
        np.testing.assert_array_equal(engine.action_mask()[0], state.legal_mask())
        engine.step(np.array([action]))
        state.step(action)
    mask = engine.action_mask()[0]
    np.testing.assert_array_equal(mask, state.legal_mask())
    assert mask[layoff(0, "5C")] == without_discard  # leaves TD, which then fits the run
    assert mask[layoff(1, "TD")] == 1  # leaves 5C: not the card taken
    # seat 0 holds 5H 5D 5S and takes 5C (it fits the set it would meld) or KC (it fits nothing)
    for upcard, fits in (("5C", True), ("KC", False)):
        state = BasicRummyState.from_hands(["5H 5D 5S", "7D 8D 9D"], upcard, rules={**rules, "hand_size": 3}, dealer=1)
        engine = vector.VectorBasicRummy(1, 2, rules={**rules, "hand_size": 3})
        engine.reset(decks=np.array([state.deck]), dealers=np.array([1]))
        engine.step(np.array([TAKE_DISCARD]))
        state.step(TAKE_DISCARD)
        mask = engine.action_mask()[0]
        np.testing.assert_array_equal(mask, state.legal_mask())
        assert mask[meld("5H 5D 5S")] == (fits and without_discard)


@needs_compiled
def test_long_hands_turn_the_stock_over_and_stalemate():
    """Random play only (no push to go out): stocks run out, are turned over (their order
    public), and run out again."""
    seen = lockstep(2, {"max_turns": 1000}, 900, seed=5, encoding="planes")
    assert seen["turnovers"] > 0 and ("stalemate", "stock") in seen["outcomes"], seen
    assert seen["with_discard"] == {True, False}, seen


@pytest.mark.parametrize("kind", ["auto", "states"])
@pytest.mark.parametrize("n", [2, 3, 4])
def test_explicit_deals_are_from_decks(kind, n):
    rng = np.random.default_rng(n)
    decks = np.stack([rng.permutation(52) for _ in range(6)])
    dealers = rng.integers(0, n, 6)
    engine = vector.engine(6, n, engine=kind, rules={"hand_size": 5} if n == 4 else None, encoding=None)
    engine.reset(decks=decks, dealers=dealers)
    for i in range(6):
        state = BasicRummyState.from_deck(decks[i].tolist(), n, engine.rules, int(dealers[i]))
        if isinstance(engine, vector.VectorBasicRummy):
            assert engine.hands[i].tolist() == state.hands
            assert engine.stock[i, : engine.stock_len[i]].tolist() == state.stock
            assert engine.pile[i, : engine.pile_len[i]].tolist() == state.discard_pile
            assert (engine.dealer[i], engine.current[i]) == (state.dealer, state.current_player)
        else:
            assert engine.states[i].card_places() == state.card_places()


@needs_compiled
def test_a_seed_deals_the_same_games_and_reset_reseeds():
    a = vector.VectorBasicRummy(8, 3, seed=7)
    b = vector.VectorBasicRummy(8, 3, seed=7)
    first = a.reset().observation
    np.testing.assert_array_equal(first, b.reset().observation)
    assert not np.array_equal(first, a.reset().observation)  # the generator went on
    np.testing.assert_array_equal(a.reset(seed=7).observation, first)


@pytest.mark.parametrize("kind", ["auto", "states"])
def test_an_illegal_action_names_the_game(kind):
    engine = vector.engine(5, 3, engine=kind, seed=1)
    engine.reset()
    actions = engine.random_actions(np.random.default_rng(0))
    actions[3] = DISCARD  # a discard in the draw phase
    with pytest.raises(IllegalActionError, match=r"game 3: illegal action 2 \(discard AC\) for player \d in phase "
                                                 r"DRAW; legal: 0 \(draw stock\), 1 \(take discard\)"):
        engine.step(actions)


@needs_compiled
def test_the_compiled_engine_refuses_illegal_actions_with_nothing_changed():
    engine = vector.VectorBasicRummy(5, 3, seed=1)
    res = engine.reset()
    before = engine.observe().copy()
    actions = engine.random_actions(np.random.default_rng(0))
    actions[[1, 3]] = DISCARD
    with pytest.raises(IllegalActionError, match=r"game 1: illegal action 2 .* \(and 1 more game\(s\)\)"):
        engine.step(actions)
    actions[[1, 3]] = NUM_ACTIONS
    with pytest.raises(IllegalActionError, match=f"game 1: action must be an integer action id 0..{NUM_ACTIONS - 1}"):
        engine.step(actions)
    np.testing.assert_array_equal(engine.observe(), before)
    np.testing.assert_array_equal(engine.action_mask(), res.action_mask)
    with pytest.raises(ValueError, match=r"actions must .*shape \(5,\)"):
        engine.step(actions[:4])


@needs_compiled
def test_the_compiled_engine_refuses_bad_deals_and_arguments():
    engine = vector.VectorBasicRummy(3, 2)
    decks = np.stack([np.arange(52)] * 3)
    with pytest.raises(ValueError, match=r"decks must have shape \(3, 52\), one deal order per game"):
        engine.reset(decks=decks[:2])
    with pytest.raises(ValueError, match="of integer card ids; got float64"):
        engine.reset(decks=decks.astype(float))
    bad = decks.copy()
    bad[1, 5] = 0
    with pytest.raises(ValueError, match=r"decks\[1\] must be a permutation of the 52 card ids 0..51"):
        engine.reset(decks=bad)
    with pytest.raises(ValueError, match=r"dealers must have shape \(3,\) with seats 0..1"):
        engine.reset(decks=decks, dealers=[0, 2, 1])
    with pytest.raises(ValueError, match=r"rows must be distinct game indices in 0..2"):
        engine.deal_rows(np.array([1, 1]), decks[:2], np.zeros(2, dtype=int))
    with pytest.raises(ValueError, match="players must be seats 0..1"):
        engine.observe(players=np.array([0, 1, 2]))
    with pytest.raises(ValueError, match="active must be a bool array"):
        engine.step(np.zeros(3, dtype=int), active=np.ones(3))
    with pytest.raises(ValueError, match="num_players must be an integer 2..4"):
        vector.VectorBasicRummy(3, 5)
    with pytest.raises(ValueError, match="engine must be one of"):
        vector.engine(3, 2, engine="arrays")


@needs_compiled
def test_a_pickled_engine_plays_on_as_the_original():
    engine = vector.VectorBasicRummy(6, 3, seed=2)
    engine.reset()
    rng = np.random.default_rng(1)
    for _ in range(30):
        engine.step(engine.random_actions(rng))
    twin = pickle.loads(pickle.dumps(engine))
    for _ in range(30):
        actions = engine.random_actions(rng)
        got, want = twin.step(actions), engine.step(actions)
        np.testing.assert_array_equal(got.observation, want.observation)
        assert got.results == want.results


@needs_compiled
def test_deal_rows_and_inactive_games():
    """``deal_rows`` deals some games from explicit decks and leaves the others; games
    outside ``active`` do not move."""
    engine = vector.VectorBasicRummy(4, 2, seed=3)
    engine.reset()
    rng = np.random.default_rng(0)
    for _ in range(5):
        engine.step(engine.random_actions(rng))
    kept = engine.observe()[[0, 2]].copy()
    deck = np.arange(52)[::-1].copy()
    engine.deal_rows(np.array([1, 3]), np.stack([deck, deck]), np.array([0, 1]))
    np.testing.assert_array_equal(engine.observe()[[0, 2]], kept)
    state = BasicRummyState.from_deck(deck.tolist(), 2, None, 1)
    assert engine.hands[3].tolist() == state.hands and engine.turn[3] == 0
    engine.step(engine.random_actions(rng), active=np.array([False, True, False, True]))
    np.testing.assert_array_equal(engine.observe()[[0, 2]], kept)


def test_without_the_compiled_engine_the_pure_hands_play(monkeypatch):
    """``auto`` falls back to the pure hands where the compiled engine is not used; asking
    for ``compiled`` then says what it needs. A compiled engine that disagrees with the
    pure game is not used, with one warning."""
    monkeypatch.setattr(vector.COMPILED_ENGINE, "chosen", None)
    assert isinstance(BASIC.vector(4, 3), StatesEngine)
    with pytest.raises(ValueError, match="engine='compiled' needs numba"):
        vector.engine(4, 2, engine="compiled")
    with pytest.raises(ValueError, match="VectorBasicRummy needs numba"):
        vector.VectorBasicRummy(4, 2)
    if COMPILED is None:
        return
    monkeypatch.setattr(vector.COMPILED_ENGINE, "chosen", UNDECIDED)
    monkeypatch.setattr(vector.COMPILED_ENGINE, "check", lambda module: "it disagrees")
    with pytest.warns(RuntimeWarning, match="compiled Basic Rummy vector engine is not used .it disagrees.; "
                                            "Basic Rummy's vector engine steps the pure hands in a loop"):
        assert isinstance(BASIC.vector(4, 2), StatesEngine)


@needs_compiled
def test_the_self_check_catches_a_kernel_that_breaks_a_rule():
    assert vector._self_check(COMPILED) == ""
    broken = types.SimpleNamespace(**{k: getattr(COMPILED, k) for k in dir(COMPILED) if not k.startswith("__")})

    def no_rummy(*args):  # the rummy multiplier ignored: a rummy scores as a plain going out
        args = list(args)
        args[-5] = 1
        COMPILED.apply_actions(*args)

    broken.apply_actions = no_rummy
    assert vector._self_check(broken) == "the compiled engine disagrees with the pure game"


# ----------------------------------------------------------------------------- many hands at once


def test_random_and_its_array_policy_make_the_same_moves():
    """The ``random`` agent one game at a time and its array policy on the engine, with
    each game's key and decision index, pick the same moves."""
    policy = agents.make("random", game="basic").batch_policy()
    agent = agents.make("random", game="basic")
    engine = BASIC.vector(12, 3, encoding=None)
    rng = np.random.default_rng(2)
    decks = np.stack([rng.permutation(52) for _ in range(12)])
    engine.reset(decks=decks, dealers=np.zeros(12, dtype=int))
    states = [BasicRummyState.from_deck(d.tolist(), 3, None, 0) for d in decks]
    keys = rng.integers(0, 2**63, 12, dtype=np.uint64)
    rows = np.arange(12)
    for decision in range(60):
        actions = policy(engine, rows, keys, np.full(12, decision))
        for g, state in enumerate(states):
            agent.reset(seed=int(keys[g]))
            agent.decision_index = decision
            info = {"information_set": state.information_set(state.current_player), "rules": state.rules}
            assert actions[g] == agent.act({"action_mask": state.legal_mask()}, info), (decision, g)
            state.step(int(actions[g]))
        result = engine.step(actions)
        assert not result.terminated.any()  # no hand ends this early at random


@pytest.mark.parametrize("n, rules", [(2, "basic"), (3, {"hand_size": 3}), (4, {"aces": "high"})])
def test_the_batch_player_deals_the_decks_given_and_keeps_every_action(n, rules):
    """Hands played many at once (5 at a time, rows dealt again as hands finish) replay to
    the same results through the pure game."""
    rng = np.random.default_rng(n)
    m = 23
    decks = np.stack([rng.permutation(52) for _ in range(m)])
    dealers = rng.integers(0, n, m)
    policy = agents.make("random", game="basic").batch_policy()
    seats = np.zeros((m, n), dtype=int)
    keys = rng.integers(0, 2**63, (m, n), dtype=np.uint64)
    done = [hand for hands in BASIC.play_batched(rules, decks, dealers, seats, keys, [policy], width=5)
            for hand in hands]
    assert sorted(h.index for h in done) == list(range(m))
    for hand in done:
        state = BASIC.deal(BASIC.load_rules(rules), n, deck=decks[hand.index].tolist(), dealer=int(dealers[hand.index]))
        for action in hand.actions:
            state.step(action)
        assert state.result == hand.result


def test_the_batch_player_refuses_bad_input():
    policy = agents.make("random", game="basic").batch_policy()
    deck = np.arange(52)[None]
    with pytest.raises(ValueError, match=r"seats must have a column per player \(2..4\), got shape \(1, 5\)"):
        BASIC.play_batched(None, deck, np.ones(1), np.zeros((1, 5)), np.zeros((1, 5)), [policy])
    with pytest.raises(ValueError, match=r"decks \(1, 52\), dealers \(1,\), seats \(1, 3\) and keys \(1, 3\)"):
        next(BASIC.play_batched(None, deck, np.ones(1), np.zeros((1, 3)), np.zeros((1, 2)), [policy]))


@pytest.mark.parametrize("players, members", [
    (2, ["random", "random:seed=3", "random:seed=5", "random:seed=9"]),
    (3, ["random", "random:seed=3", "random:seed=5", "random:seed=9"]),
    (4, ["random", "random:seed=3", "random:seed=5", "random:seed=9"]),
    # the heuristic's array policy (tests/agents/test_basic_heuristic_vector.py), its tie-breaks its generator's
    (2, ["random", "heuristic", "heuristic:danger_weight=0"]),
    (3, ["heuristic", "heuristic:danger_weight=0", "heuristic:partial_weight=0,seed=18446744073709551624", "random"]),
    (4, ["heuristic", "heuristic:danger_weight=0", "random", "heuristic:partial_weight=1"]),
])
def test_a_tournament_played_many_hands_at_once_gives_the_same_results_file(tmp_path, players, members):
    from rummy_env.eval.config import TournamentConfig
    from rummy_env.eval.tournament import run

    def play(batch):
        cfg = TournamentConfig(agents=members, deals=3, seed=4,
                               game="basic", players_per_table=players, out=str(tmp_path / batch), batch=batch)
        return run(cfg, progress=False), (tmp_path / batch / "results.jsonl").read_text().splitlines()

    (off, one), (auto, many) = play("off"), play("auto")
    assert off["batched_this_run"] == 0 and auto["batched_this_run"] == auto["played_this_run"] > 0
    assert one == many and len(many) > 1
