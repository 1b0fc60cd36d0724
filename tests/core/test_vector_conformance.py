"""Every registered vector engine against its pure game, by registration
(``rummy_env.core.vector``): the same deals and the same moves give, at every step and in
every game, the same player to move, legal actions, observation (of the mover and of any
other seat, in every encoding with a batch writer) and, when a hand ends, the same rewards.
A game that registers an engine gets these checks without a line added here, and an engine
that loads pure states into its rows (``LoadsStates``) plays on from them as the pure game."""

import numpy as np
import pytest

from rummy_env.core.game import IllegalActionError, games, get_game
from rummy_env.core.vector import LoadsStates, VectorEngine, VectorStep
from rummy_env.core.vector_states import StatesEngine

# every game's engine (its own, or the pure hands in a loop) and, where it has its own, the loop too
KINDS = {name: ("own", "states") if get_game(name).vector_module else ("states",) for name in games()}
VECTOR_CASES = [(name, n, kind) for name in games() for kind in KINDS[name]
                for n in range(get_game(name).min_players, get_game(name).max_players + 1)]
VECTOR_IDS = [f"{name}-{n}p-{kind}" for name, n, kind in VECTOR_CASES]
BATCH = 12


def make_engine(game, kind: str, num_envs: int, n: int, **options):
    return game.vector(num_envs, n, **options) if kind == "own" else StatesEngine(game, num_envs, n, **options)


def batch_encodings(game) -> list[str]:
    return [name for name, e in game.encodings.items() if callable(getattr(e, "encode_batch", None))]


def play_against_pure(game, n: int, preset: str, encoding: str, seed: int, kind: str = "own",
                      max_steps: int = 3000) -> int:
    """Deal ``BATCH`` hands to the engine and to the pure game from the same deal orders,
    play random legal moves in both until every hand has ended once, comparing everything
    at every step; returns how many hands ended with points won (rewards not all 0)."""
    rules = game.load_rules(preset)
    rng = np.random.default_rng(seed)
    size = game.deck_size_of(rules)
    decks = np.stack([rng.permutation(size) for _ in range(BATCH)])
    dealers = rng.integers(0, n, size=BATCH)
    engine = make_engine(game, kind, BATCH, n, rules=rules, encoding=encoding, seed=seed)
    assert isinstance(engine, VectorEngine)
    res = engine.reset(decks=decks, dealers=dealers)
    assert isinstance(res, VectorStep)
    states = [game.deal(rules, n, deck=decks[i].tolist(), dealer=int(dealers[i])) for i in range(BATCH)]
    coder = game.encoding(encoding)
    live = np.ones(BATCH, dtype=bool)
    ended = 0
    for step in range(max_steps):
        if not live.any():
            break
        if step == 5:  # two games dealt anew mid-way, from explicit deals: the others play on
            rows = np.array([1, BATCH - 2])
            fresh = np.stack([rng.permutation(size) for _ in rows])
            fresh_dealers = rng.integers(0, n, size=rows.size)
            engine.deal_rows(rows, fresh, fresh_dealers)
            for row, deck, dealer in zip(rows, fresh, fresh_dealers):
                states[row] = game.deal(rules, n, deck=deck.tolist(), dealer=int(dealer))
                live[row] = True
            res = res._replace(player=engine.current.copy(), observation=engine.observe(),
                               action_mask=engine.action_mask().copy())
        others = rng.integers(0, n, size=BATCH)
        seen = engine.observe(players=others)
        actions = engine.random_actions(rng)
        # half the moves the highest legal id instead (in Gin Rummy a knock): random play
        # alone ends most hands without a winner, and the rewards of a won hand are checked
        last = engine.action_mask().shape[1] - 1 - np.argmax(engine.action_mask()[:, ::-1] != 0, axis=1)
        actions = np.where(rng.random(BATCH) < 0.5, last, actions)
        for i in np.flatnonzero(live):
            s = states[i]
            assert res.player[i] == s.current_player, f"game {i}: player to move"
            np.testing.assert_array_equal(res.action_mask[i].astype(bool), s.legal_mask().astype(bool),
                                          err_msg=f"game {i}: legal actions")
            np.testing.assert_array_equal(res.observation[i], coder.encode(s.information_set(s.current_player), rules),
                                          err_msg=f"game {i}: the mover's observation")
            np.testing.assert_array_equal(seen[i], coder.encode(s.information_set(int(others[i])), rules),
                                          err_msg=f"game {i}: seat {others[i]}'s observation")
            assert res.action_mask[i, actions[i]], "random_actions must pick legal moves"
        res = engine.step(actions)
        for i in np.flatnonzero(live):
            s = states[i]
            s.step(int(actions[i]))
            assert bool(res.terminated[i]) == s.is_over, f"game {i}: whether the hand ended"
            if s.is_over:
                np.testing.assert_array_equal(res.rewards[i], np.asarray(s.result.rewards, dtype=res.rewards.dtype),
                                              err_msg=f"game {i}: the hand's rewards")
                live[i] = False
                ended += bool(np.any(res.rewards[i]))
            else:
                assert not res.rewards[i].any(), f"game {i}: a reward before the hand ended"
    assert not live.any(), f"{live.sum()} hands still running after {max_steps} steps"
    return ended


@pytest.mark.parametrize("name, n, kind", VECTOR_CASES, ids=VECTOR_IDS)
def test_vector_engine_plays_as_the_pure_game(name, n, kind):
    game = get_game(name)
    won = 0
    # a game's own engine under every preset and encoding; the loop over pure hands (the
    # rules themselves, plus the engine's bookkeeping) under the default ones
    presets = sorted(game.presets) if kind == "own" else [game.default_preset]
    encodings = batch_encodings(game) if kind == "own" else ["flat"]
    for k, preset in enumerate(presets):
        for encoding in encodings:
            won += play_against_pure(game, n, preset, encoding, seed=10 * k + n, kind=kind)
    for more in range(4):  # more deals until enough hands were won to have checked their rewards
        if won >= BATCH // 2:
            break
        won += play_against_pure(game, n, game.default_preset, "flat", seed=100 + more, kind=kind)
    assert won >= BATCH // 2, f"only {won} hands were won: too few to check the rewards"


@pytest.mark.parametrize("name, kind", [(name, kind) for name in games() for kind in KINDS[name]])
def test_vector_engine_errors_name_what_is_allowed(name, kind):
    game = get_game(name)
    with pytest.raises(ValueError, match="flat"):
        make_engine(game, kind, 4, game.min_players, encoding="no-such-encoding")
    with pytest.raises(ValueError, match="players"):
        game.vector(4, game.max_players + 1)
    engine = make_engine(game, kind, 4, game.min_players, encoding="flat")
    engine.reset()
    with pytest.raises(ValueError, match="out must be float32"):
        engine.observe(out=np.zeros((3, 1), dtype=np.float32))


@pytest.mark.parametrize("name, kind", [(name, kind) for name in games() for kind in KINDS[name]])
def test_an_illegal_action_raises_naming_the_game_and_changes_nothing(name, kind):
    game = get_game(name)
    engine = make_engine(game, kind, 6, game.max_players, seed=3)
    res = engine.reset()
    rng = np.random.default_rng(0)
    for _ in range(7):
        res = engine.step(engine.random_actions(rng))
    actions = engine.random_actions(rng)
    actions[4] = int(np.flatnonzero(engine.action_mask()[4] == 0)[0])
    before = (engine.current.copy(), engine.observe().copy(), engine.action_mask().copy())
    with pytest.raises(IllegalActionError, match="game 4"):
        engine.step(actions)
    after = (engine.current, engine.observe(), engine.action_mask())
    for x, y in zip(before, after):
        np.testing.assert_array_equal(x, y)
    engine.step(engine.random_actions(rng))  # and it plays on


def test_an_encoding_with_a_batch_writer_goes_into_the_engine():
    """A user's encoding with ``encode_batch`` is written by the engine; one without is
    refused by name."""
    game = get_game("gin")

    class HandOnly:
        name = "hand-only"

        def shape(self, rules=None):
            return (52,)

        def high(self, rules):
            return np.ones(52, dtype=np.float32)

        def encode(self, info, rules, scores=None):
            return game.encoding("flat").encode(info, rules, scores)[:52]

    class HandOnlyBatched(HandOnly):
        def encode_batch(self, engine, players=None, out=None):
            flat = engine.observe_flat(players)[:, :52]
            if out is None:
                return flat.copy()
            out[...] = flat
            return out

    with pytest.raises(ValueError, match="'hand-only' has none"):
        game.vector(4, encoding=HandOnly())
    engine = game.vector(6, encoding=HandOnlyBatched(), seed=1)
    res = engine.reset()
    assert res.observation.shape == (6, 52)
    np.testing.assert_array_equal(res.observation, engine.observe_flat()[:, :52])


def test_the_states_engine_deals_and_redeals_from_its_seed():
    """Two loops over the pure hands seeded alike play the same games; a finished hand is
    dealt again at once, its result kept in the step."""
    game = get_game("basic")
    a, b = (StatesEngine(game, 5, 3, seed=4) for _ in range(2))
    ra, rb = a.reset(), b.reset()
    rng_a, rng_b = np.random.default_rng(1), np.random.default_rng(1)
    finished = 0
    for _ in range(400):
        np.testing.assert_array_equal(ra.observation, rb.observation)
        ra, rb = a.step(a.random_actions(rng_a)), b.step(b.random_actions(rng_b))
        for i in np.flatnonzero(ra.terminated):
            finished += 1
            assert ra.results[i].rewards == tuple(ra.rewards[i]) and not a.states[i].actions
    assert finished > 0
    with pytest.raises(ValueError, match="game 0"):
        a.step(np.flatnonzero(a.action_mask()[0] == 0)[:1].repeat(5))
    with pytest.raises(ValueError, match=r"decks must have shape \(5, 52\)"):
        a.reset(decks=np.zeros((5, 3), dtype=int))


LOAD_CASES = [(name, n) for name in games() if get_game(name).vector_module
              for n in sorted({get_game(name).min_players, get_game(name).max_players})]


@pytest.mark.parametrize("name, n", LOAD_CASES, ids=[f"{name}-{n}p" for name, n in LOAD_CASES])
def test_an_engine_that_loads_states_plays_on_from_them_as_the_pure_game(name, n):
    """An engine that takes the game's pure states into its rows (``LoadsStates``: what the
    search's playouts on the engine need) plays on from each as that state does: mid-hand
    states after random moves and worlds sampled from an information set, in every row in a
    shuffled order, then random legal moves to each hand's end with the same player to
    move, legal actions, observations and rewards."""
    game = get_game(name)
    rules = game.load_rules(None)
    engine = game.vector(BATCH, n, rules=rules, encoding="flat", seed=0)
    if not isinstance(engine, LoadsStates):
        pytest.skip(f"{game.title}'s engine here does not load states")
    engine.reset()
    rng = np.random.default_rng(n)
    states = []
    while len(states) < BATCH:
        state = game.deal(rules, n, seed=int(rng.integers(1 << 30)))
        for _ in range(int(rng.integers(0, 150))):
            if state.is_over:
                break
            state.step(int(rng.choice(state.legal_actions())))
        if state.is_over:
            continue
        if len(states) % 2:  # a world as the search samples it from the mover's information set
            state = game.sample_world(state.information_set(state.current_player), rules, rng)
        states.append(state)
    rows = rng.permutation(BATCH)
    engine.load_states(rows, states)
    coder = game.encoding("flat")
    live = {int(r): s for r, s in zip(rows, states)}
    for _ in range(3000):
        if not live:
            break
        mask = engine.action_mask()
        obs = engine.observe()
        actions = np.argmax(mask, axis=1)  # the rows whose hand ended play on, unchecked
        for r, s in live.items():
            assert engine.current[r] == s.current_player, f"row {r}: player to move"
            np.testing.assert_array_equal(mask[r].astype(bool), s.legal_mask().astype(bool), err_msg=f"row {r}: legal")
            np.testing.assert_array_equal(obs[r], coder.encode(s.information_set(s.current_player), rules),
                                          err_msg=f"row {r}: the mover's observation")
            actions[r] = rng.choice(s.legal_actions())
        step = engine.step(actions)
        for r in list(live):
            s = live[r]
            s.step(int(actions[r]))
            assert bool(step.terminated[r]) == s.is_over, f"row {r}: whether the hand ended"
            if s.is_over:
                np.testing.assert_array_equal(step.rewards[r], np.asarray(s.result.rewards, dtype=step.rewards.dtype))
                del live[r]
    assert not live, f"{len(live)} hands still running"
