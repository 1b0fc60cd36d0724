"""Optional compiled (numba) twins of Python code: each used only where it loads and agrees.

Why one mechanism: the meld solvers, Gin Rummy's vector engine, the heuristic's terms and
the observation encoders each have a compiled twin of a Python or numpy reference. A twin
is used only when numba is installed, not switched off (``RUMMY_ENV_NO_NUMBA`` set to 1,
true or yes), it compiles here (numba may find no writable folder for its cache) and it
gives the reference's results on a few cases; otherwise the reference runs, silently when
numba is missing or switched off, else with one warning naming what falls back and why.
Compiling and checking take seconds, so each twin is decided once per process, on its
first use: importing a module does not import numba, and setting the variable later has
no effect. Hot paths read the decision through ``Compiled.get`` bound once to a module
name (or ``Compiled.chosen`` itself), never deciding again.
"""

from __future__ import annotations

import os
import warnings
from typing import Any, Callable, Optional, Union


class _Undecided:
    """The type of ``UNDECIDED``."""

    def __repr__(self) -> str:
        return "UNDECIDED"

    def __reduce__(self) -> str:
        return "UNDECIDED"  # pickled and copied as the one sentinel


UNDECIDED: Any = _Undecided()  # ``Compiled.chosen`` before the first ``get``: decide on the next one


def numba_switched_off() -> bool:
    """Whether the environment variable ``RUMMY_ENV_NO_NUMBA`` (1, true or yes) keeps every
    compiled twin off (numba is then not even imported)."""
    return os.environ.get("RUMMY_ENV_NO_NUMBA", "").lower() in ("1", "true", "yes")


def self_check(module: Any) -> str:
    """The check of a kernels module that checks itself: its ``self_check()``."""
    return module.self_check()


def _import(module: str) -> Any:
    """The module of dotted name ``module``, imported by name (``from package import name``)."""
    package, _, name = module.rpartition(".")
    return getattr(__import__(package, fromlist=[name]), name)


def _numba_missing(exc: ImportError) -> bool:
    return isinstance(exc, ModuleNotFoundError) and (exc.name or "").split(".")[0] == "numba"


class Compiled:
    """The compiled twin of ``what`` where it may be used, else ``otherwise`` (None unless
    given): ``get()`` decides on its first call and keeps the answer in ``chosen``.

    ``load()`` builds the twin (imports its module, which imports numba and compiles or
    loads numba's cache); a dotted module name instead is imported by name, for kernels
    that import the module holding this object (a static import would be a cycle).
    ``check(twin)`` gives '' when the twin agrees with the reference on a few cases, else
    what differs. ``needs``: another ``Compiled`` this twin calls into; where that one is
    not used, neither is this one (silently). Not used either, silently: numba switched
    off (``numba_switched_off``) or not installed. Not used, with one RuntimeWarning
    "rummy_env: ``what`` is (are) not used (why); ``fallback``": loading or checking
    raises, or the check finds a difference.

    Tests force the reference by setting ``chosen`` to ``otherwise``, or decide afresh
    (the variable or a patched check taking effect) by setting it to ``UNDECIDED``.
    """

    def __init__(self, what: str, load: Union[str, Callable[[], Any]], check: Callable[[Any], str], fallback: str,
                 needs: Optional[Compiled] = None, otherwise: Any = None) -> None:
        self.what, self.load, self.check, self.fallback = what, load, check, fallback
        self.needs, self.otherwise = needs, otherwise
        self.chosen: Any = UNDECIDED

    def __getstate__(self) -> dict:
        """Pickled without the decision (a module does not pickle): another process decides
        for itself, on its first use."""
        return {**self.__dict__, "chosen": UNDECIDED}

    def __copy__(self) -> Compiled:
        return self  # one decision per process: a copy of an object holding it shares it

    def __deepcopy__(self, memo: dict) -> Compiled:
        return self

    def get(self) -> Any:
        """The twin, or ``otherwise``: decided on the first call, then kept."""
        chosen = self.chosen
        if chosen is UNDECIDED:
            chosen = self.chosen = self._decide()
        return chosen

    def _decide(self) -> Any:
        if numba_switched_off() or (self.needs is not None and self.needs.get() is None):
            return self.otherwise
        try:
            twin = _import(self.load) if isinstance(self.load, str) else self.load()
            problem = self.check(twin)
        except ImportError as exc:
            if _numba_missing(exc):
                return self.otherwise
            problem = f"{type(exc).__name__}: {exc}"
        except Exception as exc:  # noqa: BLE001 - e.g. numba finds no writable cache folder for its compiled code
            problem = f"{type(exc).__name__}: {exc}"
        if problem:
            verb = "are" if self.what.endswith("s") else "is"
            warnings.warn(f"rummy_env: {self.what} {verb} not used ({problem}); {self.fallback}", RuntimeWarning,
                          stacklevel=3)
            return self.otherwise
        return twin
