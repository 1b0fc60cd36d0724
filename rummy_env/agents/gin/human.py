"""A person at the terminal, as an agent: ``HumanAgent.act`` shows the player's view and
asks for a move. ``rummy play`` seats one against any agent or difficulty level.

The view is built from the information set only (the same input every agent gets): the
hand sorted and grouped into its best melds with the deadwood, the discard pile's top,
the stock, what is known of the opponent, and the legal moves. Moves are typed as a
number from the list or as a command: ``d`` draw from the stock, ``t`` take the face-up
card, ``p`` pass, ``x 7D`` discard 7D, ``k 7D`` knock with 7D face down, ``g`` Big Gin,
``q`` quit. Anything else is answered with what was wrong and the question again.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

from rummy_env.agents.base import Agent, game_input, legal_actions
from rummy_env.agents.human import QuitGame
from rummy_env.core import melds
from rummy_env.core.cards import card_str, format_hand, parse_card
from rummy_env.gin.game import BIG_GIN, DISCARD, DRAW_STOCK, KNOCK, PASS, TAKE_DISCARD, Phase, action_name


class HumanAgent(Agent):
    name = "human"
    game = "gin"

    def __init__(
        self,
        seed: Optional[int] = None,
        read: Callable[[str], str] = input,
        write: Callable[[str], None] = print,
    ) -> None:
        super().__init__(seed)
        self.read = read
        self.write = write
        self._last_hand = 0

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        game_input(self, observation, info)
        legal = legal_actions(observation).tolist()
        self.write(self.view(info, legal))
        while True:
            text = self.read("your move> ").strip()
            try:
                return self.parse(text, legal)
            except ValueError as exc:
                self.write(f"  {exc}")

    def view(self, info: dict[str, Any], legal: list[int]) -> str:
        infoset, rules = info["information_set"], info["rules"]
        opts = {"aces_high": rules.aces_high, "five_under_ten": rules.five_under_ten}
        best = melds.best_arrangement(infoset.hand, **opts)
        groups = [format_hand(m.cards, symbols=True) for m in best.melds]
        new = infoset.hand & ~self._last_hand if infoset.hand.bit_count() == 11 and self._last_hand else 0
        self._last_hand = infoset.hand
        lines = [
            "",
            f"turn {infoset.turn + 1}: stock {infoset.stock_size} cards, knock limit {infoset.knock_limit}",
            f"discard pile: {len(infoset.discard_pile)} cards, top "
            + (card_str(infoset.discard_pile[-1], symbols=True) if infoset.discard_pile else "-"),
            "your hand:  " + "  |  ".join(groups + [format_hand(best.deadwood_cards, symbols=True) or "-"]),
            f"            melds: {len(groups)}, deadwood {best.deadwood}"
            + (f", new card {format_hand(new, symbols=True)}" if new.bit_count() == 1 else ""),
        ]
        if infoset.opponent_known:
            lines.append(f"opponent holds (known): {format_hand(infoset.opponent_known, symbols=True)}")
        if infoset.phase == Phase.DRAW and PASS in legal:
            lines.append("the wall: take the top discard only to knock at once, or pass (the hand is drawn)")
        lines.append("moves: " + ", ".join(f"[{i}] {action_name(a)}" for i, a in enumerate(legal)))
        return "\n".join(lines)

    @staticmethod
    def parse(text: str, legal: list[int]) -> int:
        """An action id from what the person typed; ValueError says what was wrong."""
        if not text:
            raise ValueError("type a move: a number from the list, or d, t, p, x CARD, k CARD, g (q quits)")
        words = text.lower().split()
        if words[0] in ("q", "quit"):
            raise QuitGame
        if words[0].isdigit():
            i = int(words[0])
            if i >= len(legal):
                raise ValueError(f"there is no move [{i}]: choose 0..{len(legal) - 1}")
            return legal[i]
        simple = {"d": DRAW_STOCK, "t": TAKE_DISCARD, "p": PASS, "g": BIG_GIN}
        if words[0] in simple and len(words) == 1:
            action = simple[words[0]]
        elif words[0] in ("x", "k") and len(words) == 2:
            card = parse_card(words[1])  # ValueError names the card format
            action = (DISCARD if words[0] == "x" else KNOCK) + card
        else:
            raise ValueError(f"cannot read {text!r}: use a number, d, t, p, x CARD, k CARD or g")
        if action not in legal:
            raise ValueError(f"{action_name(action)} is not allowed now; allowed: {', '.join(action_name(a) for a in legal)}")
        return action
