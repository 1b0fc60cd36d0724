"""Deprecated: use ``from rummy_env import agents``. This alias is removed in the next release."""

from rummy_env._compat import alias

alias("agents")
