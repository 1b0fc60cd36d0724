"""Basic Rummy agents, registered on import for game ``basic``: ``random``, ``heuristic``
and ``ppo`` (a trained network; torch is imported only when one is made). Their 0.2
names ``rummy-random``, ``rummy-heuristic`` and ``rummy-ppo`` are deprecated aliases."""

from rummy_env.agents.basic.agents import RummyHeuristicAgent, RummyRandomAgent
from rummy_env.agents.basic.ppo import RummyPPOAgent
from rummy_env.agents.registry import register, register_alias, register_level

for _name, _factory in (("random", RummyRandomAgent), ("heuristic", RummyHeuristicAgent), ("ppo", RummyPPOAgent)):
    register(_name, _factory)
    register_alias(f"rummy-{_name}", "basic", _name)

# each beats the one below at 2 and 4 players (docs/agents.md#levels); medium is the heuristic
# without its partial-meld and danger terms; expert the learned network (the train extra)
for _level, _spec in (("easy", "random"), ("medium", "heuristic:partial_weight=0,danger_weight=0"), ("hard", "heuristic"),
                      ("expert", "ppo")):
    register_level("basic", _level, _spec)

__all__ = ["RummyHeuristicAgent", "RummyPPOAgent", "RummyRandomAgent"]
