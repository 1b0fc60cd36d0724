"""Gin Rummy on the game interface (``rummy_env.core.game``), registered as ``gin``.

Glue only: every method hands over to the modules of this package, where the rules live.
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping, Optional, Sequence

import numpy as np

from rummy_env.core.game import BatchHand, BatchPolicy, Game, Seed, register_game
from rummy_env.gin import encoding, text
from rummy_env.gin.game import NUM_ACTIONS, GinRummyState, InformationSet, action_name
from rummy_env.gin.match import Match
from rummy_env.gin.rules import PRESETS, Rules, load_rules
from rummy_env.gin.scoring import OUTCOMES


class GinRummy(Game):
    name = "gin"
    title = "Gin Rummy"
    env_module = "rummy_env.gin.env"
    env_name = "gin_rummy_v0"
    view_module = "rummy_env.gin.view"  # its view for people's screens (Game.view)
    training_module = "rummy_env.train.games.gin"  # its training adapter (rummy train)
    min_players = max_players = 2
    num_actions = NUM_ACTIONS
    state_type = GinRummyState
    information_set_type = InformationSet
    outcomes = (*OUTCOMES[1:], OUTCOMES[0])  # the showdowns, then "draw"
    rules_type = Rules
    default_preset = "classic"
    presets = PRESETS
    encodings = encoding.ENCODINGS
    state_size = encoding.STATE_SIZE
    shortcuts = text.SHORTCUTS  # the letters typed for its moves (rummy play)
    rules_summary = text.RULES_SUMMARY  # the rules in brief, for a language model (the llm agent)
    batched = True  # the vector engine plays many hands at once (rummy_env.gin.batch)
    vector_module = "rummy_env.gin.vector"  # VectorGinRummy
    frame_lines = 4  # its text view: the two hands, the piles, whose turn

    def load_rules(self, spec: Any = None) -> Any:
        return load_rules(spec)

    def deal(self, rules: Any, num_players: int = 2, *, seed: Seed = None, deck: Optional[Sequence[int]] = None,
             dealer: Optional[int] = None) -> GinRummyState:
        self.check_num_players(num_players)
        dealer = 1 if dealer is None else dealer
        if deck is not None:
            return GinRummyState.from_deck(deck, rules, dealer)
        return GinRummyState.new_hand(rules, seed, dealer)

    def new_match(self, rules: Any, num_players: int = 2, first_dealer: Optional[int] = None) -> Match:
        self.check_num_players(num_players)
        return Match.create(rules, first_dealer=1 if first_dealer is None else first_dealer)

    def play_batched(self, rules: Any, decks: np.ndarray, dealers: np.ndarray, seats: np.ndarray, keys: np.ndarray,
                     policies: Sequence[BatchPolicy], width: int = 2048) -> Iterator[list[BatchHand]]:
        from rummy_env.gin.batch import play_hands

        return play_hands(rules, decks, dealers, seats, keys, policies, width)

    def state_vector(self, state: Any) -> np.ndarray:
        return encoding.state_vector(state)

    def action_name(self, action: int, rules: Any = None) -> str:
        return action_name(action)

    def describe_move(self, action: int, rules: Any = None) -> str:
        return text.describe_move(action)

    def explain(self, result: Mapping[str, Any], names: Sequence[str]) -> str:
        return text.explain(result, names=(names[0], names[1]))


GIN = register_game(GinRummy())
