"""Agents behind one interface: ``agents.make(spec).act(observation, info) -> action``.

Names: ``random``, ``simple`` (the EAAI-2021 baseline), ``heuristic`` (scripted, strong),
``mcts`` (Monte Carlo search over determinised information sets), ``ppo`` (a trained
network; needs torch, imported only when one is made), and the levels
``easy``, ``medium``, ``hard``, ``expert``. Options follow a colon:
``make("mcts:simulations=400")``. An agent takes exactly what ``gin_rummy_v0``'s
``last()`` returns for its player.

Basic Rummy (``rummy_v0``, 2-4 players) has its own agents, named so they cannot be
confused with the Gin ones: ``rummy-random`` and ``rummy-heuristic``
(``agents.rummy_agents``). They carry ``game = "rummy"``; Gin agents have no ``game``.
"""

from rummy_env.agents.base import Agent, legal_actions
from rummy_env.agents.gin.heuristic import HeuristicAgent
from rummy_env.agents.gin.mcts import MCTSAgent
from rummy_env.agents.gin.ppo import PPOAgent
from rummy_env.agents.random_agent import RandomAgent
from rummy_env.agents.registry import LEVELS, available, make, parse_spec, register
from rummy_env.agents.basic.agents import RummyHeuristicAgent, RummyRandomAgent
from rummy_env.agents.gin.simple import SimpleAgent

register("random", RandomAgent)
register("simple", SimpleAgent)
register("heuristic", HeuristicAgent)
register("mcts", MCTSAgent)
register("rummy-random", RummyRandomAgent)
register("rummy-heuristic", RummyHeuristicAgent)
register("ppo", PPOAgent)

__all__ = [
    "Agent", "HeuristicAgent", "LEVELS", "MCTSAgent", "PPOAgent", "RandomAgent", "RummyHeuristicAgent", "RummyRandomAgent",
    "SimpleAgent",
    "available", "legal_actions", "make", "parse_spec", "register",
]
