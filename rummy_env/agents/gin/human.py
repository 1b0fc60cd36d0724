"""A person at the terminal playing Gin Rummy: ``HumanAgent`` is the shared terminal
player (``rummy_env.agents.human.TerminalPlayer``: moves by number or by the game's
letters, ``d``, ``t``, ``p``, ``x 7D``, ``k 7D``, ``g``; ``q`` quits) with a view of its own.
``rummy play`` seats one against any agent or difficulty level.

The view is built from the information set only (the same input every agent gets): the
hand sorted and grouped into its best melds with the deadwood, the new card, the discard
pile's top, the stock, what is known of the opponent. A mistyped move is answered with
what was wrong and the question again.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from rummy_env.agents.human import TerminalPlayer
from rummy_env.core import melds
from rummy_env.core.cards import card_count, card_str, format_hand
from rummy_env.core.game import get_game
from rummy_env.gin.game import PASS, Phase


class HumanAgent(TerminalPlayer):
    name = "human"
    game = "gin"

    def __init__(
        self,
        seed: Optional[int] = None,
        read: Callable[[str], str] = input,
        write: Callable[[str], None] = print,
    ) -> None:
        super().__init__(get_game("gin"), seed, read, write)
        self._last_hand = 0

    def view(self, infoset: Any, rules: Any, legal: list[int]) -> str:
        """The hand grouped into its best melds, then the deadwood, the new card, the pile, the
        stock and what is known of the opponent's hand."""
        opts = {"aces_high": rules.aces_high, "five_under_ten": rules.five_under_ten}
        best = melds.best_arrangement(infoset.hand, **opts)
        groups = [format_hand(m.cards, symbols=True) for m in best.melds]
        new = infoset.hand & ~self._last_hand if infoset.hand.bit_count() == 11 and self._last_hand else 0
        self._last_hand = infoset.hand
        lines = [
            "",
            f"turn {infoset.turn + 1}: stock {card_count(infoset.stock_size)}, knock limit {infoset.knock_limit}",
            f"discard pile: {card_count(len(infoset.discard_pile))}, top "
            + (card_str(infoset.discard_pile[-1], symbols=True) if infoset.discard_pile else "-"),
            "your hand:  " + "  |  ".join(groups + [format_hand(best.deadwood_cards, symbols=True) or "-"]),
            f"            melds: {len(groups)}, deadwood {best.deadwood}"
            + (f", new card {format_hand(new, symbols=True)}" if new.bit_count() == 1 else ""),
        ]
        if infoset.opponent_known:
            lines.append(f"opponent holds (known): {format_hand(infoset.opponent_known, symbols=True)}")
        if infoset.phase == Phase.DRAW and PASS in legal:
            lines.append("the wall: take the top discard only to knock at once, or pass (the hand is drawn)")
        return "\n".join(lines)
