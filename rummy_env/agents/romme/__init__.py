"""Rommé agents, registered on import for game ``romme``: ``random`` and ``heuristic``.
Their 0.2 names ``romme-random`` and ``romme-heuristic`` are deprecated aliases."""

from rummy_env.agents.registry import register, register_alias, register_level
from rummy_env.agents.romme.agents import RommeHeuristicAgent, RommeRandomAgent

for _name, _factory in (("random", RommeRandomAgent), ("heuristic", RommeHeuristicAgent)):
    register(_name, _factory)
    register_alias(f"romme-{_name}", "romme", _name)

# each beats the one below at 2 and 4 players (docs/agents.md#levels); medium is the heuristic
# without its partial-meld and danger terms; no expert until one is measured to beat hard
for _level, _spec in (("easy", "random"), ("medium", "heuristic:partial_weight=0,danger_weight=0"), ("hard", "heuristic")):
    register_level("romme", _level, _spec)

__all__ = ["RommeHeuristicAgent", "RommeRandomAgent"]
