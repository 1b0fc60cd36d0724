"""The README and the documentation under docs/ say what the code does: every example runs.

Conventions (docs/index.md, "How the docs are tested", says the same to readers):

- ```python blocks run: the blocks of one page in order, in one namespace, in a temporary
  working directory that holds links to the repository's configs/, benchmarks/ and
  examples/ (so examples read like commands typed at the repository's root).
- ```bash blocks: every line that starts with ``rummy `` or ``python `` runs for real, in
  that same directory (quick commands: seconds). ``rummy`` is the installed command,
  ``python`` this interpreter; wildcards are expanded as a shell would.
- ```console blocks: every line that starts with ``rummy `` or ``python `` is only parsed,
  for commands that take minutes to hours. A ``rummy`` command goes through the real
  ``rummy_env.cli.main`` (its argument parser, then the subcommand's own code: the
  training config loader, the tournament settings with their agent specs, ...) with the
  functions that would do the work (``Trainer.start``/``resume`` of both trainers, ``tournament.run``,
  the label collectors and fits, expert iteration's ``run``, ``plot_curves``, reading a results file to replay, the
  web server's start (``rummy serve``), converting a policy file (``rummy convert-policy``), and standard input, where
  ``rummy play`` waits
  for the player) replaced by a stop; it must
  reach that stop. A ``python SCRIPT`` command imports the script and calls its
  ``main()`` with ``ArgumentParser.parse_args`` stopping right after parsing. Policy files
  under ``runs/`` that earlier steps of a page would have written are stood in for by the
  shipped policy.
- Blocks of every language run in the order of the page; other languages (``text``,
  ``yaml``, ...) are not run. The README's two opening commands are exempt: CI runs the
  test command (``.ci/run``, checked below) and ``tests/train/test_train.py`` runs the demo.
- Paths of repository files named in commands (``configs/...``, ``benchmarks/...``,
  ``examples/...``, ``rummy_env/...``) must exist, and the tables the docs generate from
  the code (between ``<!-- generated: NAME -->`` and ``<!-- end generated -->``, made by
  ``docs/hooks.py``) must equal what the code gives now (``python docs/hooks.py``
  rewrites them).
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import importlib.util
import io
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
DOCS = ROOT / "docs"
PAGES = sorted(p.relative_to(ROOT).as_posix() for p in DOCS.rglob("*.md"))
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)
LINKED = ("configs", "benchmarks", "examples")
REPO_PATH = re.compile(r"^(configs|benchmarks|examples|rummy_env)/[\w./-]+$")
README_MAX_LINES = 200


def _hooks():
    spec = importlib.util.spec_from_file_location("docs_hooks", DOCS / "hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def blocks(text: str) -> list[tuple[str, str]]:
    return [(lang, body) for lang, body in FENCE.findall(text)]


def commands(body: str) -> list[list[str]]:
    """The ``rummy ...`` and ``python ...`` command lines of a shell block, as argv lists."""
    out = []
    for line in body.replace("\\\n", " ").splitlines():
        line = line.strip()
        if line.startswith(("rummy ", "python ")):
            out.append(shlex.split(line, comments=True))
    return out


# ----------------------------------------------------------------------------- README


def test_readme_opens_with_the_two_commands_and_ci_runs_the_test_command():
    found = blocks(README)
    assert [lang for lang, _ in found[:2]] == ["bash", "bash"]
    setup_demo, setup_test = (body.strip() for _, body in found[:2])
    assert "rummy demo" in setup_demo and "pytest" in setup_test
    first_text = README[: README.index("```")]
    assert first_text.count("\n") < 5, "the commands must open the README"
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert setup_test in ci


def test_readme_is_a_short_front_door_whose_links_lead_somewhere():
    assert len(README.splitlines()) <= README_MAX_LINES
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README):
        if "://" not in target:
            assert (ROOT / target).exists(), f"README links to {target}, which does not exist"


def test_readme_examples_run(tmp_path, monkeypatch, capsys):
    run_page(README, "README.md", tmp_path, monkeypatch, skip=2)
    assert "[[15  7]]" in capsys.readouterr().out


# ----------------------------------------------------------------------------- docs


@pytest.mark.parametrize("page", PAGES)
def test_page_examples_run(page, tmp_path, monkeypatch):
    run_page((ROOT / page).read_text(), page, tmp_path, monkeypatch)


def test_generated_tables_equal_what_the_code_gives():
    hooks = _hooks()
    stale = [page for page in PAGES if hooks.fill((ROOT / page).read_text()) != (ROOT / page).read_text()]
    assert not stale, f"generated tables out of date in {stale}: run python docs/hooks.py"
    used = {m[1] for page in PAGES for m in hooks.BLOCK.findall((ROOT / page).read_text())}
    assert used == set(hooks.GENERATORS), "every generator is used on some page, and only known ones"


def test_every_config_field_is_described():
    import dataclasses

    from rummy_env.eval.config import TournamentConfig
    from rummy_env.train.config import PPOConfig

    hooks = _hooks()
    for cls in (PPOConfig, TournamentConfig):
        described = hooks.attribute_docs(cls)
        assert {f.name for f in dataclasses.fields(cls) if not described.get(f.name)} == set(), cls.__name__


def test_docs_point_nowhere_outside_the_repository():
    for name, text in [("README.md", README)] + [(p, (ROOT / p).read_text()) for p in PAGES]:
        assert "../shared" not in text and "RULES.md" not in text, name
        assert not re.search(r"(?<![\w.])/(work|home|tmp|Users)/", text), name
        assert not re.search(r"^[ \t]+```", text, re.M), f"{name}: an indented code fence would not be run"


def test_files_and_modules_the_docs_name_exist():
    from rummy_env import _compat

    import gymnasium

    import rummy_env  # noqa: F401  (registers the Gymnasium ids, rummy_env/GinRummy-v0, ...)

    gym_ids = {name for name in gymnasium.registry if name.startswith("rummy_env/")}
    for name, text in [("README.md", README)] + [(p, (ROOT / p).read_text()) for p in PAGES]:
        for path in re.findall(r"`((?:rummy_env|configs|benchmarks|examples|tests)/[\w./*-]+)`", text):
            found = list(ROOT.glob(path)) if "*" in path else [ROOT / path] if (ROOT / path).exists() else []
            assert found or path in gym_ids, f"{name} names {path}, which is not in the repository"
        for dotted in re.findall(r"`(rummy_env(?:\.\w+)+)`", text):
            assert dotted in _compat.MOVED or _resolves(dotted), f"{name} names {dotted}, which does not exist"


def _resolves(dotted: str) -> bool:
    """Whether ``a.b.c`` is a module, or an attribute of one (``rummy_env.gin.rules.Rules``);
    a deprecated module (the changelog names old ones) still exists."""
    import importlib
    import warnings

    parts = dotted.split(".")
    for k in range(len(parts), 0, -1):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                obj = importlib.import_module(".".join(parts[:k]))
        except ImportError:
            continue
        for attr in parts[k:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


# ----------------------------------------------------------------------------- running a page


def run_page(text: str, name: str, workdir: Path, monkeypatch, skip: int = 0) -> None:
    from rummy_env.agents import registry

    for link in LINKED:
        (workdir / link).symlink_to(ROOT / link, target_is_directory=True)
    monkeypatch.chdir(workdir)
    # agents a page registers stay there
    monkeypatch.setattr(registry, "_FACTORIES", {game: dict(table) for game, table in registry._FACTORIES.items()})
    monkeypatch.setattr(registry, "_GENERIC", dict(registry._GENERIC))
    namespace: dict = {"__name__": "__docs__"}
    for k, (lang, body) in enumerate(blocks(text)):
        if k < skip:
            continue
        where = f"{name}, code block {k + 1}"
        if lang == "python":
            exec(compile(body, where, "exec"), namespace)
        elif lang in ("bash", "console"):
            for argv in commands(body):
                check_paths(argv, where)
                (run_command if lang == "bash" else parse_command)(argv, workdir, monkeypatch, where)


def check_paths(argv: list[str], where: str) -> None:
    for token in argv:
        for piece in re.split(r"[=:,]", token):
            if REPO_PATH.match(piece):
                assert (ROOT / piece).exists(), f"{where}: {piece} does not exist in the repository"


def run_command(argv: list[str], workdir: Path, monkeypatch, where: str) -> None:
    rummy = Path(sys.executable).with_name("rummy")
    head = [str(rummy)] if rummy.is_file() else [sys.executable, "-m", "rummy_env.cli"]
    args = []  # the shell would expand wildcards: runs/NAME__0__* is the run folder just written
    for token in argv[1:]:
        found = sorted(glob.glob(token, root_dir=workdir)) if glob.has_magic(token) else []
        args += found or [token]
    full = (head if argv[0] == "rummy" else [sys.executable]) + args
    out = subprocess.run(full, cwd=workdir, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert out.returncode == 0, f"{where}: {shlex.join(argv)} failed:\n{out.stdout[-2000:]}\n{out.stderr[-3000:]}"
    print(out.stdout)


class Reached(Exception):
    """The stop a parsed-only command must get to (it is no ValueError, TypeError, OSError or
    ImportError, which the rummy command would catch and report)."""


def _stop(*args, **kwargs):
    raise Reached(args, kwargs)


class _Terminal:
    """A standard input that stops the command the moment it is read."""

    def readline(self, *args):
        raise Reached("reads the terminal")

    read = readline

    def fileno(self):
        raise io.UnsupportedOperation("no terminal")

    def isatty(self):
        return False


def parse_command(argv: list[str], workdir: Path, monkeypatch, where: str) -> None:
    for token in argv:  # policy files an earlier step would have written: the shipped one stands in
        for piece in re.split(r"[=:]", token):
            if piece.startswith("runs/") and piece.endswith(".pt") and not (workdir / piece).exists():
                from rummy_env.agents.gin.ppo import SHIPPED

                (workdir / piece).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(SHIPPED, workdir / piece)
    if argv[0] == "rummy":
        _parse_rummy(argv[1:], monkeypatch, where)
    else:
        _parse_script(argv[1:], monkeypatch, where)


def _parse_rummy(args: list[str], monkeypatch, where: str) -> None:
    import importlib

    from rummy_env.eval import store, tournament
    from rummy_env.train import convert, curves, distill, expert_iteration, knock_labels, ppo
    from rummy_env.web import server

    class Trainer:
        @classmethod
        def start(cls, config, run_dir=None):
            raise Reached(config)

        @classmethod
        def resume(cls, run_dir, overrides=None):
            changed = set(overrides or {}) - set(ppo.RESUMABLE_OVERRIDES)
            assert not changed, f"{where}: --resume may not change {changed}"
            raise Reached(run_dir)

    cli = importlib.import_module("rummy_env.cli.main")  # the module (rummy_env.cli.main is also a function's name)
    with monkeypatch.context() as patch:
        patch.setattr(ppo, "Trainer", Trainer)
        patch.setattr(tournament, "run", _stop)
        patch.setattr(curves, "plot_curves", _stop)
        patch.setattr(expert_iteration, "run", _stop)
        for module in (distill, knock_labels):
            for fn in ("collect", "fit", "load", "load_split"):
                if hasattr(module, fn):
                    patch.setattr(module, fn, _stop)
        patch.setattr(store, "read_results", _stop)  # rummy replay
        patch.setattr(server, "run", _stop)  # rummy serve
        patch.setattr(convert, "convert", _stop)  # rummy convert-policy
        patch.setattr(sys, "stdin", _Terminal())  # rummy play, or anything else that would wait for a player
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err):
                code = cli.main(args)
        except Reached:
            return
        except SystemExit as exc:
            pytest.fail(f"{where}: rummy {shlex.join(args)} does not parse ({exc}): {err.getvalue()}")
        assert code == 0, f"{where}: rummy {shlex.join(args)}: {err.getvalue()}"


def _parse_script(args: list[str], monkeypatch, where: str) -> None:
    script = ROOT / args[0]
    assert script.is_file(), f"{where}: no script {args[0]}"
    spec = importlib.util.spec_from_file_location(f"docs_script_{script.stem}", script)
    module = importlib.util.module_from_spec(spec)
    original = argparse.ArgumentParser.parse_args

    def parse_args(self, argv=None, namespace=None):
        raise Reached(original(self, args[1:], namespace))

    with monkeypatch.context() as patch:
        patch.setattr(sys, "argv", [str(script), *args[1:]])
        patch.syspath_prepend(str(script.parent))
        spec.loader.exec_module(module)
        patch.setattr(argparse.ArgumentParser, "parse_args", parse_args)
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err):
                module.main()
        except Reached:
            return
        except SystemExit as exc:
            pytest.fail(f"{where}: python {shlex.join(args)} does not parse ({exc}): {err.getvalue()}")
        pytest.fail(f"{where}: python {shlex.join(args)} never parsed its arguments")
