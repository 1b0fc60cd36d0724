"""Gin Rummy in words: a move as the other player sees it, and a showdown explained.

For people at the table (``rummy play``, replays): the knock card stays face down in
``describe_move``, ``explain`` gives the showdown's sum as the rules score it,
``SHORTCUTS`` are the letters typed for the moves at the terminal, and
``RULES_SUMMARY`` the rules in brief for a language model's prompt (``Game.rules_summary``).
"""

from __future__ import annotations

from typing import Any, Optional

from rummy_env.gin.game import BIG_GIN, DRAW_STOCK, KNOCK, PASS, TAKE_DISCARD, action_name

# the letters a person types for the moves (``rummy play``; rummy_env.agents.human reads them)
SHORTCUTS = {"d": "draw stock", "t": "take discard", "p": "pass", "x": "discard CARD", "k": "knock CARD",
             "g": "big gin"}
DRAW_REASONS = {"wall": "the stock ran down to two cards", "max_turns": "too many turns",
                "repeated": "a card taken and thrown back twice in a row", "upcard_draws": "too many draws of the upcard"}

# the rules in brief, for a language model's system prompt (Game.rules_summary; the llm agent
# adds the rule options in play, so what an option changes is named here by the option)
RULES_SUMMARY = """\
Gin Rummy is played by two players with one 52-card deck. A card is written rank then suit: \
ranks A 2 3 4 5 6 7 8 9 T J Q K (T is the ten), suits C D H S (clubs, diamonds, hearts, spades); \
7D is the seven of diamonds. Card values: ace 1, two to nine their number, ten and face cards 10 \
(with five_under_ten, ace to nine are worth 5).

Melds: a set is three or four cards of one rank; a run is three or more cards of one suit in \
consecutive ranks (with aces low, A-2-3 is a run and Q-K-A is not; with aces high the other way \
round; a run never wraps). A card belongs to at most one meld. The cards outside your melds are \
deadwood; a hand's deadwood is the least total value over every way of arranging it into melds, \
and your hand is shown in that arrangement.

Each player gets ten cards; the next card is turned face up to start the discard pile and the \
rest is the face-down stock. First the face-up card is offered to the non-dealer, then to the \
dealer: take it or pass; if both pass, the non-dealer draws from the stock (first_upcard_pass). \
A turn: draw the top card of the stock or of the discard pile, then either discard one card face \
up (not the card just taken from the pile) or knock: put one card face down and end the hand, \
allowed only when the ten cards left have deadwood at most the knock limit. Knocking with 0 \
deadwood is Gin; Big Gin is holding eleven cards that all form melds, declared without \
discarding. When the stock is down to two cards after a discard, the hand is a draw.

After a knock both hands are shown: the defender may lay off deadwood cards onto the \
knocker's melds (never against Gin). If the defender's deadwood is higher, the knocker scores \
the difference; if it is lower (or equal, with undercut_on_tie) the defender undercuts and \
scores the difference plus the undercut bonus. Gin scores the defender's deadwood plus the \
Gin bonus, Big Gin plus the Big Gin bonus. In a match, hands are played until a player's total \
reaches the target score. Aim: score more points than your opponent by lowering your deadwood \
quickly, knocking when it pays and not feeding your opponent's melds."""


def explain(result: dict[str, Any], you: Optional[int] = None, names: Optional[tuple[str, str]] = None) -> str:
    """The showdown of a finished hand (``hand_result`` from the env's info), in words:
    for the person in seat ``you``, or naming the seats with ``names``."""

    def who(seat: int) -> str:
        if names is not None:
            return names[seat]
        return "you" if seat == you else "the opponent"

    if result["outcome"] == "draw":
        why = DRAW_REASONS.get(result["reason"], result["reason"])
        return f"the hand is a draw ({why}): no points"
    knocker, outcome = result["knocker"], result["outcome"]
    did = {"big_gin": "declared Big Gin", "gin": "went gin"}.get(outcome, "knocked")
    lines = [
        f"{who(knocker)} {did}: "
        f"melds {' / '.join(result['knocker_melds']) or '-'}, deadwood {result['knocker_deadwood_cards'] or '-'} "
        f"= {result['knocker_deadwood']}",
    ]
    if result["layoffs"]:
        lines.append(f"{who(1 - knocker)} laid off " + ", ".join(card for card, _ in result["layoffs"]))
    lines.append(
        f"{who(1 - knocker)}: melds {' / '.join(result['defender_melds']) or '-'}, deadwood "
        f"{result['defender_deadwood_cards'] or '-'} = {result['defender_deadwood']}"
    )
    if result["winner"] is None:
        lines.append("equal deadwood, no undercut under these rules: no points")
    else:
        verb = "score" if who(result["winner"]) == "you" else "scores"
        lines.append(f"{outcome.replace('_', ' ')}: {who(result['winner'])} {verb} {_points_sum(result)}")
    return "\n".join(lines)


def _points_sum(result: dict[str, Any]) -> str:
    """How a showdown's points come about, e.g. ``12 - 4 = 8`` or ``7 + gin bonus 25 = 32``
    (the bonus is what the points hold beyond the deadwood, so it follows the rules played)."""
    k, d, points = result["knocker_deadwood"], result["defender_deadwood"], result["points"]
    if result["outcome"] == "knock":
        return f"{d} - {k} = {points} (deadwood difference)"
    if result["outcome"] == "undercut":
        return f"{k} - {d} + undercut bonus {points - (k - d)} = {points}"
    bonus = "big gin" if result["outcome"] == "big_gin" else "gin"
    return f"{d} (the other hand's deadwood) + {bonus} bonus {points - d} = {points}"


def describe_move(action: int) -> str:
    """A move as the other player sees it (the knock card stays face down)."""
    if KNOCK <= action < BIG_GIN:
        return "knocks, laying a card face down"
    return {DRAW_STOCK: "draws from the stock", TAKE_DISCARD: "takes the face-up card", PASS: "passes"}.get(
        action, action_name(action).replace("discard", "discards").replace("big gin", "declares Big Gin")
    )
