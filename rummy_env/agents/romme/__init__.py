"""Rommé agents, registered on import: ``romme-random``."""

from rummy_env.agents.registry import register
from rummy_env.agents.romme.agents import RommeRandomAgent

register("romme-random", RommeRandomAgent)

__all__ = ["RommeRandomAgent"]
