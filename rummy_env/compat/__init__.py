"""Drop-ins for environments other libraries shipped and removed, played on this library's
engines: ``gin_rummy_v4`` is PettingZoo's ``pettingzoo.classic.gin_rummy_v4`` (RLCard's gin
rummy, removed in PettingZoo 1.27), so code written for it runs after changing its import
line to ``from rummy_env.compat import gin_rummy_v4`` (docs/compat.md)."""

from rummy_env.compat import gin_rummy_v4

__all__ = ["gin_rummy_v4"]
