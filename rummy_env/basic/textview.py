"""Basic Rummy in the text views (``rummy_env.core.textview``): what Basic Rummy adds to
the layout every game shares.

From the ``RummyInformationSet`` alone: the cards each seat discarded and put on the
table, the stock's order once a turnover made it public, whether the player to move may
still go rummy, and every public move since the observing seat last moved, in the words
of ``rummy_env.basic.text.describe_move`` (every Basic Rummy move is public).
"""

from __future__ import annotations

from typing import Any

from rummy_env.basic.game import RummyInformationSet
from rummy_env.basic.rules import BasicRummyRules
from rummy_env.basic.text import describe_move
from rummy_env.core.cards import card_str
from rummy_env.core.textview import Words, moves_since_last
from rummy_env.core.view import mask_texts


class BasicWords(Words):
    phases = {"draw": "draw from the stock or take the top discard",
              "play": "meld, lay off, then discard or go out"}

    def seat_facts(self, info: RummyInformationSet, rules: BasicRummyRules) -> list[dict[str, Any]]:
        high = rules.aces_high
        return [{"discarded": mask_texts(info.discarded[s], high), "put_on_table": mask_texts(info.played[s], high)}
                for s in range(info.num_players)]

    def facts(self, info: RummyInformationSet, rules: BasicRummyRules) -> list[list[str]]:
        out = []
        if info.public_stock:
            out.append(["stock, top first", " ".join(card_str(c) for c in info.public_stock)])
        if info.result is None:
            out.append(["the player to move may still go rummy", "yes" if info.rummy_possible else "no"])
        return out

    def recent(self, info: RummyInformationSet, rules: BasicRummyRules) -> list[tuple[int, str]]:
        return moves_since_last(info.public_history, info.player, lambda a: describe_move(a, rules.aces_high))


WORDS = BasicWords()
