"""Our Gin Rummy agents as OpenSpiel bots (``pyspiel.Bot``), for OpenSpiel users who want to
evaluate them with OpenSpiel's own tools (``pyspiel.evaluate_bots``, their own loops).
Needs open_spiel (``pip install "rummy-env[openspiel]"``).

``openspiel_bot("heuristic", player=0)`` plays OpenSpiel's ``gin_rummy`` as OpenSpiel
player 0. At each draw and discard decision it builds the player's information set from
what that player sees in OpenSpiel's state (``rummy_env.gin.openspiel.information_set``:
its own hand and the public moves; tests hold it equal to our engine's on the same deals)
and asks the agent, with our observation and legal moves, exactly as our env would.
OpenSpiel's steps that our game does by itself are played as our showdown plays them: a
knocker lays its least-deadwood melds (runs longer than 5 cards in pieces, as OpenSpiel's
meld ids require), the defender lays off what our solver finds best against the melds on
the table, then lays its own melds. The ``openspiel`` preset is OpenSpiel's game, so the
agent decides everything OpenSpiel asks: at OpenSpiel's wall it is asked our draw at the
wall (its take of the discard is OpenSpiel's knock there, its pass OpenSpiel's pass),
and after that knock our discard phase after a take at the wall (the card it puts face
down); it may discard, or knock with, the card it just took. Where OpenSpiel refuses a
knock our rules allow (its 11-card deadwood bug, ``rummy_env.gin.openspiel.KNOWN_DIFFERENCES``)
it discards the card it would have put down, or passes at the wall.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from rummy_env import agents
from rummy_env.core import melds
from rummy_env.core.cards import NUM_RANKS, mask_to_cards
from rummy_env.gin.game import BIG_GIN, DISCARD, DRAW_STOCK, KNOCK, PASS, TAKE_DISCARD, GinRummyState
from rummy_env.gin.interface import GIN
from rummy_env.gin.openspiel import (
    DRAW_UPCARD, MELD_BASE, OS_DRAW_STOCK, OS_KNOCK, OS_PASS, from_openspiel, information_set, meld_pieces,
    pyspiel_module, to_openspiel,
)
from rummy_env.gin.rules import Rules, load_rules

pyspiel = pyspiel_module()  # an ImportError saying how to install open_spiel, if it is missing


def rules_of(game: Any) -> Rules:
    """The ``openspiel`` preset with the scoring parameters of OpenSpiel game ``game``."""
    params = game.get_parameters()
    return load_rules({"preset": "openspiel", "oklahoma": bool(params["oklahoma"]), "knock_limit": int(params["knock_card"]),
                       "gin_bonus": int(params["gin_bonus"]), "undercut_bonus": int(params["undercut_bonus"])})


def openspiel_bot(spec: str, player: int, seed: Optional[int] = None, game: Any = None) -> "AgentBot":
    """A ``pyspiel.Bot`` playing OpenSpiel player ``player`` with our agent ``spec`` (any
    Gin Rummy agent spec: ``random``, ``simple``, ``heuristic``, ``mcts:simulations=200``,
    ``ppo``, ...); ``game``: OpenSpiel's ``gin_rummy`` game the bot will play (its scoring
    parameters set our rules; default: the standard game)."""
    if player not in (0, 1):
        raise ValueError(f"player must be 0 or 1, got {player!r}")
    game = game if game is not None else pyspiel.load_game("gin_rummy")
    return AgentBot(spec, player, seed, rules_of(game))


class AgentBot(pyspiel.Bot):
    """See the module docstring; made by ``openspiel_bot``."""

    def __init__(self, spec: str, player: int, seed: Optional[int], rules: Rules) -> None:
        pyspiel.Bot.__init__(self)
        self.spec, self.player, self.seed, self.rules = spec, player, seed, rules
        self.agent = agents.make(spec, seed=seed, game="gin")
        if agents.plays(self.agent) != "gin":
            raise ValueError(f"{spec!r} does not play Gin Rummy")
        self._encoder = GIN.encoding("flat")
        self._hands = 0
        self._knock_card: Optional[int] = None  # ours: the card our agent chose to knock with
        self._history_length = 0

    def restart(self) -> None:
        """A new hand: the agent is re-seeded (a new seed per hand, so hands do not repeat
        its random choices) and forgets its knock."""
        self._hands += 1
        self.agent.reset(seed=None if self.seed is None else self.seed + 1_000_003 * self._hands)
        self._knock_card = None

    def restart_at(self, state: Any) -> None:
        self.restart()

    def provides_policy(self) -> bool:
        return False

    def inform_action(self, state: Any, player_id: int, action: int) -> None:
        """Nothing to track: each decision is made from the state's public moves."""

    def step(self, state: Any) -> int:
        if len(state.full_history()) < self._history_length:
            self.restart()  # a new hand without restart(): the state's history went back
        self._history_length = len(state.full_history())
        if state.current_player() != self.player:
            raise ValueError(f"this bot plays OpenSpiel player {self.player}, not player {state.current_player()}")
        phase = state.current_phase().name
        hand = sum(1 << from_openspiel(c) for c in state.hands()[self.player])
        if phase in ("FIRST_UPCARD", "DRAW", "DISCARD", "WALL") or (
                phase == "KNOCK" and hand.bit_count() == 11 and self._knock_card is None):  # after a knock at the wall
            return self._decide(state)
        legal = set(state.legal_actions())
        if phase == "KNOCK" and hand.bit_count() == 11:
            return self._knock_discard(hand, legal)
        if phase == "LAYOFF" and not state.finished_layoffs():
            return self._layoff(state, hand, legal)
        return self._lay_melds(hand, legal)

    def _decide(self, state: Any) -> int:
        """Our agent's draw or discard, asked as our env asks it (at the wall and after a
        knock there too: see the module docstring)."""
        info = information_set(state, self.player)
        sample = GinRummyState.sample_from_information_set(info, self.rules, np.random.default_rng(0))
        mask = sample.legal_mask()  # legality depends only on what the player sees
        observation = {"observation": self._encoder.encode(info, self.rules, None), "action_mask": mask}
        action = int(self.agent.act(observation, {"information_set": info, "rules": self.rules}))
        phase = state.current_phase().name
        if phase == "WALL":  # our take there is OpenSpiel's knock, unless its 11-card deadwood bug refuses it
            return OS_KNOCK if action == TAKE_DISCARD and OS_KNOCK in state.legal_actions() else OS_PASS
        if phase == "KNOCK":  # after the knock at the wall: the card put face down
            hand = sum(1 << from_openspiel(c) for c in state.hands()[self.player])
            self._knock_card = action - KNOCK if KNOCK <= action < BIG_GIN else None
            return self._knock_discard(hand, set(state.legal_actions()))
        if action == TAKE_DISCARD:
            return DRAW_UPCARD
        if action == DRAW_STOCK:
            return OS_DRAW_STOCK
        if action == PASS:
            return OS_PASS
        if DISCARD <= action < KNOCK:
            return to_openspiel(action - DISCARD)
        if KNOCK <= action < BIG_GIN:
            if OS_KNOCK not in state.legal_actions():  # OpenSpiel's 11-card deadwood bug refuses it
                return to_openspiel(action - KNOCK)  # the same card, discarded
            self._knock_card = action - KNOCK
            return OS_KNOCK
        raise ValueError(f"the agent played {action} ({sample.action_name(action)}), which OpenSpiel's game lacks")

    def _knock_discard(self, hand: int, legal: set[int]) -> int:
        """The card put down after a knock: our agent's, or (should OpenSpiel not allow it)
        the card leaving the least deadwood."""
        card, self._knock_card = self._knock_card, None
        if card is not None and to_openspiel(card) in legal:
            return to_openspiel(card)
        after = melds.discard_deadwood(hand)
        return to_openspiel(min((c for c in mask_to_cards(hand) if to_openspiel(c) in legal), key=lambda c: (after[c], c)))

    def _lay_melds(self, hand: int, legal: set[int]) -> int:
        """The next meld of the hand's least-deadwood arrangement, in OpenSpiel's meld ids;
        pass when none is left (or legal)."""
        if hand:
            for meld in melds.arrangements(hand)[0].melds:
                for piece in meld_pieces(meld.cards, meld.kind == "run"):
                    action = MELD_BASE + _meld_id(piece)
                    if action in legal:
                        return action
        return OS_PASS

    def _layoff(self, state: Any, hand: int, legal: set[int]) -> int:
        """The next card of our solver's best lay-offs onto the knocker's melds; pass when done."""
        table = []
        for meld_id in state.layed_melds()[1 - self.player]:
            cards = [from_openspiel(c) for c in _utils().int_to_meld[meld_id]]
            kind = "set" if len({c % NUM_RANKS for c in cards}) == 1 else "run"
            table.append(melds.Meld(kind, sum(1 << c for c in cards)))
        for card, _ in melds.best_layoff(tuple(table), hand).laid_off:
            if to_openspiel(card) in legal:
                return to_openspiel(card)
        return OS_PASS


def _utils() -> Any:
    return pyspiel.gin_rummy.GinRummyUtils(NUM_RANKS, 4, 10)


def _meld_id(cards: list[int]) -> int:
    return _utils().meld_to_int(sorted(to_openspiel(c) for c in cards))


