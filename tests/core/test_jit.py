"""The compiled (numba) kernels give exactly the numpy solver's and heuristic's numbers,
under every rule option; the heuristic's analysis is the same with and without them."""

import builtins

import numpy as np
import pytest

pytest.importorskip("numba")

from rummy_env.agents.gin import heuristic_jit, heuristic_terms  # noqa: E402
from rummy_env.agents.gin import heuristic_vector as hv  # noqa: E402
from rummy_env.core import melds, melds_jit  # noqa: E402
from rummy_env.core.compiled import UNDECIDED, numba_switched_off  # noqa: E402
from rummy_env.gin import encoding  # noqa: E402
from rummy_env.gin.game import GinRummyState  # noqa: E402
from rummy_env.gin.rules import Rules  # noqa: E402
from rummy_env.gin.vector import VectorGinRummy  # noqa: E402

OPTIONS = [(False, False), (True, False), (False, True), (True, True)]
pytestmark = pytest.mark.skipif(numba_switched_off(), reason="RUMMY_ENV_NO_NUMBA is set: the kernels are off")


def decided_afresh(twin, monkeypatch):
    """What ``twin`` (a ``rummy_env.core.compiled.Compiled``) chooses when it decides again now."""
    monkeypatch.setattr(twin, "chosen", UNDECIDED)
    return twin.get()


def random_hands(rng, n, sizes):
    hands = np.zeros(n, dtype=np.uint64)
    for i in range(n):
        for c in rng.permutation(52)[: rng.choice(sizes)]:
            hands[i] |= np.uint64(1) << np.uint64(c)
    return hands


def set_heavy_hands(rng, n):
    """Hands holding ranks 3 and 4 times (up to 13 cards): every branch of the set choices."""
    hands = np.zeros(n, dtype=np.uint64)
    for i in range(n):
        cards = []
        for rank in rng.choice(13, size=rng.integers(1, 4), replace=False):
            cards += [s * 13 + int(rank) for s in rng.choice(4, size=rng.integers(3, 5), replace=False)]
        rest = [c for c in rng.permutation(52) if c not in cards]
        cards += rest[: max(0, int(rng.integers(1, 14)) - len(cards))]
        for c in cards[:13]:
            hands[i] |= np.uint64(1) << np.uint64(int(c))
    return hands


@pytest.mark.parametrize("aces_high,five_under_ten", OPTIONS)
def test_compiled_solver_equals_the_numpy_solver(aces_high, five_under_ten):
    rng = np.random.default_rng(int(aces_high) * 2 + int(five_under_ten))
    hands = np.concatenate([random_hands(rng, 3000, range(1, 14)), set_heavy_hands(rng, 2000)])
    t = melds._tables(aces_high, five_under_ten)
    for name in ("min_deadwood", "discard_deadwood"):
        got = getattr(melds_jit, name)(hands, aces_high, five_under_ten)
        want = getattr(melds, f"_{name}_numpy")(hands, t)
        assert got.dtype == want.dtype == np.int16
        np.testing.assert_array_equal(got, want, err_msg=name)
    full = hands[np.bitwise_count(hands) > 0][:4900].reshape(-1, 7)  # any shape
    got = melds_jit.best_discard_deadwood(full, aces_high, five_under_ten)
    np.testing.assert_array_equal(got, melds._best_discard_deadwood_numpy(full, t))
    assert got.shape == full.shape
    # the public functions take the compiled path
    opts = {"aces_high": aces_high, "five_under_ten": five_under_ten}
    assert melds._kernels() is melds_jit
    np.testing.assert_array_equal(melds.discard_deadwood(hands[:50].reshape(5, 10), **opts),
                                  melds._discard_deadwood_numpy(hands[:50], t).reshape(5, 10, 52))


@pytest.mark.parametrize("aces_high,five_under_ten", OPTIONS)
def test_compiled_lay_offs_equal_the_numpy_lay_offs(aces_high, five_under_ten):
    rng = np.random.default_rng(10 + int(aces_high) * 2 + int(five_under_ten))
    opts = {"aces_high": aces_high, "five_under_ten": five_under_ten}
    knockers, defenders = [], []
    while len(knockers) < 400:  # 10-card hands built from melds that may knock, a defender from the rest
        cards: set = set()
        for _ in range(rng.integers(2, 4)):
            if rng.random() < 0.5:
                rank = int(rng.integers(13))
                cards |= {s * 13 + rank for s in rng.choice(4, size=int(rng.integers(3, 5)), replace=False)}
            else:
                suit, start = int(rng.integers(4)), int(rng.integers(11))
                cards |= {suit * 13 + r for r in range(start, min(13, start + int(rng.integers(3, 6))))}
        cards |= {int(c) for c in rng.permutation(52)[:4]}
        if len(cards) < 10:
            continue
        k = sum(1 << c for c in list(cards)[:10])
        if 0 < melds.min_deadwood(k, **opts) <= 10:
            rest = [c for c in rng.permutation(52) if not (k >> int(c)) & 1]
            knockers.append(k)
            defenders.append(sum(1 << int(c) for c in rest[:10]))
    k, d = np.array(knockers, dtype=np.uint64), np.array(defenders, dtype=np.uint64)
    kd = melds.min_deadwood(k, **opts)
    got = melds_jit.defender_after_layoffs(k, d, kd, aces_high, five_under_ten)
    want = melds._defender_after_layoffs(k, d, kd, melds._tables(aces_high, five_under_ten), aces_high, five_under_ten)
    np.testing.assert_array_equal(got, want)
    assert (want < melds.min_deadwood(d, **opts)).sum() > 50  # lay-offs happen


def positions(rules, seed, n=96, steps=60):
    """Positions of heuristic games at every stage of a hand."""
    env = VectorGinRummy(n, rules=rules, seed=seed)
    env.reset()
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(steps):
        out.append(hv.positions_of(env, np.arange(n)))
        env.step(hv.heuristic_actions(env, np.arange(n), rng))
    return out


@pytest.mark.parametrize("aces_high,five_under_ten", OPTIONS)
def test_compiled_expected_deadwood_and_take_values_equal_numpy(aces_high, five_under_ten):
    rules = Rules(aces="high" if aces_high else "low", five_under_ten=five_under_ten)
    opts = {"aces_high": aces_high, "five_under_ten": five_under_ten}
    rng = np.random.default_rng(7)
    checked = 0
    for pos in positions(rules, seed=int(aces_high) + 2 * int(five_under_ten)):
        base = pos.hands & ~(np.uint64(1) << rng.integers(0, 52, size=pos.hands.size).astype(np.uint64))
        unseen = pos.unseen & ~base
        unseen[::17] = 0  # nothing unseen: NaN in both
        whole = melds.min_deadwood(base, **opts).astype(np.float64)
        completions = melds.meld_completions(base, aces_high=aces_high)
        np.testing.assert_array_equal(heuristic_jit.mean_over_unseen(base, unseen, completions, whole, aces_high, five_under_ten),
                                      heuristic_terms._mean_over_unseen_numpy(base, unseen, completions, whole, opts))
        drawing = np.flatnonzero((pos.phase != 2) & (pos.top >= 0))
        if drawing.size:
            got = heuristic_jit.take_values(pos.hands[drawing], pos.top[drawing], aces_high, five_under_ten)
            want = heuristic_terms._take_values_numpy(pos.hands[drawing], pos.top[drawing], opts)
            for g, w in zip(got, want):
                np.testing.assert_array_equal(g, w)
                assert g.dtype == w.dtype
            checked += drawing.size
    assert checked > 1000


def test_the_analysis_is_the_same_with_and_without_compiled_kernels(monkeypatch):
    fields = ("take", "after_take", "stock_expected", "expected", "risk", "scores", "knock", "knock_card")
    for rules in ("classic", Rules(aces="high", five_under_ten=True), "openspiel"):
        for pos in positions(rules, seed=11, n=64, steps=40)[::3]:
            compiled = hv.analyse(pos, VectorGinRummy(1, rules=rules).rules)
            monkeypatch.setattr(heuristic_terms.KERNELS, "chosen", None)
            plain = hv.analyse(pos, VectorGinRummy(1, rules=rules).rules)
            monkeypatch.undo()
            assert heuristic_terms._compiled() is heuristic_jit
            for f in fields:
                np.testing.assert_array_equal(getattr(compiled, f), getattr(plain, f), err_msg=f)


def test_the_kernels_can_be_switched_off_and_are_dropped_if_they_fail(monkeypatch):
    assert melds_jit.self_check() == ""
    # decided again with the switch on: the numpy paths, for the solver and the heuristic
    monkeypatch.setattr(heuristic_terms.KERNELS, "chosen", UNDECIDED)
    for value in ("1", "true", "yes"):
        monkeypatch.setenv("RUMMY_ENV_NO_NUMBA", value)
        assert decided_afresh(melds.KERNELS, monkeypatch) is None
    assert melds._kernels() is None and heuristic_terms._compiled() is None
    assert melds.min_deadwood(np.array([0x1FFF], dtype=np.uint64))[0] == 0
    # kernels that disagree with the array operations are not used, with a warning
    monkeypatch.setenv("RUMMY_ENV_NO_NUMBA", "0")
    with monkeypatch.context() as m:
        m.setattr(melds_jit, "self_check", lambda: "they disagree with the array operations")
        with pytest.warns(RuntimeWarning, match="numba kernels are not used .they disagree"):
            assert decided_afresh(melds.KERNELS, monkeypatch) is None
        assert melds._kernels() is None  # decided once: no second warning
    # nor kernels that numba cannot compile or cache (a read-only install, say)
    real_import = builtins.__import__

    def failing_import(name, globals=None, locals=None, fromlist=(), level=0):
        if name == "rummy_env.core" and fromlist and "melds_jit" in fromlist:
            raise RuntimeError("cannot cache function: no locator available")
        return real_import(name, globals, locals, fromlist, level)

    with monkeypatch.context() as m:
        m.setattr(builtins, "__import__", failing_import)
        with pytest.warns(RuntimeWarning, match="RuntimeError: cannot cache function"):
            assert decided_afresh(melds.KERNELS, monkeypatch) is None
    np.testing.assert_array_equal(melds.min_deadwood(np.array([0x1FFF, 0x7], dtype=np.uint64)), [0, 0])
    # the heuristic's kernels likewise
    assert decided_afresh(melds.KERNELS, monkeypatch) is melds_jit
    monkeypatch.setattr(heuristic_terms, "_kernels_agree", lambda jit: False)
    with pytest.warns(RuntimeWarning, match="heuristic's numba kernels are not used"):
        assert decided_afresh(heuristic_terms.KERNELS, monkeypatch) is None
    assert melds._kernels() is melds_jit


@pytest.mark.parametrize("aces_high,five_under_ten", OPTIONS)
def test_compiled_single_hands_equal_the_python_loops(aces_high, five_under_ten):
    """The scalar path (one hand as a Python int, what the game solves at every discard)."""
    rng = np.random.default_rng(20 + int(aces_high) * 2 + int(five_under_ten))
    hands = np.concatenate([random_hands(rng, 1500, range(0, 14)), set_heavy_hands(rng, 1000)])
    t = melds._tables(aces_high, five_under_ten)
    for h in map(int, hands):
        assert melds_jit.discard_deadwood_one(h, t) == melds._python_discard_deadwood(h, t)
        assert melds_jit.min_deadwood_one(h, t) == melds._python_min_deadwood(h, t)


def game_positions(rules, seed, games=12):
    """Both seats' information sets at every decision of random hands, and at their ends."""
    rng = np.random.default_rng(seed)
    out = []
    for g in range(games):
        state = GinRummyState.new_hand(rules=rules, seed=seed * 100 + g, dealer=g % 2)
        while True:
            out += [state.information_set(0), state.information_set(1)]
            if state.is_over:
                break
            legal = state.legal_actions()
            knocks = [a for a in legal if a >= 55]  # knock when allowed half the time: showdowns too
            state.step(knocks[0] if knocks and rng.random() < 0.5 else legal[rng.integers(len(legal))])
    return out


@pytest.mark.parametrize("aces_high,five_under_ten", OPTIONS)
def test_compiled_observation_equals_the_python_encoder(aces_high, five_under_ten):
    from rummy_env.gin import encoding_jit

    rules = Rules(aces="high" if aces_high else "low", five_under_ten=five_under_ten, target_score=150,
                  knock_limit=10 - 3 * int(aces_high))
    for scores in (None, (37, 120)):
        for info in game_positions(rules, seed=int(aces_high) + 2 * int(five_under_ten)):
            got = encoding_jit.encode_flat(info, rules, scores)
            want = encoding._python_encode_flat(info, rules, scores)
            assert got.dtype == want.dtype == np.float32
            np.testing.assert_array_equal(got, want)
    assert encoding._encode_flat.get() is encoding_jit.encode_flat  # and the env's encoder uses it
    info = game_positions(rules, seed=5, games=1)[7]
    np.testing.assert_array_equal(encoding.encode(info, rules, "planes", (37, 120)),
                                  encoding.LAYOUT.planes(encoding._python_encode_flat(info, rules, (37, 120))))


def test_the_compiled_observation_is_dropped_if_it_disagrees_or_is_switched_off(monkeypatch):
    from rummy_env.gin import encoding_jit

    python = encoding._python_encode_flat
    monkeypatch.setattr(encoding_jit, "encode_flat", lambda info, rules, scores: np.zeros(encoding.FLAT_SIZE, np.float32))
    with pytest.warns(RuntimeWarning, match="compiled observation encoder is not used .it disagrees"):
        assert decided_afresh(encoding._encode_flat, monkeypatch) is python
    monkeypatch.undo()
    monkeypatch.setattr(melds.KERNELS, "chosen", None)  # RUMMY_ENV_NO_NUMBA=1, or numba missing
    assert decided_afresh(encoding._encode_flat, monkeypatch) is python


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_compiled_basic_rummy_observation_equals_the_python_encoder(num_players):
    from rummy_env.basic import encoding as basic_encoding
    from rummy_env.basic import encoding_jit as basic_jit
    from rummy_env.basic.game import BasicRummyState
    from rummy_env.basic.rules import BasicRummyRules

    checked = 0
    for rules in (BasicRummyRules(target_score=250), BasicRummyRules(aces="high", stock_turnovers=2, target_score=0)):
        rng = np.random.default_rng(num_players)
        for g in range(6):
            state = BasicRummyState.new_hand(num_players, rules=rules, seed=g, dealer=g % num_players)
            scores = tuple(int(x) for x in rng.integers(0, 300, num_players))
            while True:
                for seat in range(num_players):
                    info = state.information_set(seat)
                    for s in (None, scores):
                        got = basic_jit.encode_flat(info, rules, s)
                        np.testing.assert_array_equal(got, basic_encoding._python_encode_flat(info, rules, s))
                        checked += 1
                if state.is_over:
                    break
                legal = state.legal_actions()
                plays = [a for a in legal if a >= 54]  # meld and lay off (ids 54 on) when possible: table slices too
                state.step(plays[-1] if plays and rng.random() < 0.7 else legal[rng.integers(len(legal))])
    assert checked > 1000
    assert basic_encoding._encode_flat.get() is basic_jit.encode_flat


def test_the_compiled_basic_rummy_observation_is_dropped_if_it_disagrees(monkeypatch):
    from rummy_env.basic import encoding as basic_encoding
    from rummy_env.basic import encoding_jit as basic_jit

    python = basic_encoding._python_encode_flat
    monkeypatch.setattr(basic_jit, "encode_flat", lambda *args: np.ones(basic_encoding.FLAT_SIZE, np.float32))
    with pytest.warns(RuntimeWarning, match="compiled Basic Rummy observation encoder is not used"):
        assert decided_afresh(basic_encoding._encode_flat, monkeypatch) is python
    monkeypatch.undo()
    monkeypatch.setattr(melds.KERNELS, "chosen", None)
    assert decided_afresh(basic_encoding._encode_flat, monkeypatch) is python
