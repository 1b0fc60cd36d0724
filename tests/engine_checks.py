"""Checks shared by the tests of engines that load pure states (``LoadsStates``)."""

import numpy as np
import pytest


def check_load_refusals(engine, live, other_size, other_rules, other_game, title: str) -> None:
    """``engine`` (4 rows, 2 players, reset) refuses, each with one line naming what is
    wrong: a row count that is not the states', repeated rows, a row outside the engine, a
    hand that is over (``live`` played to its end), a state of another table size
    (``other_size``), of other rules (``other_rules``) and of another game (``other_game``)."""
    over = live.clone()
    while not over.is_over:
        over.step(over.legal_actions()[-1])
    for rows, states, message in [
        (np.array([0, 1]), [live], "one state per row"),
        (np.array([0, 0]), [live, live], "rows must be distinct"),
        (np.array([4]), [live], "rows must be distinct game indices in 0..3"),
        (np.array([0]), [over], "is a hand that is over"),
        (np.array([0]), [other_size], "this engine's 2 players"),
        (np.array([0]), [other_rules], "this engine's 2 players and rules"),
        (np.array([0]), [other_game], f"a {title} state"),
    ]:
        with pytest.raises(ValueError, match=message):
            engine.load_states(rows, states)


def play_on(engine, rows: np.ndarray, states: list, steps: int, encoding, rng: np.random.Generator,
            choose) -> int:
    """Step the engine's ``rows`` and the pure ``states`` alike for at most ``steps`` steps,
    by ``choose(engine, mask, rng)`` (the engine's actions), comparing every seat's observation
    (``encoding``), the mask, the player to move, the rewards and each hand's result; returns
    the hands that ended. What every engine that loads states is held to, the games' tests
    choosing the moves."""
    live = np.ones(len(states), dtype=bool)
    ended = 0
    for _ in range(steps):
        mask = engine.action_mask()
        for k in np.flatnonzero(live).tolist():
            state, row = states[k], rows[k]
            assert engine.current[row] == state.current_player
            np.testing.assert_array_equal(mask[row], state.legal_mask())
        for seat in range(engine.num_players):
            seen_by = engine.observe(np.full(engine.num_envs, seat))
            for k in np.flatnonzero(live).tolist():
                np.testing.assert_array_equal(seen_by[rows[k]], encoding.encode(states[k].information_set(seat),
                                                                                 states[k].rules))
        actions = choose(engine, mask, rng)
        step = engine.step(actions)
        for k in np.flatnonzero(live).tolist():
            states[k].step(int(actions[rows[k]]))
            assert step.terminated[rows[k]] == states[k].is_over
            if states[k].is_over:
                assert step.results[rows[k]] == states[k].result
                np.testing.assert_array_equal(step.rewards[rows[k]], states[k].result.rewards)
                live[k] = False
                ended += 1
        if not live.any():
            break
    return ended


def world_stepped_on(game, state, rules, rng: np.random.Generator):
    """A world sampled from the mover's information set (``Game.sample_world``), stepped on
    by up to 3 random legal moves: mid-hand positions no deal reached, for loading tests."""
    world = game.sample_world(state.information_set(state.current_player), rules, rng)
    for _ in range(int(rng.integers(0, 4))):
        if not world.is_over:
            world.step(int(rng.choice(world.legal_actions())))
    return world


def check_batched_tournament_results(tmp_path, members: list, game: str, players: int) -> None:
    """A tournament of ``members`` played many hands at once (``batch=auto``: the array
    policies on the game's engine) and one game at a time writes the same results.jsonl."""
    from rummy_env.eval.config import TournamentConfig
    from rummy_env.eval.tournament import run

    def play(batch):
        cfg = TournamentConfig(agents=members, deals=2, seed=4, game=game, players_per_table=players,
                               out=str(tmp_path / batch), batch=batch)
        return run(cfg, progress=False), (tmp_path / batch / "results.jsonl").read_text().splitlines()

    (off, one), (auto, many) = play("off"), play("auto")
    assert off["batched_this_run"] == 0 and auto["batched_this_run"] == auto["played_this_run"] > 0
    assert one == many and len(many) > 1
