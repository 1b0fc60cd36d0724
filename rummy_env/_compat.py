"""The pre-0.2 top-level packages ``agents``, ``train`` and ``eval``, kept for one release.

Why: those short names clash with a user's own ``train.py`` or ``agents/`` folder (the
working directory comes first on ``sys.path``), so the library now lives in one
namespace (``rummy_env.agents``, ``rummy_env.train``, ``rummy_env.eval``) and never imports
the old names itself. Code written against the old names keeps working: ``import agents``
and ``from agents.heuristic import HeuristicAgent`` give the very same module objects as
the new paths (not copies, so classes and registries are shared), with a
``DeprecationWarning``.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings
from types import ModuleType
from typing import Optional, Sequence


class _AliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Resolves ``OLD.sub`` to the already importable ``rummy_env.OLD.sub`` module."""

    def __init__(self, old: str, new: str) -> None:
        self.old, self.new = old, new

    def find_spec(self, fullname: str, path: Optional[Sequence[str]], target: Optional[ModuleType] = None):
        if not fullname.startswith(self.old + "."):
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return importlib.import_module(self.new + spec.name[len(self.old):])

    def exec_module(self, module: ModuleType) -> None:
        """The module was executed under its new name already."""


def alias(old: str) -> ModuleType:
    """Make the deprecated package ``old`` an alias of ``rummy_env.<old>``; returns the new package."""
    new = f"rummy_env.{old}"
    warnings.warn(
        f"the top-level package {old!r} is deprecated and will be removed in the next release: "
        f"use 'from rummy_env import {old}' (or 'import {new}')",
        DeprecationWarning,
        stacklevel=3,
    )
    if not any(isinstance(f, _AliasFinder) and f.old == old for f in sys.meta_path):
        sys.meta_path.insert(0, _AliasFinder(old, new))
    package = importlib.import_module(new)
    sys.modules[old] = package
    return package
