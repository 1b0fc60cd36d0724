"""Gymnasium views: one seat learns, the others are agents of the registry.

A layer above the agents (a view seats agents as opponents, by spec or as array
versions), so it lives apart from the games: ``rummy_env.gym.gin`` holds Gin Rummy's
single-agent env (``gymnasium.make("rummy_env/GinRummy-v0", opponent=...)``) and its
vector counterpart on the vector engine.
"""
