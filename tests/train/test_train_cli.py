"""The training commands' command line, none of it needing torch: ``rummy train --help``
describes every config field with its default, and without the ``train`` extra every
command that needs it says in one line which extra to install (not just "No module named
'torch'") and writes nothing. Torch's absence is simulated in a fresh interpreter
(``sys.modules[name] = None`` makes ``import name`` fail as a missing package does), so
this runs whether torch is installed or not."""

import contextlib
import dataclasses
import io
import json
import subprocess
import sys

import pytest

from rummy_env.cli import main
from rummy_env.core.field_docs import attribute_docs, yaml_text
from rummy_env.train.config import PPOConfig, game_defaults


def test_train_help_describes_every_config_field_with_its_default():
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        main(["train", "--help"])
    text = " ".join(out.getvalue().split())  # argparse wraps the help at the terminal's width
    docs = attribute_docs(PPOConfig)
    defaults = {game: game_defaults(game) for game in ("basic", "gin", "romme")}  # each game's own, by name
    for f in dataclasses.fields(PPOConfig):
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
        flag = "--" + f.name.replace("_", "-")
        words = " ".join(docs[f.name].replace("``", "").split()[:4])  # the description's first words
        assert f"{flag} VALUE {words}" in text or f"{flag} VALUE, " in text, f.name
        shown = f"(default: {yaml_text(default)}" + "".join(
            f"; {game}: {yaml_text(values[f.name])}" for game, values in defaults.items() if f.name in values
            and f.name != "game") + ")"
        assert f"{words}" in text and shown in text, f.name
    assert "--lr VALUE Adam's learning rate. (default: 0.0005; basic: 0.0003; romme: 0.0003)" in text
    assert "--hidden VALUE Trunk layer widths. (default: [256, 256])" in text

SCRIPT = """
import contextlib, io, json, sys
for name in ("torch", "tensorboard"):
    sys.modules[name] = None  # import torch now raises ImportError, as without the extra
from rummy_env.cli import main
results = {}
for argv in json.loads(sys.argv[1]):
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(argv)
    results[argv[0]] = [code, err.getvalue()]
print(json.dumps(results))
"""

COMMANDS = [
    ["train", "--total-updates", "1", "--runs-dir", "runs"],
    ["train-basic", "--set", "runs_dir=runs"],
    ["distill", "--hands", "1", "--labels", "labels"],
    ["expert-iteration", "--out", "expit"],
    ["knock-labels", "--hands", "1", "--labels", "labels"],
    ["curves", "runs", "-o", "curves.png"],
]


@pytest.fixture(scope="module")
def without_torch(tmp_path_factory):
    cwd = tmp_path_factory.mktemp("no_torch")
    done = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps(COMMANDS)], cwd=cwd, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1]), cwd


@pytest.mark.parametrize("command", [argv[0] for argv in COMMANDS])
def test_a_command_that_needs_torch_names_the_extra_to_install(without_torch, command):
    results, cwd = without_torch
    code, err = results[command]
    missing = "tensorboard" if command == "curves" else "torch"
    assert code == 2
    if command == "train-basic":  # the deprecated alias says so first, then runs rummy train --game basic
        note, err = err.split("\n", 1)
        assert "deprecated" in note and "rummy train --game basic" in note
    assert err.count("\n") == 1 and err.startswith(f"rummy {command}: error: {missing} cannot be imported"), err
    assert 'pip install "rummy-env[train]"' in err and 'pip install -e ".[train]"' in err, err
    assert list(cwd.iterdir()) == []  # no run folder, label folder or image was started
