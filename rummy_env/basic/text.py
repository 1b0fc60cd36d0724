"""Basic Rummy in words: a move as the other players see it, and a finished hand explained.

For people at the table (``rummy play``, replays). Every Basic Rummy move is public, so
a move is described in full; ``SHORTCUTS`` are the letters typed for the moves at the terminal.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from rummy_env.basic.game import DISCARD, DRAW_STOCK, LAYOFF, MELD, TAKE_DISCARD, action_name

# the letters a person types for the moves (``rummy play``; rummy_env.agents.human reads them):
# ``l 4h 2`` lays 4H off on slot 2
SHORTCUTS = {"d": "draw stock", "t": "take discard", "x": "discard CARD", "m": "meld CARDS",
             "l": "lay off CARD SLOT"}


def describe_move(action: int, aces_high: bool = False) -> str:
    """A move in the third person, e.g. ``'discards 7D'`` or ``'lays off 4H on slot 2'``."""
    if action == DRAW_STOCK:
        return "draws from the stock"
    if action == TAKE_DISCARD:
        return "takes the top discard"
    name = action_name(action, aces_high)
    if DISCARD <= action < MELD:
        return name.replace("discard", "discards", 1)
    if action < LAYOFF:
        return name.replace("meld", "melds", 1)
    return name.replace("lay off", "lays off", 1)


def explain(result: Mapping[str, Any], names: Sequence[str]) -> str:
    """A finished hand (``RummyHandResult.to_dict()``) in words, naming seats by ``names``."""
    if result["winner"] is None:
        why = "the stock ran out once too often" if result["reason"] == "stock" else "too many turns"
        return f"stalemate ({why}): no points"
    winner = names[result["winner"]]
    how = "went rummy (out in one turn: points doubled)" if result["outcome"] == "rummy" else "went out"
    went = how.replace("went", "go" if winner == "you" else "went", 1)
    paid = ", ".join(f"{names[s]} {pen} ({result['hands_left'][s] or '-'})"
                     for s, pen in enumerate(result["penalties"]) if s != result["winner"])
    return f"{winner} {went}{' with a last discard' if result['with_discard'] else ''}: {paid}; " \
           f"{winner} {'score' if winner == 'you' else 'scores'} {result['points']}"
