"""Rommé agents, registered on import for game ``romme``: ``random``, ``heuristic`` and
``ppo`` (a trained network; torch is imported only when one is made). Its levels also use
the generic ``search``.
Their 0.2 names ``romme-random`` and ``romme-heuristic`` are deprecated aliases."""

from rummy_env.agents.registry import register, register_alias, register_level
from rummy_env.agents.romme.agents import RommeHeuristicAgent, RommeRandomAgent
from rummy_env.agents.romme.ppo import RommePPOAgent
from rummy_env.agents.search import SearchAgent  # noqa: F401 (registers search, the agent of the expert level)

for _name, _factory in (("random", RommeRandomAgent), ("heuristic", RommeHeuristicAgent)):
    register(_name, _factory)
    register_alias(f"romme-{_name}", "romme", _name)
register("ppo", RommePPOAgent)  # Rommé's own network (rummy_env.agents.romme.network), not the generic MLP

# each beats the one below at 2 and 4 players (docs/agents.md#levels); medium is the heuristic
# without its partial-meld and danger terms; expert the generic search, its playouts cut at
# 16 moves (about 0.2 s a move)
for _level, _spec in (("easy", "random"), ("medium", "heuristic:partial_weight=0,danger_weight=0"), ("hard", "heuristic"),
                      ("expert", "search:simulations=48,depth=16,confidence=1.5")):
    register_level("romme", _level, _spec)

__all__ = ["RommeHeuristicAgent", "RommePPOAgent", "RommeRandomAgent"]
