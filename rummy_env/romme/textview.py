"""Rommé in the text views (``rummy_env.core.textview``): what Rommé adds to the layout
every game shares.

From the ``RommeInformationSet`` alone (cards as kinds: which of two identical copies
lies where is never shown): the kinds each seat discarded, the stock's order once a
turnover made it public, the duties of the player to move (a card taken from the pile
to be melded, a joker taken by a swap to be played), the hands played of the table, and
every public move since the observing seat last moved, in the words of
``rummy_env.romme.text.describe_move``.
"""

from __future__ import annotations

from typing import Any, Sequence

from rummy_env.core.textview import Words, moves_since_last
from rummy_env.romme.cards import kind_str
from rummy_env.romme.game import RommeInformationSet
from rummy_env.romme.rules import RommeRules
from rummy_env.romme.text import describe_move


class RommeWords(Words):
    phases = {"draw": "draw from the stock or take the top discard",
              "play": "build and lay melds, lay off, swap jokers, then discard or go out"}

    def seat_facts(self, info: RommeInformationSet, rules: RommeRules) -> list[dict[str, Any]]:
        return [{"discarded": [kind_str(k) for k in info.discarded[s]]} for s in range(info.num_players)]

    def facts(self, info: RommeInformationSet, rules: RommeRules) -> list[list[str]]:
        out = []
        if info.public_stock:
            out.append(["stock, top first", " ".join(kind_str(k) for k in info.public_stock)])
        if info.result is None and info.must_meld_taken:
            out.append(["the player to move must meld the card taken from the pile", "yes"])
        if info.result is None and info.joker_debt:
            out.append(["the player to move must play the joker taken by a swap", "yes"])
        return out

    def score_facts(self, scores: Sequence[int], rules: RommeRules) -> list[list[str]]:
        played = getattr(scores, "hands_played", None)
        return [] if played is None else [["hands played", str(played)]]

    def recent(self, info: RommeInformationSet, rules: RommeRules) -> list[tuple[int, str]]:
        return moves_since_last(info.public_history, info.player, describe_move)


WORDS = RommeWords()
