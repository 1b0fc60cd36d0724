"""Deprecated: Basic Rummy's env is ``rummy_env.basic_rummy_v0`` (one name per game, as
``gin_rummy_v0`` and ``romme_v0``, and the Gymnasium id ``rummy_env/BasicRummy-v0``).

This old name gives the very same ``env``, ``raw_env`` and ``IllegalActionError``, with a
``DeprecationWarning``, for one release.
"""

import warnings

from rummy_env.basic_rummy_v0 import IllegalActionError, env, raw_env

warnings.warn("rummy_env.rummy_v0 is deprecated and will be removed in the next release: "
              "use rummy_env.basic_rummy_v0 (the same env)", DeprecationWarning, stacklevel=2)

__all__ = ["env", "raw_env", "IllegalActionError"]
