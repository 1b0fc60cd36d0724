"""Basic Rummy for 2 to 4 players as a PettingZoo AEC env: ``basic_rummy_v0.env(num_players=N)``.

The public name; the env lives in ``rummy_env.basic.env``, whose docstring is its
documentation page.
"""

from rummy_env.basic.env import IllegalActionError, env, raw_env

__all__ = ["env", "raw_env", "IllegalActionError"]
