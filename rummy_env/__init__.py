"""rummy_env: exact, fast rummy-family card games for reinforcement-learning research.

The layers, each using only the ones before it:

- ``rummy_env.core``: cards, meld tables and the exact batch meld solver, rule files,
  the PettingZoo AEC base, rendering, and the game interface with its registry
  (``rummy_env.core.game``: ``get_game("gin")``, ``games()``).
- one package per game: ``rummy_env.gin`` (Gin Rummy: rules, pure game, scoring,
  matches, encodings, env, vector engine), ``rummy_env.basic`` (Basic Rummy for 2-4
  players) and ``rummy_env.romme`` (Rommé for 2-6 players, two decks and jokers). The envs
  are public as ``rummy_env.gin_rummy_v0``, ``rummy_env.basic_rummy_v0`` and ``rummy_env.romme_v0``.
- ``rummy_env.agents``: one ``Agent`` interface, a registry of specs, agents per game.
- ``rummy_env.gym``: Gymnasium views, one seat against agents, for every game;
  ``gymnasium.make("rummy_env/GinRummy-v0", opponent=...)``, ``rummy_env/BasicRummy-v0`` and
  ``rummy_env/Romme-v0`` are registered on import.
- ``rummy_env.train``: masked PPO on the Gin vector engine (needs torch).
- ``rummy_env.eval``: tournaments over duplicate deals, for every registered game.
- ``rummy_env.cli``: the ``rummy`` command.

Importing this package is light: it never imports torch. The 0.1 module paths inside the
package (``rummy_env.game``, ...) still work, with a warning (``rummy_env._compat``); the
top-level ``agents``, ``train`` and ``eval`` of 0.1 are gone.
"""

from rummy_env import _compat
from rummy_env import gym as _gym
from rummy_env.core.game import provide_games

__version__ = "0.2.0"

_compat.install()
provide_games("rummy_env.gin.interface")
provide_games("rummy_env.basic.interface")
provide_games("rummy_env.romme.interface")

_gym.register_views()  # rummy_env/GinRummy-v0, rummy_env/BasicRummy-v0, ... (rummy_env.gym.env_id)
