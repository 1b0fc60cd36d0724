"""The library's imports are immune to a user's own ``agents/``, ``train.py`` or ``eval.py``
in the working directory; the moved 0.1 module paths inside ``rummy_env`` still work (same objects),
the top-level ``agents``, ``train`` and ``eval`` of 0.1 are gone."""

import subprocess
import sys

import pytest

CLASH = "raise ImportError('the user own {} was imported by the library')\n"


@pytest.fixture
def user_folder(tmp_path):
    """A working directory such as a user's project: its own agents/, train.py and eval.py."""
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "__init__.py").write_text(CLASH.format("agents/"))
    (tmp_path / "train.py").write_text(CLASH.format("train.py"))
    (tmp_path / "eval.py").write_text(CLASH.format("eval.py"))
    return tmp_path


def run(code_or_args, cwd):
    args = ["-c", code_or_args] if isinstance(code_or_args, str) else code_or_args
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def test_the_library_works_from_a_folder_with_clashing_names(user_folder):
    code = """
import gymnasium, rummy_env
from rummy_env import agents
from rummy_env.eval.config import load_config
from rummy_env.train.config import load_config as load_training
env = gymnasium.make("rummy_env/GinRummy-v0", opponent="simple")
env.reset(seed=0)
print(agents.make("ppo").name, agents.make("hard").name, load_training(None).lr)
"""
    out = run(code, user_folder)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["ppo", "hard", "0.0005"]


def test_the_command_line_works_from_a_folder_with_clashing_names(user_folder):
    out = run(["-m", "rummy_env.cli", "tournament", "--agents", "random", "simple", "--deals", "1", "--out",
               str(user_folder / "t"), "--quiet"], user_folder)
    assert out.returncode == 0, out.stderr
    assert (user_folder / "t" / "results.jsonl").is_file()


def test_the_old_module_paths_are_the_same_modules_with_a_warning(tmp_path):
    code = """
import warnings
warnings.simplefilter("ignore")
from rummy_env.game import GinRummyState
from rummy_env.rummy_game import BasicRummyState, BasicRummyMatch, meld_table
import rummy_env.basic.match, rummy_env.core.meld_table
assert BasicRummyMatch is rummy_env.basic.match.BasicRummyMatch and meld_table is rummy_env.core.meld_table.meld_table
import rummy_env.gin.game, rummy_env.basic.game, rummy_env.vector, rummy_env.gin.vector
assert GinRummyState is rummy_env.gin.game.GinRummyState and BasicRummyState is rummy_env.basic.game.BasicRummyState
assert rummy_env.vector is rummy_env.gin.vector
warnings.simplefilter("error")
try:
    import rummy_env.melds
except DeprecationWarning as w:
    print("warned:", w)
"""
    out = run(code, tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout == ("warned: module 'rummy_env.melds' is deprecated and will be removed in the next release: "
                          "import 'rummy_env.core.melds' instead\n")


def test_the_top_level_packages_of_0_1_are_gone(tmp_path):
    """0.2 announced it: ``agents``, ``train`` and ``eval`` are a user's own names again,
    neither installed nor served by the deprecation finder."""
    code = """
import rummy_env
for name in ("agents", "train", "eval", "agents.heuristic", "train.config", "eval.tournament"):
    try:
        __import__(name)
    except ModuleNotFoundError as e:
        print(name, "missing:", e.name)
"""
    out = run(code, tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:-1] == [
        "agents missing: agents", "train missing: train", "eval missing: eval",
        "agents.heuristic missing: agents", "train.config missing: train", "eval.tournament missing: eval"]


def test_basic_rummys_old_env_name_still_works_with_a_warning(tmp_path):
    """Basic Rummy's env is ``basic_rummy_v0`` now (one name per game); the 0.2 name
    ``rummy_v0`` gives the same env for one release, with a DeprecationWarning naming the new one."""
    code = """
import warnings
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as caught:
    from rummy_env import rummy_v0
from rummy_env import basic_rummy_v0
assert rummy_v0.env is basic_rummy_v0.env and rummy_v0.raw_env is basic_rummy_v0.raw_env
assert [w.category.__name__ for w in caught] == ["DeprecationWarning"], caught
print(caught[0].message)
print(basic_rummy_v0.raw_env(num_players=2).metadata["name"])
"""
    out = run(code, tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout == ("rummy_env.rummy_v0 is deprecated and will be removed in the next release: use "
                          "rummy_env.basic_rummy_v0 (the same env)\nbasic_rummy_v0\n")
