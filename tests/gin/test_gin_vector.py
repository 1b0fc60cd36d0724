"""The vector engine against the pure game: same deals, same actions, same everything."""

import numpy as np
import pytest

from rummy_env.gin import encoding as enc
from rummy_env.core import melds
from rummy_env.core.cards import mask_to_cards, parse_card
from rummy_env.gin.game import (
    BIG_GIN, DISCARD, DRAW_STOCK, KNOCK, PASS, TAKE_DISCARD, GinRummyState, IllegalActionError, Phase,
)
from rummy_env.gin.rules import Rules
from rummy_env.gin.vector import OUTCOMES, VectorGinRummy, compiled_engine

# both engines: the compiled step (numba) and the array operations it must equal
ENGINES = [pytest.param("compiled", marks=pytest.mark.skipif(compiled_engine() is None, reason="no compiled engine here")),
           "arrays"]

CONFIGS = [
    ("classic", "flat", "points"),
    ("eaai", "planes", "scaled"),
    ("openspiel", "flat", "win_loss"),
    (Rules(oklahoma=True, aces="high", five_under_ten=True, first_upcard_pass=False, max_turns=30), "flat", "points"),
    ({"wall_knock": True}, "flat", "points"),
    ({"discard_taken_card": True}, "planes", "points"),
    ({"max_upcard_draws": 4}, "flat", "scaled"),
]


def mirror(v: VectorGinRummy, i: int) -> GinRummyState:
    return GinRummyState.from_deck(v.decks[i].tolist(), v.rules, int(v.dealer[i]))


def expected_reward(points: float, mode: str) -> float:
    return {"points": points, "scaled": points / 100.0, "win_loss": float(np.sign(points))}[mode]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("rules, encoding, reward", CONFIGS)
def test_vector_engine_equals_the_pure_game(rules, encoding, reward, engine):
    n, steps = 24, 400
    v = VectorGinRummy(n, rules=rules, encoding=encoding, reward=reward, seed=1, engine=engine)
    res = v.reset()
    games = [mirror(v, i) for i in range(n)]
    rng = np.random.default_rng(2)
    outcomes = set()
    for _ in range(steps):
        actions = np.zeros(n, dtype=np.int64)
        for i, g in enumerate(games):
            assert res.player[i] == g.current_player
            np.testing.assert_array_equal(res.action_mask[i], g.legal_mask())
            expected = enc.encode(g.information_set(g.current_player), g.rules, encoding)
            np.testing.assert_array_equal(res.observation[i], expected)
            legal = np.flatnonzero(res.action_mask[i])
            enders = legal[legal >= KNOCK]
            actions[i] = enders[-1] if enders.size and rng.random() < 0.6 else rng.choice(legal)
        res = v.step(actions)
        for i, g in enumerate(games):
            g.step(int(actions[i]))
            assert res.terminated[i] == g.is_over
            if not g.is_over:
                assert res.outcome[i] == -1 and not res.rewards[i].any()
                continue
            r = g.result
            outcomes.add(r.outcome)
            assert OUTCOMES[res.outcome[i]] == r.outcome
            assert res.winner[i] == (-1 if r.winner is None else r.winner) and res.points[i] == r.points
            assert res.rewards[i].tolist() == [np.float32(expected_reward(x, reward)) for x in r.rewards]
            if r.outcome != "draw":
                assert (res.knocker[i], res.knocker_deadwood[i], res.defender_deadwood[i]) == (
                    r.knocker, r.knocker_deadwood, r.defender_deadwood)
            games[i] = mirror(v, i)  # dealt again by the engine
    assert "draw" in outcomes and outcomes & {"knock", "gin", "undercut"}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("rules, expect", [
    ("openspiel", {"wall", "wall knock", "repeated", "upcard_draws"}),
    ({"preset": "openspiel", "max_upcard_draws": 6, "knock_limit": 20}, {"repeated", "upcard_draws", "showdown"}),
    ({"wall_knock": True, "first_upcard_pass": False}, {"wall", "wall knock"})])
def test_openspiels_rules_through_the_vector_engine(rules, expect, engine):
    """A policy that reaches what the openspiel preset adds: the wall (takes to knock and
    passes), cards thrown back (twice in a row: drawn), many upcard draws; the engine
    equals the pure game at every step."""
    n = 32
    v = VectorGinRummy(n, rules=rules, seed=5, engine=engine)
    res = v.reset()
    games = [mirror(v, i) for i in range(n)]
    rng = np.random.default_rng(6)
    ends: dict[str, int] = {}
    for _ in range(500):
        actions = np.zeros(n, dtype=np.int64)
        for i, g in enumerate(games):
            np.testing.assert_array_equal(res.action_mask[i], g.legal_mask())
            np.testing.assert_array_equal(res.observation[i], enc.encode(g.information_set(g.current_player), g.rules))
            legal = g.legal_actions()
            knocks = [a for a in legal if a >= KNOCK]
            if TAKE_DISCARD in legal and rng.random() < (0.7 if g.at_wall else 0.15):
                actions[i] = TAKE_DISCARD
            elif knocks and (len(g.stock) <= 2 or rng.random() < 0.03):
                actions[i] = knocks[-1]
            elif g.taken_card is not None and DISCARD + g.taken_card in legal and rng.random() < 0.3:
                actions[i] = DISCARD + g.taken_card
            else:  # mostly the card leaving the least deadwood, never the card just taken
                plain = [a for a in legal if a < KNOCK and a - DISCARD != g.taken_card]
                after = melds.discard_deadwood(g.hands[g.current_player]) if g.phase == Phase.DISCARD else None
                actions[i] = min(plain, key=lambda a: after[a - DISCARD]) if after is not None and rng.random() < 0.7 \
                    else rng.choice(plain)
        res = v.step(actions)
        for i, g in enumerate(games):
            wall_take = g.at_wall and g.phase == Phase.DISCARD
            g.step(int(actions[i]))
            assert res.terminated[i] == g.is_over
            if g.is_over:
                r = g.result
                assert OUTCOMES[res.outcome[i]] == r.outcome and res.points[i] == r.points
                assert res.rewards[i].tolist() == list(r.rewards)
                end = "wall knock" if wall_take else r.reason or "showdown"
                ends[end] = ends.get(end, 0) + 1
                games[i] = mirror(v, i)
    assert expect <= set(ends), ends


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("rules", [c[0] for c in CONFIGS])
def test_loaded_positions_play_on_as_in_the_pure_game(rules, engine):
    rng = np.random.default_rng(4)
    n = 16
    games = []
    for i in range(n):  # positions some way into a hand: a few random moves from a deal
        g = GinRummyState.new_hand(rules, seed=i, dealer=i % 2)
        for _ in range(int(rng.integers(0, 40))):
            legal = [a for a in g.legal_actions() if a < KNOCK]  # keep the hand going
            if g.is_over or not legal:
                break
            g.step(int(rng.choice(legal)))
        if g.is_over:
            g = GinRummyState.new_hand(rules, seed=100 + i)
        games.append(g)
    v = VectorGinRummy(n + 2, rules=rules, seed=0, engine=engine)
    v.reset()
    rows = np.arange(1, n + 1)
    v.load_states(rows, games)
    done = np.zeros(n + 2, dtype=bool)
    done[[0, n + 1]] = True  # rows not loaded stay out of it
    while not done.all():
        live = ~done
        obs, mask = v.observe(), v.action_mask()
        actions = np.zeros(n + 2, dtype=np.int64)
        for i, g in zip(rows, games):
            if done[i]:
                continue
            assert v.current[i] == g.current_player
            np.testing.assert_array_equal(mask[i], g.legal_mask())
            np.testing.assert_array_equal(obs[i], enc.encode(g.information_set(g.current_player), g.rules))
            actions[i] = rng.choice(g.legal_actions())
        res = v.step(actions, active=live)
        for i, g in zip(rows, games):
            if done[i]:
                continue
            g.step(int(actions[i]))
            assert res.terminated[i] == g.is_over
            if g.is_over:
                assert res.rewards[i].tolist() == list(g.result.rewards)
                done[i] = True
    with pytest.raises(ValueError, match="finished hand"):
        v.load_states(np.array([0]), [games[0]])
    with pytest.raises(ValueError, match="rules"):
        v.load_states(np.array([0]), [GinRummyState.new_hand(Rules(knock_limit=5), seed=0)])
    with pytest.raises(ValueError, match="distinct"):
        v.load_states(np.array([0, 0]), games[:2])


@pytest.mark.parametrize("engine", ENGINES)
def test_big_gin_through_the_vector_engine(engine):
    # player_0 draws 9C: AC-4C, 5D-8D and 9C 9H 9S meld all 11 cards.
    s = GinRummyState.from_hands("AC 2C 3C 4C 5D 6D 7D 8D 9H 9S", "KC QD JH TS 8S 6S 4S 2S 2D 3H", "KH", "9C")
    v = VectorGinRummy(2, seed=0, engine=engine)
    res = v.reset(decks=np.array([s.deck, s.deck]), dealers=np.array([1, 1]))
    for a in (PASS, PASS, DRAW_STOCK):
        res = v.step(np.array([a, a]))
    assert res.action_mask[0, BIG_GIN] == 1 == s.rules.big_gin
    res = v.step(np.array([BIG_GIN, KNOCK + parse_card("4C")]))  # Big Gin; Gin with 4C face down
    assert OUTCOMES[res.outcome[0]] == "big_gin" and OUTCOMES[res.outcome[1]] == "gin"
    d = melds.min_deadwood(s.hands[1])
    assert res.points[0] == d + 31 and res.points[1] == d + 25
    assert res.rewards[0].tolist() == [d + 31, -(d + 31)]


def test_same_seed_same_games_and_explicit_decks():
    a, b = VectorGinRummy(8, seed=5), VectorGinRummy(8, seed=5)
    ra, rb = a.reset(), b.reset()
    rng = np.random.default_rng(0)
    for _ in range(150):
        np.testing.assert_array_equal(ra.observation, rb.observation)
        acts = (rng.random(ra.action_mask.shape) * ra.action_mask).argmax(axis=1)
        ra, rb = a.step(acts), b.step(acts)
    assert (a.decks == b.decks).all()


def test_inactive_games_do_not_move():
    v = VectorGinRummy(4, seed=0)
    res = v.reset()
    before = v.hands.copy(), v.phase.copy(), res.observation.copy()
    active = np.array([True, False, True, False])
    res = v.step(np.full(4, PASS), active=active)
    assert (v.hands == before[0]).all()
    assert (v.phase[~active] == before[1][~active]).all()
    np.testing.assert_array_equal(res.observation[~active], before[2][~active])
    assert (res.player[active] != v.dealer[active]).sum() == 0  # the offer passed to the dealer


@pytest.mark.parametrize("engine", ENGINES)
def test_errors_name_the_problem(engine):
    v = VectorGinRummy(3, seed=0, engine=engine)
    v.reset()
    with pytest.raises(IllegalActionError, match=r"game 0: action 0, legal \[1, 2\]"):
        v.step(np.array([DRAW_STOCK, PASS, PASS]))
    with pytest.raises(ValueError, match="shape"):
        v.step(np.array([PASS, PASS]))
    with pytest.raises(ValueError, match="permutation"):
        v.reset(decks=np.zeros((3, 52), dtype=int))
    with pytest.raises(ValueError, match="num_envs"):
        VectorGinRummy(0)
    with pytest.raises(ValueError, match="reward"):
        VectorGinRummy(2, reward="money")
    with pytest.raises(ValueError, match=r"engine must be one of \('auto', 'compiled', 'arrays'\), got 'fast'"):
        VectorGinRummy(2, engine="fast")
    bare = VectorGinRummy(2, encoding=None, seed=0)  # no observations: for callers reading the arrays
    assert bare.reset().observation is None and bare.step(np.array([PASS, PASS])).observation is None
    with pytest.raises(ValueError, match="encoding=None"):
        bare.observe()


@pytest.mark.usefixtures("solver_backend")
def test_showdown_deadwood_equals_the_game_showdown(rng):
    """The batch showdown against the single-hand solver the game uses, on many deals."""
    for opts in ({}, {"aces_high": True}, {"five_under_ten": True}):
        knockers, defenders = [], []
        while len(knockers) < 400:
            cards = rng.permutation(52)[:20].tolist()
            k = sum(1 << c for c in cards[:10])
            if melds.min_deadwood(k, **opts) <= 10 or rng.random() < 0.1:
                knockers.append(k)
                defenders.append(sum(1 << c for c in cards[10:]))
        kd, dd = melds.showdown_deadwood(np.array(knockers, dtype=np.uint64), np.array(defenders, dtype=np.uint64), **opts)
        for k, d, got_k, got_d in zip(knockers, defenders, kd, dd):
            want_k = melds.min_deadwood(k, **opts)
            if want_k == 0:
                want_d = melds.min_deadwood(d, **opts)
            else:
                want_d = max(melds.best_layoff(a.melds, d, **opts).arrangement.deadwood
                             for a in melds.arrangements(k, **opts))
            assert (got_k, got_d) == (want_k, want_d), (mask_to_cards(k), mask_to_cards(d))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("encoding", ["flat", "planes"])
def test_observations_written_into_a_given_array(engine, encoding):
    """``observe(out=...)`` writes the same observations as ``observe()`` into ``out`` (a
    view into a wider array too, as the ppo agent passes), for the player to move and for
    given players; a wrong dtype or shape is refused naming what is expected."""
    v = VectorGinRummy(5, seed=3, engine=engine, encoding=encoding)
    v.reset()
    rng = np.random.default_rng(0)
    for _ in range(12):  # into the draws and discards
        mask = v.action_mask()
        v.step(np.array([rng.choice(np.flatnonzero(row)) for row in mask]))
    shape = (5, *enc.ENCODINGS[encoding].shape())
    wide = np.full((5, shape[1] + 7, *shape[2:]), -1.0, dtype=np.float32)
    into = wide[:, : shape[1]]
    assert v.observe(out=into) is into
    np.testing.assert_array_equal(into, v.observe())
    assert (wide[:, shape[1]:] == -1.0).all()  # nothing written past the observations
    players = np.array([0, 1, 0, 1, 1])
    np.testing.assert_array_equal(v.observe(players, out=np.empty(shape, np.float32)), v.observe(players))
    with pytest.raises(ValueError, match=r"out must be float32 of shape"):
        v.observe(out=np.empty(shape, np.float64))
    with pytest.raises(ValueError, match=r"out must be float32 of shape"):
        v.observe(out=np.empty((4, *shape[1:]), np.float32))
