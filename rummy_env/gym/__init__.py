"""Gymnasium views: one seat learns, the others are agents of the registry.

A layer above the agents (a view seats agents as opponents, by spec or as array
versions), so it lives apart from the games:

- ``rummy_env.gym.view``: ``SingleSeatEnv``, the single-seat view of any registered game,
  written once over the game interface. Every game gets it under the Gymnasium id
  ``env_id(game)``: ``rummy_env/`` and the game's title in ASCII letters and digits, each
  word capitalised, then ``-v0`` (``rummy_env/GinRummy-v0``, ``rummy_env/BasicRummy-v0``,
  ``rummy_env/Romme-v0``). ``register_views()`` registers the ids of every registered game
  (``import rummy_env`` does it for the games known then; a game registered later is added
  by calling it again).
- ``rummy_env.gym.gin``: Gin Rummy's ``GinRummyEnv`` (that view with Gin's defaults) and its
  vector counterpart on the vector engine, ``VectorGinRummyEnv``.
- ``rummy_env.gym.policy_file``: ``save_policy``, a trained MaskablePPO policy as a
  weights-only file that the ``sb3`` agent plays in tournaments, ``rummy play`` and the web
  app (``rummy_env.agents.sb3_policy``).
"""

from __future__ import annotations

import re
import unicodedata
import warnings
from typing import Any, Union

VERSION = 0  # the views' version: the ``-v0`` of their ids
ENTRY_POINT = "rummy_env.gym.view:SingleSeatEnv"


def __getattr__(name: str) -> Any:
    """``save_policy``, imported when first asked for (it needs torch and Stable-Baselines3)."""
    if name == "save_policy":
        from rummy_env.gym.policy_file import save_policy

        return save_policy
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def env_id(game: Union[str, Any]) -> str:
    """The Gymnasium id of ``game``'s single-seat view (a registered name or a ``Game``):
    ``rummy_env/`` + its title folded to ASCII, words capitalised and joined, + ``-v0``."""
    from rummy_env.core.game import get_game

    title = unicodedata.normalize("NFKD", get_game(game).title).encode("ascii", "ignore").decode()
    words = re.findall(r"[A-Za-z0-9]+", title)
    return f"rummy_env/{''.join(w[:1].upper() + w[1:] for w in words)}-v{VERSION}"


def register_views() -> list[str]:
    """Register the single-seat view of every registered game with Gymnasium, under
    ``env_id(game)`` (ids already registered are left as they are); returns the ids.
    ``gymnasium.make(id, **options)`` then passes the options to ``SingleSeatEnv``."""
    import gymnasium

    from rummy_env.core.game import games

    ids = []
    for name in games():
        found = env_id(name)
        spec = gymnasium.registry.get(found)
        if spec is None:
            gymnasium.register(id=found, entry_point=ENTRY_POINT, kwargs={"game": name})
        elif spec.entry_point != ENTRY_POINT or spec.kwargs.get("game") != name:
            warnings.warn(f"the Gymnasium id {found!r} is taken by {spec.entry_point} {spec.kwargs}: the game {name!r} "
                          f"gets no id (use rummy_env.gym.view.SingleSeatEnv({name!r}))", RuntimeWarning, stacklevel=2)
            continue
        ids.append(found)
    return ids
