"""Rommé in words: a move as the other players see it, and a finished hand explained.

For people at the table (``rummy play``, replays). Every Rommé move is public (a stock
draw shows no card, and its action names none; the pending meld is built in the open), so
a move is described in full.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from rummy_env.core.cards import NUM_CARDS
from rummy_env.romme.cards import kind_str
from rummy_env.romme.game import (
    COMMIT, DISCARD, DRAW_STOCK, JOKER_AS, LAYOFF, LAYOFF_JOKER, PICK, SWAP, TAKE_DISCARD, action_name,
)


def describe_move(action: int) -> str:
    """A move in the third person, e.g. ``'discards 7D'`` or ``'lays off a joker as 4H on slot 2'``."""
    action_name(action)  # refuses what is not an action id
    action = int(action)
    if action == DRAW_STOCK:
        return "draws from the stock"
    if action == TAKE_DISCARD:
        return "takes the top discard"
    if action == COMMIT:
        return "lays the pending meld on the table"
    if action < PICK:
        return f"discards {kind_str(action - DISCARD)}"
    if action < JOKER_AS:
        return f"puts {kind_str(action - PICK)} into the pending meld"
    if action < LAYOFF:
        return f"puts a joker into the pending meld as {kind_str(action - JOKER_AS)}"
    if action < LAYOFF_JOKER:
        slot, kind = divmod(action - LAYOFF, NUM_CARDS)
        return f"lays off {kind_str(kind)} on slot {slot}"
    if action < SWAP:
        slot, kind = divmod(action - LAYOFF_JOKER, NUM_CARDS)
        return f"lays off a joker as {kind_str(kind)} on slot {slot}"
    slot, kind = divmod(action - SWAP, NUM_CARDS)
    return f"swaps {kind_str(kind)} for the joker on slot {slot}"


def explain(result: Mapping[str, Any], names: Sequence[str]) -> str:
    """A finished hand (``RommeHandResult.to_dict()``) in words, naming seats by ``names``."""
    if result["winner"] is None:
        why = "nobody can draw" if result["reason"] == "stock" else "too many turns"
        return f"stalemate ({why}): no points"
    winner = names[result["winner"]]
    you = winner == "you"
    how = "went out"
    if result["outcome"] == "hand_rummy":
        how += " with hand rummy (in one turn, never out before: penalties multiplied)"
    if result["with_discard"]:
        how += " with a last discard"
    if you:
        how = how.replace("went out", "go out", 1)
    paid = ", ".join(f"{names[s]} {pen} ({result['hands_left'][s] or '-'})"
                     for s, pen in enumerate(result["penalties"]) if s != result["winner"])
    return f"{winner} {how}: {paid}; {winner} {'score' if you else 'scores'} {result['points']}"
