"""Agents behind one interface: ``agents.make(spec, game=...).act(observation, info) -> action``.

A new agent is one module: a subclass of ``Agent`` naming its ``game``, and a call to
``register("name", TheAgent)`` when the module is imported; an agent written once over
the game interface registers for every game with ``register_generic``.

Names say the kind of agent; the game comes from where it is used (``make(spec,
game="basic")``, a tournament's ``game``, ``--game``), Gin Rummy when none is named.
Every game has ``random`` and ``heuristic`` (scripted, strong); Gin Rummy also ``simple``
(the EAAI-2021 baseline), ``mcts`` (Monte Carlo search with its opponent model), ``ppo``
(a trained network; needs torch, imported only when one is made) and
``openspiel-simple``; Basic Rummy also ``ppo``. Each game's levels ``easy`` < ``medium`` <
``hard`` < ``expert`` (``levels(game)``) name its agents at measured strengths. Options
follow a colon: ``make("mcts:simulations=400")``. An agent takes exactly what its game's
env's ``last()`` returns for its player. ``available(game="basic")`` lists one game's
names.
"""

from rummy_env.agents.base import Agent, game_input, legal_actions
from rummy_env.agents.registry import (
    LEVEL_NAMES, Resolved, available, default_opponent, factory_of, levels, make, parse_spec, plays, register, register_alias,
    register_generic, register_level, resolve, seed_of,
)
from rummy_env.agents.human import human_player, register_human
from rummy_env.agents.gin import HeuristicAgent, MCTSAgent, PPOAgent, RandomAgent, SimpleAgent  # registers them
from rummy_env.agents.basic import RummyHeuristicAgent, RummyPPOAgent, RummyRandomAgent  # registers them
from rummy_env.agents.romme import RommeRandomAgent  # registers it
from rummy_env.agents.sb3_policy import SB3PolicyAgent  # registers sb3, for every game
from rummy_env.agents.search import SearchAgent  # registers search, for every game
from rummy_env.agents.llm import LLMAgent  # registers llm, for every game (a language model; the llm extra)
from rummy_env.agents.mlp_policy import MLPPolicyAgent  # registers ppo for the games without their own

__all__ = [
    "Agent", "HeuristicAgent", "LEVEL_NAMES", "LLMAgent", "MCTSAgent", "MLPPolicyAgent", "PPOAgent", "RandomAgent", "Resolved", "RommeRandomAgent",
    "RummyHeuristicAgent", "RummyPPOAgent", "RummyRandomAgent", "SB3PolicyAgent", "SearchAgent", "SimpleAgent",
    "available", "default_opponent", "factory_of", "game_input", "human_player", "legal_actions", "levels", "make",
    "parse_spec", "plays", "register", "register_alias", "register_generic", "register_human", "register_level", "resolve",
    "seed_of",
]
