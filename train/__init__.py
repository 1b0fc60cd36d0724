"""Deprecated: use ``from rummy_env import train``. This alias is removed in the next release."""

from rummy_env._compat import alias

alias("train")
