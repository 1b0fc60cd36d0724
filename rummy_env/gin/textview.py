"""Gin Rummy in the text views (``rummy_env.core.textview``): what Gin adds to the layout
every game shares.

From the ``InformationSet`` alone: the cards each seat discarded and passed on (public:
the flat encoding's ``opponent_discarded`` and ``opponent_passed`` hold the opponent's),
and the public events since the observing seat last moved, in the words of
``rummy_env.gin.text.describe_move`` (a knock's card stays face down).
"""

from __future__ import annotations

from typing import Any

from rummy_env.core.cards import card_str
from rummy_env.core.textview import Words, since_last_move
from rummy_env.core.view import mask_texts
from rummy_env.gin.game import BIG_GIN, DISCARD, DRAW_STOCK, KNOCK, PASS, TAKE_DISCARD, InformationSet
from rummy_env.gin.rules import Rules
from rummy_env.gin.text import describe_move

_EVENT_ACTIONS = {"pass": PASS, "draw_stock": DRAW_STOCK, "take_discard": TAKE_DISCARD, "knock": KNOCK,
                  "big_gin": BIG_GIN}


class GinWords(Words):
    phases = {"offer": "take the face-up card or pass", "draw": "draw from the stock or take the face-up card",
              "discard": "discard a card, knock laying a card face down, or declare Big Gin"}

    def seat_facts(self, info: InformationSet, rules: Rules) -> list[dict[str, Any]]:
        high = rules.aces_high
        return [{"discarded": mask_texts(info.discarded[s], high), "passed": mask_texts(info.passed[s], high)}
                for s in (0, 1)]

    def recent(self, info: InformationSet, rules: Rules) -> list[tuple[int, str]]:
        out = []
        for seat, event, card in since_last_move(info.public_history, info.player):
            if event == "discard":
                out.append((seat, describe_move(DISCARD + card)))
                continue
            shown = f" ({card_str(card)})" if card >= 0 else ""  # the upcard passed on, the card taken
            out.append((seat, describe_move(_EVENT_ACTIONS[event]) + shown))
        return out


WORDS = GinWords()
