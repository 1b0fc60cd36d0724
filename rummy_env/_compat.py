"""Module paths of 0.1 that moved in 0.2, kept working with a warning.

Why: 0.1 had a flat package (``rummy_env.game``, ``rummy_env.rules``, ...) and three
top-level packages (``agents``, ``train``, ``eval``) whose short names clash with a
user's own ``train.py`` or ``agents/`` folder. 0.2 has one namespace, a ``core`` package
and one package per game, and never imports the old names itself. Code written against
the old ``rummy_env.*`` names keeps working: ``from rummy_env.game import GinRummyState``
gives the very same module object as the new path (not a copy, so classes and
registries are shared), with a ``DeprecationWarning`` naming the new path.

The top-level ``agents``, ``train`` and ``eval`` of 0.1 were deprecated aliases in 0.2
and are gone since, as 0.2 announced: installing packages of those names was the very
clash the move ended, so the package installs only ``rummy_env``. They stay in ``MOVED``
and ``PREFIXES`` as the record of where they went (the changelog's table of 0.2 is made
from it) but are not served (``SERVED``).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from types import ModuleType
from typing import Optional, Sequence, Union

# old module -> new module (0.1 -> 0.2), or the modules its names were split into
MOVED: dict[str, Union[str, tuple[str, ...]]] = {
    "rummy_env.cards": "rummy_env.core.cards",
    "rummy_env.melds": "rummy_env.core.melds",
    "rummy_env.melds_jit": "rummy_env.core.melds_jit",
    "rummy_env.aec_base": "rummy_env.core.aec",
    "rummy_env.rules": "rummy_env.gin.rules",
    "rummy_env.game": "rummy_env.gin.game",
    "rummy_env.scoring": "rummy_env.gin.scoring",
    "rummy_env.match": "rummy_env.gin.match",
    "rummy_env.encoding": "rummy_env.gin.encoding",
    "rummy_env.vector": "rummy_env.gin.vector",
    "rummy_env.gym_env": "rummy_env.gym.gin",
    "rummy_env.rummy_rules": "rummy_env.basic.rules",
    "rummy_env.rummy_game": ("rummy_env.basic.game", "rummy_env.basic.match", "rummy_env.core.meld_table"),
    "rummy_env.rummy_encoding": "rummy_env.basic.encoding",
    "agents": "rummy_env.agents",
    "agents.base": "rummy_env.agents.base",
    "agents.registry": "rummy_env.agents.registry",
    "agents.arena": "rummy_env.agents.arena",
    "agents.random_agent": "rummy_env.agents.gin.random_agent",
    "agents.rummy_agents": "rummy_env.agents.basic.agents",
    **{f"agents.{m}": f"rummy_env.agents.gin.{m}" for m in (
        "simple", "heuristic", "heuristic_vector", "heuristic_jit", "heuristic_features", "belief", "mcts", "ppo",
        "human")},
    "train.model": ("rummy_env.agents.gin.network", "rummy_env.train.ppo_loss"),  # masked_entropy: ppo_loss
}
PREFIXES = {"train": "rummy_env.train", "eval": "rummy_env.eval"}  # every submodule kept its name
SERVED = "rummy_env."  # the old names still imported: those inside the package


def new_names(old: str) -> tuple[str, ...]:
    """The 0.2 module(s) holding what the 0.1 module ``old`` held; () if it did not move."""
    if old in MOVED:
        new = MOVED[old]
        return (new,) if isinstance(new, str) else new
    head, _, rest = old.partition(".")
    if head in PREFIXES:
        return (PREFIXES[head] + ("." + rest if rest else ""),)
    return ()


def _warn(old: str, new: str) -> None:
    text = f"module {old!r} is deprecated and will be removed in the next release: import {new!r} instead"
    warnings.warn(text, DeprecationWarning, stacklevel=4)


class _MovedFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Resolves a 0.1 module name to its 0.2 module (which is imported under its own name)."""

    def find_spec(self, fullname: str, path: Optional[Sequence[str]], target: Optional[ModuleType] = None):
        if not fullname.startswith(SERVED) or not new_names(fullname):
            return None  # a user's own agents/ or train.py is theirs: the old top-level names are not served
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        new = new_names(spec.name)
        _warn(spec.name, " and ".join(new))
        modules = [importlib.import_module(name) for name in new]
        if len(modules) == 1:
            return modules[0]
        merged = ModuleType(spec.name, f"Deprecated: the names of {', '.join(new)}.")
        for module in reversed(modules):  # the first module's names win
            merged.__dict__.update({k: v for k, v in vars(module).items() if not k.startswith("__")})
        return merged

    def exec_module(self, module: ModuleType) -> None:
        """The module was executed under its new name already."""


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once): before the path finder, which would
    otherwise load a second copy of ``rummy_env/agents/...`` under the old name."""
    if not any(isinstance(f, _MovedFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _MovedFinder())
