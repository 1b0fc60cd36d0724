"""Basic Rummy on the game interface (``rummy_env.core.game``), registered as ``basic``
(``rummy``, its name in 0.1's tournaments and agents, is an alias).

Glue only: every method hands over to the modules of this package, where the rules live.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, Mapping, Optional, Sequence

import numpy as np

from rummy_env.basic import encoding, text
from rummy_env.basic.game import NUM_ACTIONS, BasicRummyState, RummyInformationSet, action_name
from rummy_env.basic.match import BasicRummyMatch
from rummy_env.basic.rules import MAX_PLAYERS, MIN_PLAYERS, PRESETS, BasicRummyRules, load_rummy_rules
from rummy_env.core.batch import OnEngine
from rummy_env.core.game import Game, Seed, register_game


class BasicRummy(OnEngine, Game):
    name = "basic"
    title = "Basic Rummy"
    aliases = ("rummy",)
    env_module = "rummy_env.basic.env"
    env_name = "basic_rummy_v0"
    view_module = "rummy_env.basic.view"  # its view for people's screens (Game.view)
    training_module = "rummy_env.train.games.basic"  # its training adapter (rummy train)
    vector_module = "rummy_env.basic.vector"  # VectorBasicRummy, or the pure hands in a loop without numba
    min_players, max_players = MIN_PLAYERS, MAX_PLAYERS
    num_actions = NUM_ACTIONS
    state_type = BasicRummyState
    information_set_type = RummyInformationSet
    outcomes = ("out", "rummy", "stalemate")
    rules_type = BasicRummyRules
    default_preset = "basic"
    presets = PRESETS
    encodings = encoding.ENCODINGS
    shortcuts = text.SHORTCUTS  # the letters typed for its moves (rummy play)
    rules_summary = text.RULES_SUMMARY  # the rules in brief, for a language model (the llm agent)
    state_size = encoding.STATE_SIZE
    # its text view at 4 players (the hands, 12 melds on the table, the piles, whose turn); more is drawn smaller
    frame_lines = 18
    # a hand played out (benchmarks/bench_playouts.py, 2 to 4 players): the heuristic 2 to 3 ms, random 3 to
    # 5 ms, ppo (torch) 20 to 30 ms
    playout_seconds = MappingProxyType({"heuristic": 0.004, "random": 0.008, "*": 0.04})

    def load_rules(self, spec: Any = None) -> Any:
        return load_rummy_rules(spec)

    def deal(self, rules: Any, num_players: int, *, seed: Seed = None, deck: Optional[Sequence[int]] = None,
             dealer: Optional[int] = None) -> BasicRummyState:
        if deck is not None:
            return BasicRummyState.from_deck(deck, num_players, rules, dealer)
        return BasicRummyState.new_hand(num_players, rules, seed, dealer)

    def new_match(self, rules: Any, num_players: int, first_dealer: Optional[int] = None) -> BasicRummyMatch:
        return BasicRummyMatch.create(num_players, rules, first_dealer)

    def state_vector(self, state: Any) -> np.ndarray:
        return encoding.state_vector(state)

    def action_name(self, action: int, rules: Any = None) -> str:
        return action_name(action, self.load_rules(rules).aces_high)

    def describe_move(self, action: int, rules: Any = None) -> str:
        return text.describe_move(action, self.load_rules(rules).aces_high)

    def explain(self, result: Mapping[str, Any], names: Sequence[str]) -> str:
        return text.explain(result, names)


BASIC = register_game(BasicRummy())
