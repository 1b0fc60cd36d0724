"""The full state vector (``Game.state_vector``, the env's ``state()`` for centralised
critics) is written from a named layout too (``layout.STATE_LAYOUT`` of Gin Rummy and Basic
Rummy): at positions of random hands, each named slice holds what its name says."""

import importlib

import numpy as np
import pytest

from rummy_env.core.cards import NUM_CARDS
from rummy_env.core.game import get_game


def bits(cards) -> np.ndarray:
    out = np.zeros(NUM_CARDS, dtype=np.float32)
    out[list(cards)] = 1.0
    return out


def hand_cards(hand) -> list[int]:
    return [c for c in range(NUM_CARDS) if hand >> c & 1]


@pytest.mark.parametrize("name", ["gin", "basic"])
def test_each_named_slice_of_the_state_vector_holds_what_it_says(name):
    game = get_game(name)
    layout = importlib.import_module(f"rummy_env.{name}.layout")
    assert game.state_size == layout.STATE_SIZE == layout.STATE_LAYOUT.flat_size
    at = layout.STATE_LAYOUT.slices()
    checked = 0
    for n in range(game.min_players, game.max_players + 1):
        rng = np.random.default_rng(n)
        state = game.deal(game.load_rules(), n, seed=rng)
        while True:
            v = game.state_vector(state)
            assert v.shape == (game.state_size,)
            for seat in range(n):
                np.testing.assert_array_equal(v[at[f"hand_{seat}"]], bits(hand_cards(state.hands[seat])))
            np.testing.assert_array_equal(v[at["stock"]], bits(state.stock))
            np.testing.assert_array_equal(v[at["discard_pile"]], bits(state.discard_pile))
            np.testing.assert_array_equal(v[at["discard_top"]], bits(state.discard_pile[-1:]))
            phases = [s for s in layout.STATE_LAYOUT.scalars if s.startswith("phase_")]
            assert [v[at[s]][0] for s in phases] == [float(k == int(state.phase)) for k in range(len(phases))]
            assert v[at[f"to_move_{state.current_player}"]][0] == 1.0
            assert v[layout.STATE_PHASE + int(state.phase)] == 1.0 and v[layout.STATE_TO_MOVE + state.current_player] == 1.0
            if "table" in at:
                np.testing.assert_array_equal(v[at["table"]], bits(hand_cards(state.table_mask)))
            checked += 1
            if state.is_over:
                break
            state.step(int(rng.choice(state.legal_actions())))
    assert checked > 50
