"""Gin Rummy in words: a move as the other player sees it, and a showdown explained.

For people at the table (``rummy play``, replays): the knock card stays face down in
``describe_move``, ``explain`` gives the showdown's sum as the rules score it, and
``SHORTCUTS`` are the letters typed for the moves at the terminal.
"""

from __future__ import annotations

from typing import Any, Optional

from rummy_env.gin.game import BIG_GIN, DRAW_STOCK, KNOCK, PASS, TAKE_DISCARD, action_name

# the letters a person types for the moves (``rummy play``; rummy_env.agents.human reads them)
SHORTCUTS = {"d": "draw stock", "t": "take discard", "p": "pass", "x": "discard CARD", "k": "knock CARD",
             "g": "big gin"}
DRAW_REASONS = {"wall": "the stock ran down to two cards", "max_turns": "too many turns",
                "repeated": "a card taken and thrown back twice in a row", "upcard_draws": "too many draws of the upcard"}


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
