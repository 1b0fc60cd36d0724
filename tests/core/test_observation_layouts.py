"""Each game's observation layout is written once, in its ``layout`` module (issue: the house
in order): the encoders re-export it, and the positions the writers and networks take from
it (a card slice's number, a scalar's index among the scalars) are where those names lie in
the flat vector, so no writer restates an offset that could drift from the others."""

import importlib

import pytest

from rummy_env.core.cards import NUM_CARDS


@pytest.mark.parametrize("game", ["gin", "basic"])
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
