"""The one interface every player implements: ``act(observation, info) -> action``.

An agent receives exactly what the AEC env's ``last()`` returns for its player: the
observation dict (``observation``, ``action_mask``) and the info dict, whose
``information_set`` (the game's, e.g. ``rummy_env.gin.game.InformationSet``) and
``rules`` carry everything the player may know. Every agent names the game it plays
(``game``), and ``game_input`` refuses another game's input. It never sees the game state, so it cannot peek; tests change the
cards it cannot see and check that its action does not change.

Random choices: an agent has a generator (``rng``) and, for the choices its array version
must make too, a 64-bit ``key`` and a decision counter (``next_decision``): such a choice
is a pure function of the key, the decision index and the option
(``rummy_env.agents.draws``), so the agent one game at a time and its array policy
(``batch_policy``, many games at once) make the same moves by construction.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from types import MappingProxyType
from typing import Any, ClassVar, Mapping, Optional

import numpy as np

from rummy_env.agents.draws import key_of
from rummy_env.core.game import BatchPolicy, games, get_game
from rummy_env.core.masks import mask_ids


class Agent(ABC):
    """A player. Seeded: the same seed and the same inputs give the same actions."""

    name: str = "agent"
    game: str  # the registered game it plays (``rummy_env.core.game``), e.g. "gin"
    extra: Optional[str] = None  # the pip extra it needs beyond rummy-env itself ("train": torch); None: none
    # What a server may take from its clients (``rummy_env.web.choices``): an option naming a
    # file is never taken from one, and an option that buys thinking time is bounded by the
    # server's limit; ``budgets`` gives each such option's rough cost in seconds per unit
    # (``time``: 1.0), measured on a 2-core machine, so one server limit bounds every agent.
    file_options: ClassVar[tuple[str, ...]] = ()
    # options it cannot be made without (the ``sb3`` agent's file): lists of agents to pick
    # from as they are (the web app's, training opponents) leave such an agent out
    required_options: ClassVar[tuple[str, ...]] = ()
    # options a spec may never give, each with why and what to do instead (the ``llm`` agent's
    # ``api_key``: specs are written to results files); ``resolve`` refuses them by name,
    # never repeating the value
    refused_options: ClassVar[Mapping[str, str]] = MappingProxyType({})
    budgets: ClassVar[Mapping[str, float]] = MappingProxyType({})

    @classmethod
    def costs(cls, game: str, options: Mapping[str, Any]) -> Mapping[str, float]:
        """``budgets`` for this agent playing ``game`` with ``options`` (the spec's, over the
        defaults): the same in every game unless a class knows better (a search's playout
        costs what its game's hand does, ``Game.playout_seconds``)."""
        return cls.budgets

    def __init__(self, seed: Optional[int] = None) -> None:
        self.rng = np.random.default_rng(seed)
        self.key = key_of(seed)  # the counter-based draws' key (rummy_env.agents.draws)
        self.decision_index = 0  # decisions made since made or re-seeded

    def reset(self, seed: Optional[int] = None) -> None:
        """Start afresh (a new game or match); with ``seed``, re-seed the agent's generator
        and its counter-based draws (key from the seed, decisions counted from 0). Without
        a seed the draws go on from where they are, so the next game is not a copy."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)
            self.key = key_of(seed)
            self.decision_index = 0

    def next_decision(self) -> int:
        """The index of the decision being made (0 for the first), counting it: agents with
        an array version call it once per ``act``, as the batch player counts each
        seat's decisions, so both draw the same numbers (``rummy_env.agents.draws``)."""
        index = self.decision_index
        self.decision_index += 1
        return index

    def stats(self) -> Optional[dict[str, Any]]:
        """The agent's own counts over its life (numbers by name, such as the ``llm`` agent's
        requests and fallbacks), or None (the default: none). A tournament writes them per
        game into results.jsonl and sums them per agent in its summary and report
        (docs/tournaments.md); an agent made for each game counts that game."""
        return None

    def batch_policy(self) -> Optional[BatchPolicy]:
        """This agent's moves as array operations over many games of its game's batch engine
        (``rummy_env.core.game.BatchPolicy``), equal to ``act``'s move for move; None (the
        default) when it has none, so tournaments play its games one at a time."""
        return None

    @abstractmethod
    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        """The action id to play, given the player's observation and info."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


def legal_actions(observation: dict[str, np.ndarray]) -> np.ndarray:
    """Legal action ids from the observation's mask (refuses an empty mask)."""
    legal = mask_ids(observation["action_mask"])
    if legal.size == 0:
        raise ValueError("act() called with an empty action mask: this player is not to move")
    return legal


def game_input(agent: Agent, observation: dict[str, np.ndarray], info: dict[str, Any],
               needs_information: bool = True) -> tuple[Any, Any]:
    """The information set and rules an agent reads from its input, checked to be its
    game's (``agent.game``): an action id means nothing in another game's layout, so
    another game's input is refused naming the agents that play it. Agents that need only
    the mask (``random``) pass ``needs_information=False``: then a missing information set
    or rules is fine, and what is there is still checked."""
    game = get_game(agent.game)
    mask = observation.get("action_mask") if isinstance(observation, dict) else None
    infoset, rules = (info.get("information_set"), info.get("rules")) if isinstance(info, dict) else (None, None)
    problem = None
    if (infoset is not None or needs_information) and not isinstance(infoset, game.information_set_type):
        got = "no information_set" if infoset is None else type(infoset).__name__
        problem = f"info['information_set'] should be {game.title}'s {game.information_set_type.__name__}, got {got}"
    elif (rules is not None or needs_information) and not isinstance(rules, game.rules_type):
        got = "no rules" if rules is None else type(rules).__name__
        problem = f"info['rules'] should be {game.title}'s {game.rules_type.__name__}, got {got}"
    elif mask is not None and np.shape(mask) != (game.num_actions,):
        problem = f"the action mask must have shape ({game.num_actions},), got {np.shape(mask)}"
    if problem:
        raise TypeError(f"agent {agent.name!r} plays {game.title}: pass the observation and info that "
                        f"{game.env_name}'s last() returns ({problem}){_other_game_hint(game, infoset, rules, mask)}")
    return infoset, rules


def _other_game_hint(game: Any, infoset: Any, rules: Any, mask: Any) -> str:
    """"; for Basic Rummy (basic_rummy_v0) make the agent with game='basic' (...)" when the input is another game's."""
    for other in (get_game(name) for name in games()):
        if other.name != game.name and (
                isinstance(infoset, other.information_set_type) or isinstance(rules, other.rules_type)
                or (infoset is None and mask is not None and np.shape(mask) == (other.num_actions,))):
            return (f"; for {other.title} ({other.env_name}) make the agent with game={other.name!r} (--game {other.name}; "
                    f"agents.available({other.name!r}) lists its agents)")
    return ""
