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

import ast
import hashlib
import importlib.util
import json
import os
import sys
import warnings
from pathlib import Path
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


# ---------------------------------------------------------------------- numba's cache


def _source_file(module: str) -> Optional[Path]:
    """The source file of dotted module name ``module`` (None: not a module, or no file)."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    origin = getattr(spec, "origin", None)
    return Path(origin) if origin and origin.endswith(".py") else None


def _imported(tree: ast.Module, package: str) -> set[str]:
    """The modules of ``package`` that a module's syntax tree imports (anywhere in it)."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.split(".")[0] == package)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                and node.module.split(".")[0] == package:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)  # a submodule imported by name
    return out


def _closure(module: str) -> dict[str, Path]:
    """``module`` and every module of its top-level package that it imports, directly or
    not (name -> source file; modules without a file left out)."""
    package = module.split(".")[0]
    found: dict[str, Path] = {}
    seen: set[str] = set()
    todo = [module]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        path = _source_file(name)
        if path is not None:
            found[name] = path
            todo.extend(_imported(ast.parse(path.read_bytes()), package) - seen)
    return found


def _digest(files: dict[str, Path]) -> str:
    digest = hashlib.sha256()
    for name in sorted(files):
        digest.update(name.encode() + b"\0" + hashlib.sha256(files[name].read_bytes()).digest())
    return digest.hexdigest()


def _stats(files: dict[str, Path]) -> dict[str, list]:
    out = {}
    for name, path in files.items():
        st = path.stat()
        out[name] = [str(path), st.st_mtime_ns, st.st_size]
    return out


def refresh_cache(module: str) -> None:
    """Drop numba's cached machine code of the kernels defined in ``module`` when the source
    of a module it imports (of its own package, directly or not) has changed since they
    were cached. Each kernels module calls it at its end, before any kernel runs.

    Why: numba's cache checks only the file a kernel is defined in, but the kernels read
    module-level numbers of other files (an observation layout, a rule's constants) and
    call kernels of other files as compile-time constants; after an edit there, the cache
    would hand back code built from the old numbers. A stamp of those sources (a digest of
    their text, and each file's size and time, so that an unchanged checkout is confirmed
    by a few ``stat`` calls) is kept beside numba's cache files; when the text differs,
    every kernel of ``module`` is flushed and compiles afresh on its first call. A cache
    folder that cannot be written is left to numba (which then compiles without a cache,
    or fails as it would anyway)."""
    kernels = [value for value in vars(sys.modules[module]).values()
               if getattr(getattr(value, "py_func", None), "__module__", None) == module
               and hasattr(getattr(value, "_cache", None), "cache_path")]
    if not kernels:
        return
    path = Path(kernels[0]._cache.cache_path) / f"{module.rpartition('.')[2]}.sources.json"
    try:
        old = json.loads(path.read_text())
        files = {name: Path(entry[0]) for name, entry in old["files"].items()}
        if _stats(files) == old["files"]:
            return  # not one file touched since the stamp
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        old = None
    files = _closure(module)
    stamp = {"digest": _digest(files), "files": _stats(files)}
    if old is None or old.get("digest") != stamp["digest"]:
        for kernel in kernels:
            kernel._cache.flush()
    try:
        path.write_text(json.dumps(stamp))
    except OSError:
        pass
