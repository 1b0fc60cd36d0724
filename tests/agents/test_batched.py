"""Agents one game at a time and their array versions (``Agent.batch_policy``) make the same
moves, by construction: the same rules as array operations, and random choices drawn
from a counter-based hash of (key, decision index, option) (``rummy_env.agents.draws``).
These tests ask both, position by position, on games of the vector engine; the
tournament tests (tests/eval/test_tournament.py) compare whole results files."""

import numpy as np
import pytest

from rummy_env import agents
from rummy_env.agents import draws
from rummy_env.core.game import BatchPolicy, Game, get_game
from rummy_env.gin.game import PASS, Phase
from rummy_env.gin.rules import Rules
from rummy_env.gin.scoring import Outcome, score_one, score_showdown
from rummy_env.gin.vector import VectorGinRummy
from rummy_env.train.opponents import information_set_of


def test_the_draws_are_the_same_one_at_a_time_and_over_arrays():
    rng = np.random.default_rng(0)
    keys = rng.integers(0, 2**63, 300, dtype=np.uint64) * np.uint64(2) + np.uint64(1)  # the whole 64-bit range
    decisions = rng.integers(0, 10_000, 300)
    u = draws.uniforms(keys, decisions)
    table = draws.noise_table(keys, decisions, 52)
    counts = rng.integers(1, 60, 300)
    chosen = draws.picks(keys, decisions, counts)
    for r in range(300):
        k, d = int(keys[r]), int(decisions[r])
        assert u[r] == draws.uniform(k, d) and 0 <= u[r] < 1
        assert chosen[r] == draws.pick(k, d, int(counts[r])) < counts[r]
        assert all(table[r, c] == draws.noise(k, d, c) for c in range(0, 52, 5))
    assert draws.mix(0) == 0xE220A8397B1DCDAF  # splitmix64's first output from state 0
    assert abs(u.mean() - 0.5) < 0.05 and abs(table.mean() - 0.5) < 0.01
    assert draws.key_of(-1) == 2**64 - 1 and draws.key_of(5) == 5 and draws.key_of(None) != draws.key_of(None)
    with pytest.raises(TypeError, match="must be an integer"):
        draws.key_of(1.5)


def _same_moves(spec: str, steps: int, rules="classic", n: int = 48, every: int = 1, play_on: float = 0.0) -> dict[str, int]:
    """Play games of the vector engine with the array policy of ``spec`` on both seats and
    check, at every position, that the agent made with that seat's key and decision index
    plays the policy's move (then, with probability ``play_on``, a knock is played as the
    discard of its card instead, so that hands run to the wall). Returns how many moves of
    each kind were compared."""
    policy = agents.make(spec).batch_policy()
    assert isinstance(policy, BatchPolicy)
    env = VectorGinRummy(n, rules=rules, encoding=policy.observation, seed=4)
    env.reset()
    rows = np.arange(n)
    keys = np.random.default_rng(1).integers(0, 2**63, (n, 2), dtype=np.uint64)
    decisions = np.zeros((n, 2), dtype=np.int64)
    agent = agents.make(spec)
    kinds = {"draw": 0, "discard": 0, "knock": 0, "wall": 0}
    for _ in range(steps):
        p = env.current.astype(np.intp)
        actions = policy(env, rows, keys[rows, p], decisions[rows, p])
        mask = env.action_mask()
        for g in rows[::every]:
            agent.reset(seed=int(keys[g, p[g]]))  # key from the seed; decisions from 0 ...
            agent.decision_index = int(decisions[g, p[g]])  # ... to this game's count
            info = {"information_set": information_set_of(env, g), "rules": env.rules}
            expected = agent.act({"action_mask": mask[g]}, info)
            assert actions[g] == expected, (spec, g, int(actions[g]), expected)
            kinds["knock" if expected >= 56 else "discard" if expected >= 4 else "draw"] += 1
            kinds["wall"] += bool(env.phase[g] == Phase.DRAW and mask[g, PASS])  # at the wall (wall_knock)
        decisions[rows, p] += 1
        if play_on:
            knocks = (actions >= 55) & (actions < 107) & (np.random.default_rng(len(actions)).random(n) < play_on)
            knocks &= mask[rows, np.where(knocks, actions - 52, 0)] == 1  # never after a take at the wall
            actions = np.where(knocks, actions - 52, actions)
        result = env.step(actions)
        decisions[result.terminated] = 0
    return kinds


@pytest.mark.parametrize("rules", ["classic", "openspiel",
                                   Rules(oklahoma=True, aces="high", five_under_ten=True, max_turns=30)])
@pytest.mark.parametrize("spec", ["random", "simple", "heuristic:knock=turn",
                                  "heuristic:knock=turn,take_margin=-2,danger_weight=3,late_turn=6,late_knock_max=2"])
def test_scripted_agents_and_their_array_versions_make_the_same_moves(spec, rules):
    wall_knock = rules == "openspiel"
    kinds = _same_moves(spec, 120 if wall_knock else 70, rules, play_on=0.8 if wall_knock else 0.0)
    assert kinds["draw"] > 0 and kinds["discard"] > 0, kinds
    assert kinds["knock"] > 0 or spec == "random", kinds  # random knocks by chance, rarely under these rules
    assert (kinds["wall"] > 0) == wall_knock, kinds


@pytest.mark.parametrize("spec", ["ppo", "ppo:greedy=false"])
def test_ppo_and_its_batched_inference_make_the_same_moves(spec):
    pytest.importorskip("torch")
    kinds = _same_moves(spec, 24, n=32, every=5)
    assert kinds["discard"] > 20, kinds


@pytest.mark.parametrize("greedy", [True, False])
def test_ppo_decisions_too_close_for_float32_are_taken_alike_alone_and_in_a_batch(greedy):
    """Discards of two cards with the same features have equal log-probabilities, which
    float32 rounds differently in a batch and alone (~1e-5): such decisions, and samples
    whose draw falls that close to a boundary, are taken in float64 by both."""
    pytest.importorskip("torch")
    from rummy_env.agents.gin.network import vector_inputs
    from rummy_env.agents.gin.ppo_actions import CLOSE, _decide, _log_probs, policy_actions
    from rummy_env.agents.gin.simple_vector import simple_actions

    nets = agents.make("ppo").nets
    env = VectorGinRummy(256, seed=1)
    env.reset()
    rng = np.random.default_rng(0)
    rows = np.arange(256)
    close_rows = 0
    for step in range(30):
        mask = env.action_mask() == 1
        inputs = vector_inputs(env.observe(), env, rows, nets.net.advice)
        keys = rng.integers(0, 2**63, 256, dtype=np.uint64)
        decisions = rng.integers(0, 50, 256)
        batch = policy_actions(nets, inputs, mask, greedy, keys, decisions)
        u = None if greedy else draws.uniforms(keys, decisions)
        _, close = _decide(_log_probs(nets.net, inputs, mask), mask, u, CLOSE)
        for g in [*np.flatnonzero(close)[:3], 8 * step]:  # some close decisions, and one more
            alone = policy_actions(nets, inputs[g : g + 1], mask[g : g + 1], greedy, keys[g : g + 1], decisions[g : g + 1])
            assert alone[0] == batch[g], (step, g)
        close_rows += int(close.sum())
        env.step(simple_actions(env, rows, rng))
    assert close_rows > 5  # the float64 path was taken (about 10% of greedy decisions: equal discards)


def test_agents_without_an_array_version_say_so():
    assert agents.make("mcts:simulations=8").batch_policy() is None
    assert agents.make("heuristic:knock=turn").batch_policy() == agents.make("heuristic:knock=turn,seed=3").batch_policy()
    assert agents.make("heuristic:knock=turn").batch_policy() != agents.make("heuristic:knock=turn,late_turn=3").batch_policy()
    # the default knock estimate has one too (tests/agents/test_gin_knock_vector.py holds its moves to the agent's)
    assert agents.make("heuristic").batch_policy() == agents.make("heuristic:seed=5").batch_policy()
    assert agents.make("heuristic").batch_policy() not in (agents.make("heuristic:knock=turn").batch_policy(),
                                                         agents.make("heuristic:knock_worlds=8").batch_policy())
    assert get_game("gin").batched and get_game("basic").batched and get_game("romme").batched
    # a game without a batch engine keeps Game's own, which refuses: its hands are played one at a time
    with pytest.raises(NotImplementedError, match="Rommé has no batch engine"):
        Game.play_batched(get_game("romme"), None, np.zeros((1, 108)), np.zeros(1), np.zeros((1, 2)),
                          np.zeros((1, 2)), [])


def test_an_agent_is_reproducible_and_reseeding_restarts_its_draws():
    a, b = agents.make("random", seed=7), agents.make("random", seed=7)
    mask = np.zeros(108, dtype=np.int8)
    mask[4:15] = 1
    first = [a.act({"action_mask": mask}, {}) for _ in range(20)]
    assert first == [b.act({"action_mask": mask}, {}) for _ in range(20)] and len(set(first)) > 3
    a.reset()  # no seed: the draws go on
    assert [a.act({"action_mask": mask}, {}) for _ in range(20)] != first
    a.reset(seed=7)
    assert [a.act({"action_mask": mask}, {}) for _ in range(20)] == first


def test_the_batch_player_refuses_bad_input():
    gin = get_game("gin")
    policy = agents.make("random").batch_policy()
    deck = np.arange(52)[None]
    with pytest.raises(ValueError, match="decks \\(1, 52\\), dealers \\(1,\\), seats \\(1, 2\\)"):
        next(gin.play_batched("classic", deck, np.ones(1), np.zeros((1, 3)), np.zeros((1, 2)), [policy]))
    with pytest.raises(ValueError, match="seats must index the 1 policies"):
        next(gin.play_batched("classic", deck, np.ones(1), np.ones((1, 2)), np.zeros((1, 2)), [policy]))
    with pytest.raises(ValueError, match="width must be a positive"):
        next(gin.play_batched("classic", deck, np.ones(1), np.zeros((1, 2)), np.zeros((1, 2)), [policy], width=0))

    class Illegal:
        observation = None

        def __call__(self, engine, rows, keys, decisions):
            return np.full(rows.size, 107, dtype=np.int64)  # Big Gin, never legal at the start

    with pytest.raises(ValueError, match="illegal actions in 1 game"):
        next(gin.play_batched("classic", deck, np.ones(1), np.zeros((1, 2)), np.zeros((1, 2)), [Illegal()]))


@pytest.mark.parametrize("rules", ["classic", "openspiel", {"max_upcard_draws": 3}])
def test_the_batch_player_deals_the_decks_given_and_keeps_every_action(rules):
    """Hands played many at once (10 at a time, rows dealt again as hands finish) replay
    to the same results through the pure game, the reasons of drawn hands included."""
    from rummy_env.gin.game import GinRummyState

    gin = get_game("gin")
    rng = np.random.default_rng(3)
    m = 37 if rules == "classic" else 120
    decks = np.array([rng.permutation(52) for _ in range(m)])
    dealers = rng.integers(0, 2, m)
    policies = [agents.make("simple").batch_policy(), agents.make("random").batch_policy()]
    seats = np.array([[k % 2, 1 - k % 2] for k in range(m)])
    keys = rng.integers(0, 2**63, (m, 2), dtype=np.uint64)
    done = [hand for hands in gin.play_batched(rules, decks, dealers, seats, keys, policies, width=10) for hand in hands]
    assert sorted(h.index for h in done) == list(range(m))
    reasons = set()
    for hand in done:
        state = GinRummyState.from_deck(decks[hand.index].tolist(), rules, int(dealers[hand.index]))
        for action in hand.actions:
            state.step(action)
        assert state.result == hand.result
        reasons.add(hand.result.reason)
    expected = {"upcard_draws"} if isinstance(rules, dict) else {"classic": set(), "openspiel": {"wall", "repeated"}}[rules]
    assert expected <= reasons, reasons


def test_the_scalar_showdown_score_equals_the_array_one():
    for rules in (Rules(), Rules(undercut_on_tie=False, big_gin_bonus=0), Rules(gin_bonus=20, undercut_bonus=10)):
        for k in range(0, 30):
            for d in range(0, 100, 3):
                for big in (False, True) if k == 0 else (False,):
                    outcome, points = score_showdown(k, d, rules, big)
                    assert score_one(k, d, rules, big) == (Outcome(int(outcome)), int(points)), (k, d, big, rules)


def test_ppo_runs_large_batches_on_the_callers_threads_and_small_ones_on_one(monkeypatch):
    torch = pytest.importorskip("torch")
    from rummy_env.agents.gin import ppo_actions

    nets = agents.make("ppo").nets
    used = []
    real = torch.set_num_threads
    monkeypatch.setattr(torch, "set_num_threads", lambda n: (used.append(n), real(n)))
    before = torch.get_num_threads()
    for rows in (1, ppo_actions.MANY_ROWS - 1, ppo_actions.MANY_ROWS):
        used.clear()
        mask = np.zeros((rows, 108), dtype=bool)
        mask[:, 0] = mask[:, 1] = True
        ppo_actions._log_probs(nets.net, np.zeros((rows, nets.net.obs_size), dtype=np.float32), mask)
        assert torch.get_num_threads() == before  # restored
        if before > 1:
            assert used == ([] if rows >= ppo_actions.MANY_ROWS else [1, before]), (rows, used)
