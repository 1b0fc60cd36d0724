"""Gin Rummy as a PettingZoo AEC env: ``gin_rummy_v0.env()`` / ``raw_env()``.

The public name, as PettingZoo's ``pettingzoo.classic.gin_rummy_v4`` is; the env lives in
``rummy_env.gin.env``, whose docstring is its documentation page.
"""

from rummy_env.gin.env import IllegalActionError, env, raw_env

__all__ = ["env", "raw_env", "IllegalActionError"]
