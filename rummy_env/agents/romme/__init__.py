"""Rommé agents, registered on import: ``romme-random`` and ``romme-heuristic``."""

from rummy_env.agents.registry import register
from rummy_env.agents.romme.agents import RommeHeuristicAgent, RommeRandomAgent

register("romme-random", RommeRandomAgent)
register("romme-heuristic", RommeHeuristicAgent)

__all__ = ["RommeHeuristicAgent", "RommeRandomAgent"]
