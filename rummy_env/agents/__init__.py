"""Agents behind one interface: ``agents.make(spec).act(observation, info) -> action``.

A new agent is one module: a subclass of ``Agent`` naming its ``game``, and a call to
``register("name", TheAgent)`` when the module is imported.

Names: ``random``, ``simple`` (the EAAI-2021 baseline), ``heuristic`` (scripted, strong),
``mcts`` (Monte Carlo search over determinised information sets), ``ppo`` (a trained
network; needs torch, imported only when one is made), and the levels
``easy``, ``medium``, ``hard``, ``expert``. Options follow a colon:
``make("mcts:simulations=400")``. An agent takes exactly what its game's env's
``last()`` returns for its player.

Basic Rummy (``rummy_v0``, 2-4 players) has its own agents, named so they cannot be
confused with the Gin ones: ``rummy-random``, ``rummy-heuristic`` and ``rummy-ppo`` (a
trained network; torch imported only when one is made) (``rummy_env.agents.basic``). Every agent says which game it plays (``game``, a name of
the game registry); ``available(game="basic")`` lists those of one game. Rommé
(``romme_v0``, 2-6 players) has ``romme-random`` (``rummy_env.agents.romme``).
"""

from rummy_env.agents.base import Agent, game_input, legal_actions
from rummy_env.agents.registry import (
    LEVELS, available, default_opponent, human_player, make, parse_spec, plays, register, register_human, register_level,
    resolve, seed_of,
)
from rummy_env.agents.gin import HeuristicAgent, MCTSAgent, PPOAgent, RandomAgent, SimpleAgent  # registers them
from rummy_env.agents.basic import RummyHeuristicAgent, RummyPPOAgent, RummyRandomAgent  # registers them
from rummy_env.agents.romme import RommeRandomAgent  # registers it

__all__ = [
    "Agent", "HeuristicAgent", "LEVELS", "MCTSAgent", "PPOAgent", "RandomAgent", "RommeRandomAgent", "RummyHeuristicAgent", "RummyPPOAgent", "RummyRandomAgent",
    "SimpleAgent",
    "available", "default_opponent", "game_input", "human_player", "legal_actions", "make", "parse_spec", "plays", "register",
    "register_human", "register_level", "resolve", "seed_of",
]
