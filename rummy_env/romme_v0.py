"""Rommé for 2 to 6 players as a PettingZoo AEC env: ``romme_v0.env(num_players=N)``.

The public name; the env lives in ``rummy_env.romme.env``, whose docstring is its
documentation page.
"""

from rummy_env.romme.env import IllegalActionError, env, raw_env

__all__ = ["env", "raw_env", "IllegalActionError"]
