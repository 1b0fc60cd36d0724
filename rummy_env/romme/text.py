"""Rommé in words: a move as the other players see it, and a finished hand explained.

For people at the table (``rummy play``, replays). Every Rommé move is public (a stock
draw shows no card, and its action names none; the pending meld is built in the open), so
a move is described in full; ``SHORTCUTS`` are the letters typed for the moves at the terminal, and
``RULES_SUMMARY`` the rules in brief for a language model's prompt (``Game.rules_summary``).
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

# the rules in brief, for a language model's system prompt (Game.rules_summary; the llm agent
# adds the rule options in play, so what an option changes is named here by the option)
RULES_SUMMARY = """\
Rommé is played by 2 to 6 players with two 52-card decks and jokers. A card is written rank \
then suit: ranks A 2 3 4 5 6 7 8 9 T J Q K (T is the ten), suits C D H S (clubs, diamonds, \
hearts, spades); JK is a joker, and JK:7D a joker standing for 7D. Card values: two to ten \
their number, jack, queen and king 10, ace 11 (but 1 where it stands low in a run, A-2-3); a \
joker in a meld is worth the card it stands for.

Melds: a set is three or four cards of one rank, all of different suits; a run is three or more \
cards of one suit in sequence, the ace low (A-2-3) or high (Q-K-A), never both in one run \
(aces_around_the_corner lets runs turn the corner). A joker stands for any card a meld needs; \
a meld holds at least two natural cards (naturals_per_meld), and two jokers may not stand side \
by side in a run (adjacent_jokers).

Each player gets 13 cards; the player left of the dealer gets a 14th and starts by discarding \
(deal_extra_card). One card face up starts the discard pile; the rest is the stock. A turn: \
draw the top card of the stock or the top discard; then, if you like, meld and lay off; then \
discard one card (not the card just taken from the pile unless it was melded). A meld is built \
card by card: put its cards into the pending meld one move at a time, then lay the pending meld \
on the table. Coming out: your first melds, laid in one turn, must together be worth at least \
come_out_points; before coming out you may take the top discard only to meld it in that very \
turn (take_discard_before_out). Once out you may lay off (add a card to any meld on the table so \
that it stays a meld) and swap a joker on the table for the natural card it stands for (then \
use that joker in a meld or lay-off the same turn). The melds on the table are numbered slots. \
Every move offered to you can be completed: the turn can always still end legally after it.

A player who has melded or laid off every card and discarded the last one goes out and wins \
the hand. Every other player pays a penalty: the value of the cards left in hand (aces 11, \
jokers joker_penalty); going out in a single turn without having come out before (hand rummy) \
multiplies the penalties by hand_rummy_multiplier. The winner scores the sum of the penalties. \
A table is a series of hands (hands_per_table); the highest total wins. Aim: come out early, \
go out first, and hold few penalty points when another player may go out."""


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
