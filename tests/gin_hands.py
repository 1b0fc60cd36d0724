"""Scripted Gin Rummy positions and the hidden-card redeal that several test folders share
(the agents', the opponent model's, the OpenSpiel bridge's and the no-leak tests)."""

import numpy as np

from rummy_env.gin.game import GinRummyState

# ten-card hands used by the agents' and the opponent model's scripted positions
P0 = "2C 3C 9C KD QH 4S 6S 8S JS 7H"
P1 = "AD 3D 5D 7D 9D JD KC AH 5H 9H"
P1B = "AD 3D 5D 7D JD KC AH 5H 9C 2S"


def state_after(non_dealer: str, dealer: str, upcard: str, stock: str, actions=()) -> GinRummyState:
    """The hand dealt with these cards on top of the stock, after ``actions``."""
    s = GinRummyState.from_hands(non_dealer, dealer, upcard, stock)
    for a in actions:
        s.step(a)
    return s


def redeal_hidden(s: GinRummyState, player: int, rng: np.random.Generator) -> GinRummyState:
    """The cards ``player`` cannot see dealt otherwise (the state's own ``redeal_hidden``)."""
    return s.redeal_hidden(player, rng)
