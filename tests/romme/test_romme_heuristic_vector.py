"""Rommé ``heuristic``'s array policy (``rummy_env.agents.romme.heuristic_vector``): move for
move the scripted agent's, on the compiled engine and on the pure hands in a loop, over whole
hands from the deal (its tie-breaks drawn from each seat's generator) and from random positions
loaded mid-hand (a meld half built, a joker owed, a card taken from the pile), at 2, 3, 4 and 6
players under several settings and rules; the kinds each seat let go by, which the engine keeps
as it steps, are those the agent reads of the public history."""

import numpy as np
import pytest

from rummy_env.agents.romme import heuristic_vector as hv
from rummy_env.agents.romme.agents import RommeHeuristicAgent
from rummy_env.agents.romme.heuristic_vector import positions_of
from rummy_env.agents.romme.position import Position, passed_kinds, passed_set, position_of
from rummy_env.core.game import get_game
from rummy_env.romme import vector
from rummy_env.romme.game import DRAW_STOCK, RommeState
from engine_checks import check_batched_tournament_results
from romme_positions import inputs, kinds_seen, random_states

ROMME = get_game("romme")
needs_compiled = pytest.mark.skipif(vector.compiled_engine() is None,
                                    reason="Rommé's compiled engine is not used here (numba off or missing)")
SETTINGS = [{}, {"partial_weight": 0.0, "danger_weight": 7.0, "joker_hold": 1},
            {"partial_weight": 5.0, "danger_weight": 0.0, "joker_hold": 6}]
TABLES = [
    (2, {}, SETTINGS[0]),
    (3, {"turnover": "flip", "take_discard_before_out": "free", "deal_extra_card": False}, SETTINGS[1]),
    (4, {"go_out_without_discard": True, "adjacent_jokers": True}, SETTINGS[2]),
    (6, {"come_out_points": 30}, SETTINGS[1]),
]


def lockstep(engine, players: int, rules, settings: dict, steps: int, seed: int) -> dict:
    """Whole hands from the deal on ``engine`` (its rows all to move each step) by the array
    policy, and the same deals as pure hands by one agent per seat seeded with that seat's key:
    every move equal; finished hands dealt again on both. Returns what was seen."""
    rng = np.random.default_rng(seed)
    n = engine.num_envs
    policy = RommeHeuristicAgent(**settings).batch_policy()
    size = ROMME.deck_size_of(ROMME.load_rules(rules))
    states, seats = [None] * n, [None] * n
    keys = np.zeros((n, players), dtype=np.uint64)
    decisions = np.zeros((n, players), dtype=np.int64)

    def deal(rows: np.ndarray) -> None:
        decks = np.stack([rng.permutation(size) for _ in rows])
        dealers = rng.integers(0, players, rows.size)
        engine.deal_rows(rows, decks, dealers)
        for j, g in enumerate(rows.tolist()):
            states[g] = RommeState.from_deck(decks[j].tolist(), players, rules, int(dealers[j]))
            keys[g] = rng.integers(0, 1 << 62, players, dtype=np.uint64) * 3  # keys past 2**62 too
            seats[g] = [RommeHeuristicAgent(seed=int(k), **settings) for k in keys[g]]
            decisions[g] = 0

    deal(np.arange(n))
    seen = {"moves": 0, "hands": 0, "ties": 0}
    rows = np.arange(n)
    for _ in range(steps):
        mover = engine.current.astype(np.intp)
        got = policy(engine, rows, keys[rows, mover], decisions[rows, mover])
        for g in range(n):
            state = states[g]
            assert state.current_player == mover[g]
            agent = seats[g][mover[g]]
            drawn = agent.rng.bit_generator.state["state"]["state"]
            want = agent.act(*inputs(state))
            seen["ties"] += agent.rng.bit_generator.state["state"]["state"] != drawn
            assert got[g] == want, f"row {g}: policy {got[g]}, agent {want}"
            state.step(want)
        decisions[rows, mover] += 1
        seen["moves"] += n
        step = engine.step(got)
        done = np.flatnonzero(step.terminated)
        for g in done.tolist():
            assert states[g].is_over and step.results[g] == states[g].result
        seen["hands"] += done.size
        if done.size:
            deal(done)
    return seen


@needs_compiled
@pytest.mark.parametrize("players, rules, settings", TABLES)
def test_the_policy_plays_the_agents_moves_over_whole_hands(players, rules, settings):
    engine = ROMME.vector(6, players, rules=rules, encoding=None, seed=0)
    assert isinstance(engine, vector.VectorRomme)
    seen = lockstep(engine, players, rules, settings, 160, seed=players)
    assert seen["hands"] and seen["ties"], seen


def test_the_policy_plays_the_agents_moves_on_the_pure_hands_in_a_loop():
    """Without the compiled engine (the pure hands in a loop, as without numba) the policy
    reads each row's information set and makes the same moves."""
    engine = vector.engine(4, 3, engine="states", encoding=None, seed=0)
    seen = lockstep(engine, 3, {}, SETTINGS[1], 80, seed=5)
    assert seen["moves"] == 320


@needs_compiled
def test_on_the_compiled_engine_the_agents_own_decide_plays_the_same_moves_without_the_compiled_heuristic(
        monkeypatch):
    """The policy's Python path on the compiled engine (the compiled heuristic not used: its
    check failed): the engine's arrays read into the agent's inputs, the agent's ``decide``."""
    monkeypatch.setattr(hv.HEURISTIC_KERNEL, "chosen", None)
    engine = ROMME.vector(4, 4, rules=TABLES[2][1], encoding=None, seed=1)
    seen = lockstep(engine, 4, TABLES[2][1], TABLES[2][2], 100, seed=9)
    assert seen["hands"], seen


@needs_compiled
@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "python"])
@pytest.mark.parametrize("players, rules, settings", TABLES)
def test_the_policy_plays_the_agents_move_at_random_positions(players, rules, settings, compiled, monkeypatch):
    """Positions loaded mid-hand (a meld being built, lay-offs, joker swaps and the joker owed,
    a card taken from the pile, stocks turned over): the policy's move at the mover's first
    decision with a fresh key is the agent's seeded with that key, decided by the compiled
    heuristic and by the agent's own ``decide`` on the engine's arrays."""
    if not compiled:
        monkeypatch.setattr(hv.HEURISTIC_KERNEL, "chosen", None)
    states = random_states(players, rules, 24, seed=10 + players)
    seen = kinds_seen(states)
    assert seen["pending"] and seen["owed joker"] and seen["taken"], seen
    engine = ROMME.vector(len(states), players, rules=rules, encoding=None, seed=0)
    engine.reset()
    rows = np.arange(len(states))
    engine.load_states(rows, [s.clone() for s in states])
    keys = np.arange(len(states), dtype=np.uint64) + 12345
    got = RommeHeuristicAgent(**settings).batch_policy()(engine, rows, keys, np.zeros(len(states), dtype=np.int64))
    for k, state in enumerate(states):
        agent = RommeHeuristicAgent(seed=int(keys[k]), **settings)
        assert got[k] == agent.act(*inputs(state)), k
    # what the policy reads of the engine is what the agent reads of the information set
    for k, (pos, phase) in enumerate(positions_of(engine, rows)):
        want = position_of(states[k].information_set(states[k].current_player), states[k].rules)
        assert phase == states[k].phase
        for name in Position._fields:
            a, b = getattr(pos, name), getattr(want, name)
            if name == "passed_next":
                assert a() == b(), k
            elif name == "pending":
                assert sorted(a) == sorted(b), k
            elif isinstance(a, np.ndarray):
                np.testing.assert_array_equal(a, b)
            else:
                assert a == b, (k, name)


@needs_compiled
@pytest.mark.parametrize("turnover", ["shuffle", "flip"])
def test_the_engine_keeps_the_kinds_each_seat_let_go_by(turnover):
    """Mostly stock draws and the top discard now and then (the upcard taken, stocks turned
    over): at every step every seat's kinds let go by, from the engine's arrays, are
    ``passed_kinds`` of the pure hand's public history."""
    from rummy_env.core.vector_states import StatesEngine

    rules = {"turnover": turnover, "take_discard_before_out": "free", "deal_extra_card": False}
    fast = ROMME.vector(8, 3, rules=rules, encoding=None, seed=4)
    pure = StatesEngine(ROMME, 8, 3, rules=rules, encoding=None, seed=4)
    fast.reset(), pure.reset()
    rng = np.random.default_rng(4)
    upcard_counted = turned = 0
    for _ in range(300):
        for g, state in enumerate(pure.states):
            info = state.information_set(0)
            upcard = int(fast.pile[g, 0]) if fast.st[g, fast._jit.UP_STAYS] and fast.st[g, fast._jit.PILE_LEN] else -1
            assert [passed_set(int(m), upcard) for m in fast.passed[g]] == passed_kinds(info, state.rules)
            upcard_counted += upcard >= 0 and any(int(m) >> vector.PASSED_UPCARD & 1 for m in fast.passed[g])
        mask = fast.action_mask()
        actions = np.where(rng.random(8) < 0.8, np.argmax(mask != 0, axis=1), fast.random_actions(rng))
        actions[(actions == DRAW_STOCK) & (mask[:, 1] == 1) & (rng.random(8) < 0.2)] = 1
        fast.step(actions), pure.step(actions)
        turned += sum(s.turnovers > 0 for s in pure.states)
    assert upcard_counted and turned


def test_asked_out_of_order_the_policy_refuses():
    """A row's seat asked a decision past 0 without its hand's decision 0 (no generator for
    that hand): refused at its first tie, naming the row."""
    engine = vector.engine(1, 2, encoding=None, seed=0)
    engine.reset()
    policy = RommeHeuristicAgent().batch_policy()
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="without that hand's first decision"):
        for _ in range(400):
            engine.step(policy(engine, np.arange(1), np.array([7], dtype=np.uint64), np.array([3])))
            engine.step(engine.random_actions(rng))


@pytest.mark.parametrize("players", [2, 4])
def test_a_heuristic_tournament_played_many_hands_at_once_gives_the_same_results_file(tmp_path, players):
    """``heuristic`` (two settings) against ``random``, batched (``batch=auto``: the array
    policies on the engine) and one game at a time: the same results.jsonl."""
    check_batched_tournament_results(tmp_path, ["heuristic", "random:seed=3", "heuristic:danger_weight=8,joker_hold=1", "random"], "romme", players)


@needs_compiled
@pytest.mark.parametrize("players", [2, 4])
def test_the_search_with_heuristic_playouts_gives_the_python_values_on_the_engine(players, monkeypatch):
    """The search's default rollout (``heuristic``) on Rommé: with ``playouts=engine``, and with
    the default ``auto``, which sends Rommé's rounds of any size there (its
    ``engine_playout_rows``), the Python playouts refused, the values matrix, candidates and
    move are ``playouts=python``'s."""
    from rummy_env.agents.search import SearchAgent

    assert ROMME.engine_playout_rows == 1
    states = random_states(players, {}, 3, seed=20 + players, moves=60)
    for k, state in enumerate(states):
        while len(state.legal_actions()) < 2:
            state.step(state.legal_actions()[0])
        got = []
        for playouts in ("python", "engine", "auto"):
            if playouts != "python":
                monkeypatch.setattr(SearchAgent, "_play_out", lambda *a: (_ for _ in ()).throw(AssertionError("python")))
            agent = SearchAgent(game="romme", seed=k, simulations=24, playouts=playouts)
            got.append((agent.act(*inputs(state)), *agent.last_search))
            monkeypatch.undo()
        for other in got[1:]:
            assert other[:2] == got[0][:2]
            np.testing.assert_array_equal(other[2], got[0][2])


@needs_compiled
def test_the_compiled_heuristic_is_used_and_decides_as_the_agent_at_every_table_size():
    """Its check passes, so the array policy uses it; over 160 steps of 10 games at 2 to 6
    players (the heuristic's moves and one in four random, the weights on and off, rules
    that reach the engine's branches) each of its decisions, ties included in their order,
    is the agent's ``decide``."""
    from rummy_env.agents.romme import heuristic_jit

    assert hv.heuristic_kernel() is heuristic_jit
    assert heuristic_jit.disagreement(heuristic_jit, moves=160, games=10, players=(2, 3, 4, 5, 6), seed=7) == ""


class _Mutant:
    """The compiled heuristic with one change to its decisions (``change(moves, ties, num_ties)``)."""

    def __init__(self, change):
        from rummy_env.agents.romme import heuristic_jit

        self.real, self.change = heuristic_jit, change
        self.TIES, self.ANY, self.MAX_TIES = heuristic_jit.TIES, heuristic_jit.ANY, heuristic_jit.MAX_TIES

    def decide_rows(self, *args):
        self.real.decide_rows(*args)
        self.change(*args[-3:])


def _take_less(moves, ties, num_ties):
    moves[moves == 1] = 0  # never take the discard


def _ties_reversed(moves, ties, num_ties):
    for i in np.flatnonzero(num_ties > 1):
        ties[i, :num_ties[i]] = ties[i, :num_ties[i]][::-1].copy()


@needs_compiled
@pytest.mark.parametrize("change", [_take_less, _ties_reversed])
def test_a_compiled_heuristic_that_decides_otherwise_is_found_and_not_used(change, monkeypatch):
    """The check finds a kernel that plays another move, or offers the tied discards in
    another order (another move for the same draw); such a kernel is not used, with a
    warning, and the policy decides by the agent's code."""
    from rummy_env.agents.romme import heuristic_jit

    problem = heuristic_jit.disagreement(_Mutant(change), moves=80, games=8, players=(2, 4))
    assert "the compiled heuristic plays" in problem

    monkeypatch.setattr(heuristic_jit, "self_check", lambda: problem)
    monkeypatch.setattr(hv.HEURISTIC_KERNEL, "chosen", hv.UNDECIDED)
    with pytest.warns(RuntimeWarning, match="compiled heuristic is not used .at .* players"):
        assert hv.heuristic_kernel() is None
    engine = ROMME.vector(3, 2, encoding=None, seed=2)
    assert lockstep(engine, 2, {}, SETTINGS[0], 40, seed=3)["moves"] == 120
