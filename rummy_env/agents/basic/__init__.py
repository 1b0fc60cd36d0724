"""Basic Rummy agents, registered on import: ``rummy-random``, ``rummy-heuristic`` and
``rummy-ppo`` (a trained network; torch is imported only when one is made)."""

from rummy_env.agents.basic.agents import RummyHeuristicAgent, RummyRandomAgent
from rummy_env.agents.basic.ppo import RummyPPOAgent
from rummy_env.agents.registry import register

register("rummy-random", RummyRandomAgent)
register("rummy-heuristic", RummyHeuristicAgent)
register("rummy-ppo", RummyPPOAgent)

__all__ = ["RummyHeuristicAgent", "RummyPPOAgent", "RummyRandomAgent"]
