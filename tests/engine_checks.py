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
