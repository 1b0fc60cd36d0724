"""MkDocs hook: the tables of the docs that the code defines are generated from the code.

A generated part of a page sits between two comments::

    <!-- generated: NAME -->
    ...
    <!-- end generated -->

``GENERATORS[NAME](*ARGS)`` returns its Markdown (a marker ``generated: NAME ARG`` passes
``ARG``, e.g. a game's registry name). On every build the hook puts that text in
place of what the page holds, so the site always shows what the code says; the pages
in the repository hold the same text too (they read as plain Markdown on GitHub), and
``tests/test_docs.py`` fails when they fall behind the code. To bring them up to date:

    python docs/hooks.py

Sources, all reached through the game registry (``rummy_env.core.game``) where a table is
a game's: each game's rules dataclass (field, default, attribute docstring, and the
values the validation accepts, found by trying them), its presets, the action table of
its game module's docstring, its observation layout (the ``flat`` encoding's named
slices; a game not registered yet gives its rules and presets from its package's
``rules`` module); the training config ``rummy_env.train.config.PPOConfig`` and the tournament
settings ``rummy_env.eval.config.TournamentConfig`` (attribute docstrings), the agent
registry and the 0.1 module paths kept as aliases (``rummy_env._compat``).
"""

from __future__ import annotations

import dataclasses
import inspect
import re
import sys
import typing
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rummy_env.core.field_docs import attribute_docs  # noqa: E402  (also read by rummy train --help)
from rummy_env.core.field_docs import yaml_text as _yaml_value  # noqa: E402

BLOCK = re.compile(r"(<!-- generated: ([\w-]+)((?: [\w-]+)*) -->\n)(.*?)(<!-- end generated -->)", re.S)


# ----------------------------------------------------------------------------- helpers


def _cell(text: str) -> str:
    """Text for one table cell: one line, pipes escaped, ``code`` as Markdown's `code`."""
    text = " ".join(str(text).split()).replace("``", "`")
    return text.replace("|", "\\|")


def _table(header: list[str], rows: list[list[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _code(value: Any) -> str:
    return f"`{_yaml_value(value)}`"


def _type_name(hint: Any) -> str:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Union:
        names = [_type_name(a) for a in args if a is not type(None)]
        return " or ".join(names) + (" or null" if type(None) in args else "")
    if origin in (tuple, list):
        return f"list of {_type_name(args[0])}" if args else "list"
    if origin in (dict, typing.Mapping) or str(origin).endswith("Mapping'>"):
        return f"mapping {_type_name(args[0])} -> {_type_name(args[1])}" if args else "mapping"
    if hint is str:
        return "text"
    if hint is int:
        return "integer"
    if hint is float:
        return "number"
    if hint is bool:
        return "true / false"
    return getattr(hint, "__name__", str(hint))


def _default(f: dataclasses.Field) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:  # type: ignore[misc]
        return f.default_factory()  # type: ignore[misc]
    return dataclasses.MISSING


def _ranges(values: list[int]) -> str:
    parts, start = [], None
    for k, v in enumerate(values):
        if start is None:
            start = v
        if k + 1 == len(values) or values[k + 1] != v + 1:
            parts.append(str(start) if start == v else f"{start}..{v}")
            start = None
    return ", ".join(parts)


def allowed_values(cls: type, name: str, hint: Any, doc: str) -> str:
    """What the validation of ``cls`` accepts for one field, found by trying values."""

    def ok(value: Any) -> bool:
        try:
            cls(**{name: value})
        except (TypeError, ValueError):
            return False
        return True

    if hint is bool:
        return "true, false"
    if hint is int:
        probe = 40
        accepted = [v for v in range(probe + 1) if ok(v)]
        if not accepted:
            return "integer"
        if accepted[-1] == probe and ok(10**6):  # the last unbroken stretch runs on without bound
            k = len(accepted) - 1
            while k and accepted[k - 1] == accepted[k] - 1:
                k -= 1
            rest = _ranges(accepted[:k])
            return (rest + ", " if rest else "") + f"{accepted[k]} or more"
        return _ranges(accepted)
    if hint is str:
        words = [w for w in re.findall(r"'(\w+)'", doc) if ok(w)]
        return ", ".join(dict.fromkeys(words)) or "text"
    return _type_name(hint)


# ----------------------------------------------------------------------------- rules


def _rules_options(cls: type) -> str:
    hints = typing.get_type_hints(cls)
    docs = attribute_docs(cls)
    rows = []
    for f in dataclasses.fields(cls):
        doc = docs.get(f.name, "")
        rows.append([f"`{f.name}`", _code(_default(f)), allowed_values(cls, f.name, hints[f.name], doc), doc])
    return _table(["option", "default", "allowed values", "meaning"], rows)


def _presets(presets: dict[str, Any]) -> str:
    names = list(presets)
    fields = [f.name for f in dataclasses.fields(next(iter(presets.values())))]
    first = presets[names[0]]
    rows = []
    for name in fields:
        values = [getattr(presets[p], name) for p in names]
        cells = [_code(v) if p == names[0] or v != getattr(first, name) else "same" for p, v in zip(names, values)]
        rows.append([f"`{name}`", *cells])
    return _table(["option", *[f"`{p}`" for p in names]], rows)


def _rules_of(game: str) -> tuple[type, dict[str, Any]]:
    """A game's rules type and presets: from the registry, or, for a game whose package has
    its rules but is not registered yet, from ``rummy_env.GAME.rules``
    (``RULES_TYPE`` and ``PRESETS``)."""
    import importlib

    from rummy_env.core.game import games, get_game

    if game in games():
        return get_game(game).rules_type, get_game(game).presets
    module = importlib.import_module(f"rummy_env.{game}.rules")
    return module.RULES_TYPE, module.PRESETS


def rules_options(game: str) -> str:
    return _rules_options(_rules_of(game)[0])


def presets(game: str) -> str:
    return _presets(_rules_of(game)[1])


# ----------------------------------------------------------------------------- actions


def docstring_table(module: Any, after: str) -> str:
    """The first Markdown table after the line containing ``after`` in a module docstring;
    a row whose first cell is empty continues the row above it."""
    lines = inspect.getdoc(module).splitlines()
    start = next(k for k, line in enumerate(lines) if after in line)
    rows: list[list[str]] = []
    for line in lines[start + 1 :]:
        if not line.startswith("|"):
            if rows:
                break
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if all(set(c) <= set("-: ") for c in cells):
            continue
        if rows and len(rows) > 1 and not cells[0]:
            rows[-1] = [(a + " " + b).strip() for a, b in zip(rows[-1], cells)]
        else:
            rows.append(cells)
    def code(c: str) -> str:  # the docstrings write ``x``; Markdown wants `x`
        return c.replace("``", "`")
    header, body = rows[0], rows[1:]
    return _table(header, [[f"`{r[0]}`", *map(code, r[1:])] for r in body])


def actions(game: str) -> str:
    """The action table of the game module's docstring (the module of its states)."""
    from rummy_env.core.game import get_game

    return docstring_table(sys.modules[get_game(game).information_set_type.__module__], "Action layout")


# ----------------------------------------------------------------------------- observations


def observation(game: str) -> str:
    """The named slices of the game's ``flat`` encoding, with their flat positions and planes."""
    from rummy_env.core.game import get_game

    layout = get_game(game).encoding("flat").layout
    at = layout.slices()
    rows = []
    for plane, name in enumerate(layout.card_slices + layout.scalars):
        s = at[name]
        where = str(s.start) if s.stop - s.start == 1 else f"{s.start}..{s.stop - 1}"
        kind = "card slice (52)" if name in layout.card_slices else "scalar"
        rows.append([f"`{name}`", kind, where, plane])
    return (_table(["name", "kind", "`flat` positions", "`planes` index"], rows)
            + f"\n`flat`: {layout.flat_size} values; `planes`: shape {tuple(layout.planes_shape)}.\n")


# ----------------------------------------------------------------------------- configs


def _config_table(cls: type, config_file: str) -> str:
    """A training config's fields: type, default, the value in ``configs/<config_file>``, description."""
    import yaml

    hints = typing.get_type_hints(cls)
    docs = attribute_docs(cls)
    shipped = yaml.safe_load((ROOT / "configs" / config_file).read_text())
    rows = []
    for f in dataclasses.fields(cls):
        rows.append([f"`{f.name}`", _type_name(hints[f.name]), _code(_default(f)),
                     _code(shipped[f.name]) if f.name in shipped else "", docs.get(f.name, "")])
    return _table(["field", "type", "default", f"`configs/{config_file}`", "description"], rows)


def ppo_config() -> str:
    from rummy_env.train.config import PPOConfig

    return _config_table(PPOConfig, "ppo.yaml")


def basic_ppo_config() -> str:
    from rummy_env.train.config import PPOConfig

    return _config_table(PPOConfig, "ppo_basic.yaml")


def tournament_config() -> str:
    from rummy_env.eval.config import TournamentConfig

    hints = typing.get_type_hints(TournamentConfig)
    docs = attribute_docs(TournamentConfig)
    rows = []
    for f in dataclasses.fields(TournamentConfig):
        default = _default(f)
        flag = "--" + f.name.replace("_", "-")
        flag = {"--record": "--no-record"}.get(flag, flag)
        rows.append([f"`{f.name}`", f"`{flag}`", _type_name(hints[f.name]),
                     "required" if default is dataclasses.MISSING else _code(default), docs.get(f.name, "")])
    return _table(["setting", "flag", "type", "default", "meaning"], rows)


# ----------------------------------------------------------------------------- agents


def agent_options() -> str:
    from rummy_env.agents import registry
    from rummy_env.core.game import games, get_game

    def options(factory) -> str:
        params = inspect.signature(factory).parameters.values()
        opts = [f"`{p.name}={_yaml_value(p.default)}`" for p in params
                if p.name not in ("seed", "game") and p.default is not inspect.Parameter.empty]
        return ", ".join(opts) or "none"

    rows = []
    for game in games():
        for name, factory in registry._FACTORIES.get(game, {}).items():
            rows.append([f"`{name}`", get_game(game).title, options(factory)])
    for name, factory in registry._GENERIC.items():
        rows.append([f"`{name}`", "every game", options(factory)])
    levels = "; ".join(f"{get_game(g).title}: " + ", ".join(f"`{k}` = `{v}`" for k, v in registry.levels(g).items())
                       for g in games() if registry.levels(g))
    aliases = ", ".join(f"`{old}` = `{name}` of {get_game(g).title}" for old, (g, name) in registry._ALIASES.items())
    return (_table(["name", "game", "options (default)"], rows) + f"\nLevels: {levels}.\n\n"
            + f"Deprecated 0.2 names (they still work, with a warning): {aliases}.\n")


# ----------------------------------------------------------------------------- changelog


def moved_modules() -> str:
    from rummy_env import _compat

    rows = [[f"`{old}`", ", ".join(f"`{n}`" for n in _compat.new_names(old))] for old in _compat.MOVED]
    rows += [[f"`{old}`, `{old}.*`", f"`{new}`, `{new}.*`"] for old, new in _compat.PREFIXES.items()]
    return _table(["0.1 module (deprecated alias)", "0.2 module"], rows)


GENERATORS: dict[str, Callable[..., str]] = {
    "rules-options": rules_options,
    "presets": presets,
    "actions": actions,
    "observation": observation,
    "ppo-config": ppo_config,
    "basic-ppo-config": basic_ppo_config,
    "tournament-config": tournament_config,
    "agent-options": agent_options,
    "moved-modules": moved_modules,
}


def fill(markdown: str) -> str:
    """``markdown`` with every generated part replaced by what the code gives now."""

    def replace(m: re.Match) -> str:
        name, args = m.group(2), m.group(3).split()
        if name not in GENERATORS:
            raise KeyError(f"no generator {name!r}; known: {', '.join(GENERATORS)}")
        return m.group(1) + "\n" + GENERATORS[name](*args).rstrip("\n") + "\n\n" + m.group(5)

    return BLOCK.sub(replace, markdown)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:  # the MkDocs hook
    return fill(markdown)


def pages() -> list[Path]:
    return sorted(DOCS.rglob("*.md"))


if __name__ == "__main__":  # rewrite the generated parts of the pages in the repository
    for path in pages():
        text = path.read_text()
        new = fill(text)
        if new != text:
            path.write_text(new)
            print(f"updated {path.relative_to(ROOT)}")
