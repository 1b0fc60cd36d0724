"""Basic Rummy agents, registered on import for game ``basic``: ``random``, ``heuristic``
and ``ppo`` (a trained network; torch is imported only when one is made). Their 0.2
names ``rummy-random``, ``rummy-heuristic`` and ``rummy-ppo`` are deprecated aliases. Its
levels also use the generic ``search``."""

from rummy_env.agents.basic.agents import RummyHeuristicAgent, RummyRandomAgent
from rummy_env.agents.basic.ppo import RummyPPOAgent
from rummy_env.agents.registry import register, register_alias, register_level
from rummy_env.agents.search import SearchAgent  # noqa: F401 (registers search, the agent of the expert level)

for _name, _factory in (("random", RummyRandomAgent), ("heuristic", RummyHeuristicAgent), ("ppo", RummyPPOAgent)):
    register(_name, _factory)
    register_alias(f"rummy-{_name}", "basic", _name)

# each beats the one below at 2 and 4 players (docs/agents.md#levels); medium is the heuristic
# without its partial-meld and danger terms; expert the generic search, which beats hard by more
# than the learned ppo does and beats ppo itself (about 0.13 s a move; needs no extra)
for _level, _spec in (("easy", "random"), ("medium", "heuristic:partial_weight=0,danger_weight=0"), ("hard", "heuristic"),
                      ("expert", "search:simulations=100,confidence=1.5")):
    register_level("basic", _level, _spec)

__all__ = ["RummyHeuristicAgent", "RummyPPOAgent", "RummyRandomAgent"]
