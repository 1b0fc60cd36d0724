"""Rommé in words: a move as the other players see it, and a finished hand explained.

For people at the table (``rummy play``, replays). Every Rommé move is public (a stock
draw shows no card, and its action names none; the pending meld is built in the open), so
a move is described in full; ``SHORTCUTS`` are the letters typed for the moves at the terminal.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from rummy_env.romme.cards import kind_str
from rummy_env.romme.game import decode_action

# the letters a person types for the moves (``rummy play``; rummy_env.agents.human reads them):
# ``m jk 4h`` puts a joker into the pending meld as 4H, ``s 4h 2`` swaps 4H for the joker on slot 2
SHORTCUTS = {"d": "draw stock", "t": "take discard", "x": "discard CARD", "m": "meld CARD", "c": "commit meld",
             "l": "lay off CARD SLOT", "s": "swap CARD SLOT"}
_MOVES = {"draw": "draws from the stock", "take": "takes the top discard",
          "commit": "lays the pending meld on the table", "discard": "discards {k}",
          "pick": "puts {k} into the pending meld", "joker_as": "puts a joker into the pending meld as {k}",
          "layoff": "lays off {k} on slot {s}", "layoff_joker": "lays off a joker as {k} on slot {s}",
          "swap": "swaps {k} for the joker on slot {s}"}


def describe_move(action: int) -> str:
    """A move in the third person, e.g. ``'discards 7D'`` or ``'lays off a joker as 4H on slot 2'``."""
    move, slot, kind = decode_action(action)
    return _MOVES[move].format(k=kind_str(kind) if kind >= 0 else "", s=slot)


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
