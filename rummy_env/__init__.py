"""rummy_env: exact, fast Gin Rummy environments for reinforcement-learning research.

Layers (each uses only the ones above it): ``cards`` (ids, masks, text), ``melds`` (the
exact batch meld solver), ``rules`` (options and presets), ``game`` (one hand, the single
source of truth for the rules), ``match`` (hands added up to a target), ``encoding``
(observations from information sets), ``gin_rummy_v0`` (the PettingZoo AEC env),
``vector`` (many hands stepped as arrays) and ``gym_env`` (Gymnasium single-agent and
vector views; ``gymnasium.make("rummy_env/GinRummy-v0", opponent="random")`` is
registered on import).
Basic Rummy for 2-4 players: ``rummy_rules``, ``rummy_game`` (the pure game and
matches), ``rummy_encoding`` and ``rummy_v0`` (the PettingZoo AEC env:
``rummy_v0.env(num_players=N)``).
Importing this package is light: it never imports torch.
"""

import gymnasium as _gymnasium

__version__ = "0.2.0"

if "rummy_env/GinRummy-v0" not in _gymnasium.registry:
    _gymnasium.register(id="rummy_env/GinRummy-v0", entry_point="rummy_env.gym_env:GinRummyEnv")
