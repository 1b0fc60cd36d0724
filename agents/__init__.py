"""Agents behind one interface: ``agents.make(spec).act(observation, info) -> action``.

Names: ``random``, ``simple`` (the EAAI-2021 baseline), ``heuristic`` (scripted, strong),
``mcts`` (Monte Carlo search over determinised information sets), and the levels
``easy``, ``medium``, ``hard``, ``expert``. Options follow a colon:
``make("mcts:simulations=400")``. An agent takes exactly what ``gin_rummy_v0``'s
``last()`` returns for its player.
"""

from agents.base import Agent, legal_actions
from agents.heuristic import HeuristicAgent
from agents.mcts import MCTSAgent
from agents.random_agent import RandomAgent
from agents.registry import LEVELS, available, make, parse_spec, register
from agents.simple import SimpleAgent

register("random", RandomAgent)
register("simple", SimpleAgent)
register("heuristic", HeuristicAgent)
register("mcts", MCTSAgent)

__all__ = [
    "Agent", "HeuristicAgent", "LEVELS", "MCTSAgent", "RandomAgent", "SimpleAgent",
    "available", "legal_actions", "make", "parse_spec", "register",
]
