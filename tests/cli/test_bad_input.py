"""A user's mistake in a file, a setting or an argument is one line naming the file (and
line) or the setting, and what is allowed: never a traceback, never a silent guess."""

import json
import re

import numpy as np
import pytest

from rummy_env import gin_rummy_v0, romme_v0, basic_rummy_v0
from rummy_env.cli.main import main
from rummy_env.core.yaml_files import parse_value, read_mapping
from rummy_env.eval.config import TournamentConfig, load_config
from rummy_env.eval.store import ResultsFileError, read_results
from rummy_env.eval.tournament import run
from rummy_env.gin.rules import load_rules

SYNTAX = "knock_limit: 10\nbig_gin_bonus: [10\n"  # the list is never closed
WHERE = r"is not valid YAML: line 3, column 1: expected ',' or '\]', but got '<stream end>' " \
        r"\(while parsing a flow sequence that starts on line 2\)"


def cli(capsys, *argv):
    """``rummy ARGV`` in this process: its exit status and its stderr's lines."""
    code = main(list(argv))
    return code, capsys.readouterr().err.strip().splitlines()


# ------------------------------------------------------------------- YAML files


def test_a_yaml_syntax_error_names_the_file_the_line_and_the_problem(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(SYNTAX)
    with pytest.raises(ValueError, match=f"^rules file {path} {WHERE}$"):
        load_rules(path)
    with pytest.raises(ValueError, match=f"^rules file {path} {WHERE}$"):
        gin_rummy_v0.env(rules=str(path))
    path.write_text("preset: basic\ndeck: [1, 2\n")
    with pytest.raises(ValueError, match=f"^rules file {path} is not valid YAML: line 3"):
        basic_rummy_v0.env(rules=str(path))
    with pytest.raises(ValueError, match=f"^rules file {path} is not valid YAML: line 3"):
        romme_v0.env(rules=str(path))


def test_a_file_that_is_not_text_is_named_as_such(tmp_path):
    path = tmp_path / "garbage.yaml"
    path.write_bytes(bytes(range(128, 256)))
    with pytest.raises(ValueError, match=f"^rules file {path} is not a text file \\(UTF-8\\)"):
        load_rules(path)
    path.write_text("knock_limit: 10\nx: \x01\n")  # UTF-8, but a control character
    with pytest.raises(ValueError, match=f"^rules file {path} is not text: it holds the control character #x0001 on line 2$"):
        load_rules(path)


def test_every_config_loader_reads_through_the_same_checks(tmp_path):
    from rummy_env.train import config, expert_config

    path = tmp_path / "bad.yaml"
    path.write_text(SYNTAX)
    for load, what in ((config.load_config, "training config"),
                       (expert_config.load_config, "expert iteration config"),
                       (load_config, "tournament config")):
        with pytest.raises(ValueError, match=f"^{what} {path} {WHERE}$"):
            load(str(path))
    path.write_text("1: 2\n")
    with pytest.raises(ValueError, match="settings are named by text, got 1"):
        load_config(str(path))
    path.write_text("- random\n- simple\n")
    with pytest.raises(ValueError, match=f"^tournament config {path} must be a YAML mapping of settings .*got a list$"):
        load_config(str(path))
    path.write_text("# nothing set\n")
    assert read_mapping(path, "tournament config") == {}


def test_a_command_line_value_that_is_not_yaml_names_the_setting(capsys):
    from rummy_env.train import config

    with pytest.raises(ValueError, match=r"^hidden '\[64' is not valid YAML: expected ',' or '\]'"):
        config.load_config(overrides={"hidden": "[64"})
    with pytest.raises(ValueError, match=r"^hidden '\[64' is not valid YAML"):
        config.load_config(overrides={"game": "basic", "hidden": "[64"})
    with pytest.raises(ValueError, match=r"^opponents.heuristic '\[' is not valid YAML"):
        config.load_config(overrides={"opponents.heuristic": "["})
    assert parse_value("[64, 64]", "hidden") == [64, 64]


@pytest.mark.parametrize("command", ["tournament", "train", "train-basic", "expert-iteration"])
def test_the_cli_prints_one_line_for_a_config_with_a_syntax_error(tmp_path, capsys, command):
    path = tmp_path / "bad.yaml"
    path.write_text(SYNTAX)
    extra = ["--out", str(tmp_path / "out")] if command in ("tournament", "expert-iteration") else []
    code, err = cli(capsys, command, "--config", str(path), *extra)
    if command == "train-basic":  # the deprecated alias of train --game basic says so first
        assert "deprecated" in err.pop(0)
    assert code == 2 and len(err) == 1 and err[0].startswith(f"rummy {command}: error: ")
    assert f"{path} is not valid YAML: line 3, column 1" in err[0]
    assert not (tmp_path / "out").exists()


def test_the_cli_prints_one_line_for_a_rules_file_that_is_not_text(tmp_path, capsys):
    path = tmp_path / "garbage.yaml"
    path.write_bytes(b"\xff\xfe\x00")
    code, err = cli(capsys, "tournament", "--agents", "random", "simple", "--rules", str(path),
                    "--out", str(tmp_path / "out"))
    assert code == 2 and err == [f"rummy tournament: error: rules file {path} is not a text file (UTF-8): "
                                 "byte 0 cannot be read as text"]
    assert not (tmp_path / "out").exists()


# ------------------------------------------------------------- tournament settings


@pytest.mark.parametrize("setting, message", [
    ("deals: two", "deals must be a whole number >= 1, got 'two'"),
    ("deals: 2.5", "deals must be a whole number >= 1, got 2.5"),
    ("deals: 0", "deals must be a whole number >= 1, got 0"),
    ("deals: true", "deals must be a whole number >= 1, got True"),
    ("agents: random", "agents must be a list of agent specs, e.g. [random, simple]; got the text 'random'"),
    ("agents: [random, 3]", "agents must be a list of agent specs, e.g. [random, simple]; got ['random', 3]"),
    ("candidates: random", "candidates must be a list of agent specs"),
    ("seed: -1", "seed must be a whole number >= 0, got -1"),
    ("seed: 1.5", "seed must be a whole number >= 0, got 1.5"),
    ("workers: many", "workers must be a whole number >= 1, got 'many'"),
    ("players_per_table: [2]", "players_per_table must be a whole number >= 2, got [2]"),
    ("record: maybe", "record must be true or false, got 'maybe'"),
    ("game: [gin]", "game must be the name of a game"),
    ("rules: 5", "rules must be a preset name, a YAML path or a mapping of rule options, got 5"),
    ("out: [a]", "out must be a folder path, got ['a']"),
    ("address: 5", "address must be text (a Ray address) or null, got 5"),
])
def test_tournament_settings_of_the_wrong_type_are_one_line_and_write_nothing(tmp_path, capsys, setting, message):
    path = tmp_path / "t.yaml"
    out = tmp_path / "out"
    path.write_text(f"agents: [random, simple]\ndeals: 1\nout: {out}\n{setting}\n")
    with pytest.raises(ValueError, match="^" + re.escape(message)):
        load_config(str(path))
    code, err = cli(capsys, "tournament", "--config", str(path), "--quiet")
    assert code == 2 and len(err) == 1 and err[0].startswith(f"rummy tournament: error: {message}")
    assert not out.exists()


def test_a_refused_run_leaves_out_untouched_and_the_corrected_run_goes_ahead(tmp_path, capsys):
    path = tmp_path / "t.yaml"
    out = tmp_path / "out"
    path.write_text(f"agents: [random, simple]\ndeals: 2.5\nout: {out}\n")
    assert cli(capsys, "tournament", "--config", str(path), "--quiet")[0] == 2
    assert not out.exists()
    path.write_text(f"agents: [random, simple]\ndeals: 2\nout: {out}\n")
    assert main(["tournament", "--config", str(path), "--quiet"]) == 0
    assert json.loads((out / "results.jsonl").read_text().splitlines()[0])["header"]["deals"] == 2


def test_a_setting_changed_after_the_checks_is_refused_before_anything_is_written(tmp_path):
    cfg = TournamentConfig(agents=["random", "simple"], deals=1, out=str(tmp_path / "out"))
    cfg.deals = 2.5
    with pytest.raises(ValueError, match="deals must be a whole number >= 1, got 2.5"):
        run(cfg, progress=False)
    assert not (tmp_path / "out").exists()


# ------------------------------------------------------------------ results files


def _played(tmp_path, deals=2):
    cfg = TournamentConfig(agents=["random", "simple"], deals=deals, out=str(tmp_path / "t"), seed=1)
    run(cfg, progress=False)
    return cfg, cfg.out_dir / "results.jsonl"


def _edit_line(path, number, change):
    lines = path.read_text().splitlines()
    record = json.loads(lines[number - 1])
    change(record)
    lines[number - 1] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")


def test_resuming_a_record_with_missing_fields_names_the_line_and_the_fields(tmp_path, capsys):
    cfg, path = _played(tmp_path)
    _edit_line(path, 3, lambda r: (r.pop("swap"), r.pop("winner")))
    before = path.read_text()
    with pytest.raises(ResultsFileError, match=f"^{path} line 3: game '0-1-0-1' lacks the fields? swap, winner"):
        run(cfg, progress=False)
    code, err = cli(capsys, "tournament", "--agents", "random", "simple", "--deals", "2", "--seed", "1",
                    "--out", str(cfg.out_dir), "--quiet")
    assert code == 2 and len(err) == 1 and "line 3: game '0-1-0-1' lacks the fields swap, winner" in err[0]
    assert path.read_text() == before


def test_resuming_a_record_that_contradicts_its_key_or_is_not_scheduled_names_the_line(tmp_path):
    cfg, path = _played(tmp_path)
    before = path.read_text()
    _edit_line(path, 2, lambda r: r.update(j=5))
    with pytest.raises(ResultsFileError, match=f"^{path} line 2: game '0-1-0-0' has j 5, but its key says 1"):
        run(cfg, progress=False)
    path.write_text(before)
    _edit_line(path, 4, lambda r: r.update(key="0-1-7-0", deal=7))
    with pytest.raises(ResultsFileError, match=f"^{path} line 4: game '0-1-7-0' is not one of this tournament's games"):
        run(cfg, progress=False)
    path.write_text(before + before.splitlines()[2] + "\n")
    with pytest.raises(ResultsFileError, match=f"^{path} line 6: game '0-1-0-1' is recorded twice \\(line 3 holds it too\\)"):
        run(cfg, progress=False)
    path.write_text(before.replace('"key":"0-1-1-0"', '"key":[0]'))
    with pytest.raises(ResultsFileError, match=f"^{path} line 4 is not a game record"):
        run(cfg, progress=False)


def test_replay_of_a_file_with_a_line_cut_off_names_the_line(tmp_path, capsys):
    cfg, path = _played(tmp_path)
    path.write_text(path.read_text()[:-40])  # the last line cut in the middle of its JSON
    code, err = cli(capsys, "replay", str(path))
    assert code == 2 and len(err) == 1
    assert err[0] == (f"rummy replay: error: {path} line 5 is cut off (no newline at its end: a write that did not "
                      "finish, as when a run is killed); rerun the tournament to repair it (it plays that game again)")
    with pytest.raises(ResultsFileError, match="line 5 is cut off"):
        read_results(path)
    assert len(read_results(path, live=True)[1]) == 3  # a file being written: the line is not there yet
    assert run(cfg, progress=False)["played_this_run"] == 1  # the tournament's rerun repairs it
    assert main(["replay", str(path)]) == 0


def test_replay_of_a_record_with_missing_fields_names_the_line(tmp_path, capsys):
    cfg, path = _played(tmp_path)
    _edit_line(path, 2, lambda r: r.pop("players"))
    code, err = cli(capsys, "replay", str(path))
    assert code == 2 and err == [f"rummy replay: error: {path} line 2: game '0-1-0-0' lacks the field players; "
                                 "expected a results.jsonl written by rummy tournament (a JSON header line, then one "
                                 "JSON game record per line)"]


def test_replay_takes_key_and_refuses_the_old_game_spelling(tmp_path, capsys):
    cfg, path = _played(tmp_path, deals=1)
    assert main(["replay", str(path), "--key", "0-1-0-1"]) == 0
    assert "game 0-1-0-1" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_:
        main(["replay", str(path), "--game", "0-1-0-1"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["rummy replay: error: --game is now --key (the key of a recorded game, such as 0-1-0-1); "
                   "elsewhere --game names a game such as gin"]


# ------------------------------------------------------------------ env reset


@pytest.mark.parametrize("make", [gin_rummy_v0.raw_env, basic_rummy_v0.raw_env, romme_v0.raw_env])
def test_reset_names_a_bad_seed(make):
    env = make()
    for seed in (-1, 1.5, "1", True, [1]):
        with pytest.raises(ValueError, match=f"^reset seed must be a whole number >= 0 or None, got {seed!r}$".replace(
                "[", r"\[").replace("]", r"\]")):
            env.reset(seed=seed)
    env.reset(seed=np.int64(3))
    env.reset(seed=None)


@pytest.mark.parametrize("make", [gin_rummy_v0.raw_env, basic_rummy_v0.raw_env, romme_v0.raw_env])
def test_reset_refuses_a_deck_of_text_or_fractions_instead_of_coercing_it(make):
    env = make()
    env.reset(seed=0)
    size = len(env.game.deck)
    ids = list(range(size))[::-1]
    for deck in ([str(c) for c in ids], [float(c) for c in ids], np.array(ids, dtype=float), np.array(ids).astype(str),
                 [True] + ids[1:], ids[:-1] + [None]):
        with pytest.raises(ValueError, match=f"^reset option deck must be a sequence of whole numbers \\(card ids "
                                             f"0..{size - 1}\\), got "):
            env.reset(options={"deck": deck})
    with pytest.raises(ValueError, match="reset option deck must be a sequence of whole numbers"):
        env.reset(options={"deck": 7})
    for deck in (ids, np.array(ids), np.array(ids, dtype=np.uint8 if size < 256 else np.int16), tuple(ids)):
        env.reset(options={"deck": deck})
        assert list(env.game.deck) == ids


@pytest.mark.parametrize("seed", ["-1", "1.5", "x"])
def test_rummy_play_names_a_bad_seed(seed, capsys):
    with pytest.raises(SystemExit) as refused:
        main(["play", "--seed", seed])
    assert refused.value.code == 2
    assert f"argument --seed: must be a whole number >= 0, got '{seed}'" in capsys.readouterr().err
