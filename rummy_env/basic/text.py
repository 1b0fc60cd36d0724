"""Basic Rummy in words: a move as the other players see it, and a finished hand explained.

For people at the table (``rummy play``, replays). Every Basic Rummy move is public, so
a move is described in full; ``SHORTCUTS`` are the letters typed for the moves at the terminal, and
``RULES_SUMMARY`` the rules in brief for a language model's prompt (``Game.rules_summary``).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from rummy_env.basic.game import DISCARD, DRAW_STOCK, LAYOFF, MELD, TAKE_DISCARD, action_name

# the letters a person types for the moves (``rummy play``; rummy_env.agents.human reads them):
# ``l 4h 2`` lays 4H off on slot 2
SHORTCUTS = {"d": "draw stock", "t": "take discard", "x": "discard CARD", "m": "meld CARDS",
             "l": "lay off CARD SLOT"}

# the rules in brief, for a language model's system prompt (Game.rules_summary; the llm agent
# adds the rule options in play, so what an option changes is named here by the option)
RULES_SUMMARY = """\
Basic Rummy is played by 2 to 4 players with one 52-card deck. A card is written rank then suit: \
ranks A 2 3 4 5 6 7 8 9 T J Q K (T is the ten), suits C D H S (clubs, diamonds, hearts, spades); \
7D is the seven of diamonds. Card values: ace 1, two to nine their number, ten and face cards 10.

Melds: a set is three or four cards of one rank; a run is three or more cards of one suit in \
consecutive ranks (with aces low, A-2-3 is a run and Q-K-A is not; with aces high the other way \
round; never K-A-2).

Each player gets 10 cards with 2 players, 7 with 3 or 4 (hand_size); one card face up starts \
the discard pile and the rest is the face-down stock. Play goes round the table. A turn: draw \
the top card of the stock or of the discard pile; then, as often as you like, meld (lay a set \
or a run from your hand face up on the table) and lay off (add cards from your hand to any meld \
on the table: a fourth card to a set, a card at either end of a run; only once you have a meld \
of your own on the table, with layoff_needs_own_meld); then discard one card face up, never the \
card you took from the discard pile this turn. The melds on the table are numbered slots.

A player who gets rid of every card goes out and wins the hand: by discarding the last card, \
or by melding or laying off the last cards (go_out_without_discard). Going out in one turn \
with nothing on the table before that turn is "rummy": the points are multiplied by \
rummy_multiplier. When the stock runs out, the discard pile but its top card becomes the new \
stock (stock_turnovers times); the next time, the hand is a stalemate and nobody scores.

The player who goes out scores the value of every card left in the other players' hands; each \
other player loses the value of their own cards. In a match, hands are played until a player's \
total reaches the target score. Aim: go out first, and hold few points in your hand when \
another player may go out."""


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
