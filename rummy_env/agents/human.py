"""A person at the terminal, for any game: ``TerminalPlayer`` shows what the player may
see and asks for a move by number. ``rummy play`` seats one against agents.

The view is built from the information set only (the same input every agent gets): a
world consistent with it is sampled (``Game.sample_world``) and drawn from the player's
seat (``render(perspective=...)``), which shows exactly what that seat may see. A game
can register a richer player of its own (``registry.register_human``; Gin Rummy's
``HumanAgent`` groups the hand into melds and takes typed commands).
"""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

from rummy_env.agents.base import Agent, game_input, legal_actions
from rummy_env.core.game import Game


class QuitGame(Exception):
    """The person asked to stop."""


class TerminalPlayer(Agent):
    name = "human"

    def __init__(self, game: Game, seed: Optional[int] = None, read: Callable[[str], str] = input,
                 write: Callable[[str], None] = print) -> None:
        super().__init__(seed)
        self.game = game.name
        self._game = game
        self.read, self.write = read, write

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        infoset, rules = game_input(self, observation, info)
        legal = legal_actions(observation).tolist()
        world = self._game.sample_world(infoset, rules, self.rng)
        moves = ", ".join(f"[{i}] {self._game.action_name(a, rules)}" for i, a in enumerate(legal))
        self.write(f"\n{world.render(perspective=infoset.player)}\nmoves: {moves}")
        while True:
            text = self.read("your move> ").strip().lower()
            if text in ("q", "quit"):
                raise QuitGame
            if text.isdigit() and int(text) < len(legal):
                return legal[int(text)]
            self.write(f"  type a move's number 0..{len(legal) - 1} (q quits), not {text!r}")
