"""Basic Rummy agents, registered on import: ``rummy-random`` and ``rummy-heuristic``."""

from rummy_env.agents.basic.agents import RummyHeuristicAgent, RummyRandomAgent
from rummy_env.agents.registry import register

register("rummy-random", RummyRandomAgent)
register("rummy-heuristic", RummyHeuristicAgent)

__all__ = ["RummyHeuristicAgent", "RummyRandomAgent"]
