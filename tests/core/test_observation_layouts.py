"""Each game's observation layout is written once, in its ``layout`` module (issue: the house
in order): the encoders re-export it, and the positions the writers and networks take from
it (a card slice's number, a scalar's index among the scalars) are where those names lie in
the flat vector, so no writer restates an offset that could drift from the others."""

import importlib

import pytest

from rummy_env.core.cards import NUM_CARDS


@pytest.mark.parametrize("game", ["gin", "basic", "romme"])
def test_the_writers_positions_are_the_named_slices_of_the_one_layout(game):
    layout = importlib.import_module(f"rummy_env.{game}.layout")
    encoding = importlib.import_module(f"rummy_env.{game}.encoding")
    assert encoding.LAYOUT is layout.LAYOUT and encoding.FLAT_SIZE == layout.FLAT_SIZE == layout.LAYOUT.flat_size
    at = layout.LAYOUT.slices()
    assert layout.SCALARS_AT == at[layout.SCALARS[0]].start
    assert at[layout.SCALARS[layout.PHASE]].start == layout.SCALARS_AT + layout.PHASE
    named = [name for name in (*layout.CARD_SLICES, *layout.SCALARS) if hasattr(layout, name.upper())]
    for name in named:
        index = getattr(layout, name.upper())
        start = index * NUM_CARDS if name in layout.CARD_SLICES else layout.SCALARS_AT + index
        assert at[name].start == start, name
    assert len(named) >= 14  # the positions the writers use are checked, not a handful


def test_rommes_state_vector_rows_are_named_in_its_layout():
    """Rommé's full state vector (``encoding.state_vector``) is rows of 53 kind counts named
    by ``layout.STATE_ROWS``, then the phase and the seat to move: each hand lies in its row."""
    import numpy as np

    from rummy_env.romme import encoding, layout
    from rummy_env.romme.cards import NUM_KINDS
    from rummy_env.romme.game import RommeState

    state = RommeState.new_hand(3, seed=1)
    vector = encoding.state_vector(state)
    assert vector.shape == (layout.STATE_SIZE,) and layout.STATE_SIZE == layout.STATE_TO_MOVE + 6
    rows = vector[:layout.STATE_PHASE].reshape(len(layout.STATE_ROWS), NUM_KINDS)
    for seat in range(3):
        want = state.counts(seat) / np.array([2.0] * 52 + [6.0])
        np.testing.assert_allclose(rows[layout.STATE_ROWS.index(f"hand_{seat}")], want)
    assert vector[layout.STATE_PHASE + int(state.phase)] == 1
    assert vector[layout.STATE_TO_MOVE + state.current_player] == 1
