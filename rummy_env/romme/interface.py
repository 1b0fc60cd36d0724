"""Rommé on the game interface (``rummy_env.core.game``), registered as ``romme``.

Glue only: every method hands over to the modules of this package, where the rules live.
A match is a table (``rummy_env.romme.match.RommeTable``): ``hands_per_table`` hands, or
fewer when a total reaches the ``loss_limit``.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, Mapping, Optional, Sequence

import numpy as np

from rummy_env.core.batch import OnEngine
from rummy_env.core.game import Game, Seed, register_game
from rummy_env.romme import encoding, text
from rummy_env.romme.cards import MAX_PHYSICAL, kind_of, num_physical
from rummy_env.romme.game import NUM_ACTIONS, OUTCOMES, RommeInformationSet, RommeState, action_name
from rummy_env.romme.match import RommeTable
from rummy_env.romme.rules import DEFAULT_PRESET, MAX_PLAYERS, MIN_PLAYERS, PRESETS, RommeRules, load_romme_rules

class Romme(OnEngine, Game):
    name = "romme"
    title = "Rommé"
    env_module = "rummy_env.romme.env"
    env_name = "romme_v0"
    view_module = "rummy_env.romme.view"  # its view for people's screens (Game.view)
    vector_module = "rummy_env.romme.vector"  # VectorRomme, or the pure hands in a loop without numba
    training_module = "rummy_env.train.games.romme"  # its training adapter (rummy train): the network with advice
    min_players, max_players = MIN_PLAYERS, MAX_PLAYERS
    deck_size = MAX_PHYSICAL  # 110 physical cards with the default 6 jokers
    num_actions = NUM_ACTIONS
    state_type = RommeState
    information_set_type = RommeInformationSet
    outcomes = OUTCOMES
    rules_type = RommeRules
    default_preset = DEFAULT_PRESET
    presets = PRESETS
    encodings = encoding.ENCODINGS
    state_size = encoding.STATE_SIZE
    hand_cost = 3  # a random hand is 100 to 400 moves, each checked by the exact solver
    shortcuts = text.SHORTCUTS  # the letters typed for its moves (rummy play)
    rules_summary = text.RULES_SUMMARY  # the rules in brief, for a language model (the llm agent)
    # its text view at 6 players (the hands, 16 melds on the table, the piles, whose turn); more is drawn smaller
    frame_lines = 25
    # a hand played out (benchmarks/bench_playouts.py, 2 to 6 players): the heuristic (and its levels) 15 to
    # 30 ms, random 20 to 50 ms (a 2-player hand sometimes over 0.1 s: random play rarely goes out)
    playout_seconds = MappingProxyType({"heuristic": 0.03, "*": 0.06})
    # the search's rounds of any size on the engine: there the compiled heuristic plays a round of a few
    # playouts faster than Python plays one (``expert`` 0.03 s a move on the engine, 0.19 in Python and
    # 0.11 with rounds under 16 in Python, 2 players; benchmarks/bench_playouts.py --search expert)
    engine_playout_rows = 1

    def load_rules(self, spec: Any = None) -> Any:
        return load_romme_rules(spec)

    def deck_size_of(self, rules: Any) -> int:
        return num_physical(self.load_rules(rules))

    def card_kind(self, card: int, rules: Any = None) -> int:
        """A physical card's kind (``rummy_env.romme.cards.kind_of``): the two copies of a card
        are one kind, and so are the jokers."""
        return kind_of(card)

    def deal(self, rules: Any, num_players: int, *, seed: Seed = None, deck: Optional[Sequence[int]] = None,
             dealer: Optional[int] = None) -> RommeState:
        if deck is not None:
            return RommeState.from_deck(deck, num_players, rules, dealer)
        return RommeState.new_hand(num_players, rules, seed, dealer)

    def new_match(self, rules: Any, num_players: int, first_dealer: Optional[int] = None) -> RommeTable:
        return RommeTable.create(num_players, rules, first_dealer)

    def match_goal(self, rules: Any) -> str:
        """``'8 hands'``, ``'8 hands or a total of -500'`` or ``'a total of -500'``: what ends a table."""
        r = self.load_rules(rules)
        ends = [f"{r.hands_per_table} hands"] if r.hands_per_table else []
        if r.loss_limit:
            ends.append(f"a total of -{r.loss_limit}")
        return " or ".join(ends)

    def state_vector(self, state: Any) -> np.ndarray:
        return encoding.state_vector(state)

    def action_name(self, action: int, rules: Any = None) -> str:
        return action_name(action)

    def describe_move(self, action: int, rules: Any = None) -> str:
        return text.describe_move(action)

    def explain(self, result: Mapping[str, Any], names: Sequence[str]) -> str:
        return text.explain(result, names)


ROMME = register_game(Romme())
