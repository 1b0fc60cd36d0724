"""The layers of the package import only downwards (docs/index.md): core knows no game,
a game knows no other game and nothing above the games, agents know no training,
tournaments or front ends, the web app knows no game by name, and nothing imports the
command line, and no module imports itself through others (no cycles). Imports inside
functions count too: a lazy import is still a dependency."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "rummy_env"

# package -> the packages it must not import (prefixes of rummy_env module names)
FORBIDDEN = {
    "rummy_env.core": ["rummy_env.gin", "rummy_env.basic", "rummy_env.romme", "rummy_env.agents", "rummy_env.gym",
                       "rummy_env.train", "rummy_env.eval", "rummy_env.cli"],
    "rummy_env.gin": ["rummy_env.basic", "rummy_env.romme", "rummy_env.agents", "rummy_env.gym", "rummy_env.train",
                      "rummy_env.eval", "rummy_env.cli"],
    "rummy_env.basic": ["rummy_env.gin", "rummy_env.romme", "rummy_env.agents", "rummy_env.gym", "rummy_env.train",
                        "rummy_env.eval", "rummy_env.cli"],
    "rummy_env.romme": ["rummy_env.gin", "rummy_env.basic", "rummy_env.agents", "rummy_env.gym", "rummy_env.train",
                        "rummy_env.eval", "rummy_env.cli"],
    "rummy_env.agents.gin": ["rummy_env.basic", "rummy_env.agents.basic"],
    "rummy_env.agents.basic": ["rummy_env.gin", "rummy_env.agents.gin"],
    "rummy_env.agents": ["rummy_env.gym", "rummy_env.train", "rummy_env.eval", "rummy_env.cli"],
    "rummy_env.gym": ["rummy_env.train", "rummy_env.eval", "rummy_env.cli"],
    # training sits above the games; each game's training adapter keeps to its game
    "rummy_env.train": ["rummy_env.eval", "rummy_env.cli"],
    "rummy_env.train.games.gin": ["rummy_env.basic", "rummy_env.romme", "rummy_env.agents.basic", "rummy_env.agents.romme"],
    "rummy_env.train.games.basic": ["rummy_env.gin", "rummy_env.romme", "rummy_env.agents.gin", "rummy_env.agents.romme"],
    "rummy_env.eval": ["rummy_env.train", "rummy_env.gym", "rummy_env.cli"],
    # the drop-ins for other libraries' envs sit on one game each, below agents and tools
    "rummy_env.compat": ["rummy_env.basic", "rummy_env.romme", "rummy_env.agents", "rummy_env.train", "rummy_env.eval",
                         "rummy_env.cli"],
    # the web app reaches games only through the game interface: no game package by name
    "rummy_env.web": ["rummy_env.gin", "rummy_env.basic", "rummy_env.romme", "rummy_env.agents.gin",
                      "rummy_env.agents.basic", "rummy_env.agents.romme", "rummy_env.train", "rummy_env.gym",
                      "rummy_env.cli"],
}
for _package in ("rummy_env.core", "rummy_env.gin", "rummy_env.basic", "rummy_env.romme", "rummy_env.agents",
                 "rummy_env.gym", "rummy_env.train", "rummy_env.eval"):
    FORBIDDEN[_package] = FORBIDDEN[_package] + ["rummy_env.web"]  # nothing below the front ends imports it


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> set[str]:
    """Every module an import statement of ``path`` names, at any depth of the file."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
            out.update(f"{node.module}.{alias.name}" for alias in node.names)
    return out


def inside(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


MODULES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=[module_name(p) for p in MODULES])
def test_imports_go_only_downwards(path):
    me = module_name(path)
    rules = [forbidden for package, forbidden in FORBIDDEN.items() if inside(me, package)]
    bad = sorted({name for name in imports(path) for forbidden in rules for f in forbidden if inside(name, f)
                  and not inside(me, f)})
    assert not bad, f"{me} imports {bad}, above or beside its layer"
    if not inside(me, "rummy_env.cli"):
        assert not any(inside(name, "rummy_env.cli") for name in imports(path)), f"{me} imports the command line"


GAME_PACKAGES = ["rummy_env.gin", "rummy_env.basic", "rummy_env.romme", "rummy_env.agents.gin", "rummy_env.agents.basic",
                 "rummy_env.agents.romme"]
# Gin Rummy's own training code: its vector rollout worker and what it runs (the oracle critic, the
# pool as one stacked network, the vector opponents) and the Gin-only fine-tunes (distill, knock
# labels, expert iteration); every other module of rummy_env.train is the one trainer of every game
GIN_TRAINING = ["rummy_env.train.rollout", "rummy_env.train.critic", "rummy_env.train.policy_stack",
                "rummy_env.train.opponents", "rummy_env.train.distill", "rummy_env.train.knock_labels",
                "rummy_env.train.expert_config", "rummy_env.train.expert_iteration"]
TRAINER = [p for p in MODULES if inside(module_name(p), "rummy_env.train") and not inside(module_name(p), "rummy_env.train.games")
           and module_name(p) not in GIN_TRAINING]


@pytest.mark.parametrize("path", TRAINER, ids=[module_name(p) for p in TRAINER])
def test_the_one_trainer_reaches_games_only_through_the_registry(path):
    """``rummy train --game NAME`` finds a game's adapter by ``Game.training_module``
    (``rummy_env.train.adapter``); no module of the trainer names a game's package."""
    bad = sorted(name for name in imports(path) if any(inside(name, g) for g in GAME_PACKAGES))
    assert not bad, f"{module_name(path)} imports {bad}: reach the game through rummy_env.train.adapter"
    assert {"rummy_env.train.ppo", "rummy_env.train.hands", "rummy_env.train.config"} <= {module_name(p) for p in TRAINER}


# ----------------------------------------------------------------------------- import cycles

# the cycles still in the house, each a set of modules that import one another (issue: the
# house in order); the test fails when a new one appears or one of these changes, so the
# list only shrinks
KNOWN_CYCLES: list[set[str]] = []


def module_imports(path: Path, known: set[str]) -> set[str]:
    """The modules of ``known`` that ``path`` imports, at any depth of the file:
    ``from package import module`` names the module, not the package."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules = {f"{node.module}.{alias.name}" for alias in node.names} & known
            out.update(modules)
            if len(modules) < len(node.names):  # names defined in the module (or its package) itself
                out.add(node.module)
    return out & known


def cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                top = stack.pop()
                component.add(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_cycles_are_found():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles_but_the_known_ones():
    """Modules import one another only downwards, imports inside functions included: a cycle
    held open by a lazy import is still one."""
    known = {module_name(p) for p in MODULES}
    graph = {module_name(p): module_imports(p, known) - {module_name(p)} for p in MODULES}
    found = sorted(cycles(graph), key=sorted)
    assert found == sorted(KNOWN_CYCLES, key=sorted), f"import cycles now: {[sorted(c) for c in found]}"


def test_one_conftest_only():
    """A second ``conftest.py`` below ``tests/`` would be imported as the module ``conftest``
    in some worker processes and not in others, so ``from conftest import ...`` (the shared
    helpers of ``tests/conftest.py``) would fail depending on which test a worker ran first."""
    tests = Path(__file__).resolve().parent
    found = sorted(str(p.relative_to(tests)) for p in tests.rglob("conftest.py"))
    assert found == ["conftest.py"], f"put fixtures in tests/conftest.py, not {found}"
