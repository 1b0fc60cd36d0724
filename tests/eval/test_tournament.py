"""The tournament evaluator: results, statistics, reports, resume after a crash, records."""

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from rummy_env.eval.config import TournamentConfig, load_config
from rummy_env.eval.games import PairGame, replay_hand
from rummy_env.eval.stats import bradley_terry, massey, ratings
from rummy_env.eval.store import ResultsFileError
from rummy_env.eval.tournament import run


def config(tmp_path, **kw):
    base = dict(agents=["random", "simple"], deals=4, out=str(tmp_path / "t"), seed=3)
    base.update(kw)
    return TournamentConfig(**base)


def records(path):
    lines = path.read_text().splitlines()
    return {json.loads(line)["key"]: json.loads(line) for line in lines[1:]}


def test_round_robin_results_reports_and_replayable_records(tmp_path):
    cfg = config(tmp_path, agents=["random", "simple", "heuristic"])
    summary = run(cfg, progress=False)
    out = cfg.out_dir
    assert summary["games"] == 3 * 4 * 2
    for name in ("results.jsonl", "summary.json", "report.md", "pairs.csv", "crosstable.png", "ratings.png"):
        assert (out / name).stat().st_size > 0
    recs = records(out / "results.jsonl")
    assert len(recs) == 24
    for r in recs.values():
        for hand in r["hands"]:
            state = replay_hand(hand, cfg.rules)
            assert state.result.to_dict() == hand["result"]
    # duplicate deals: both games of a deal start from the same deck, seats swapped
    a, b = recs["0-1-2-0"], recs["0-1-2-1"]
    assert a["hands"][0]["deck"] == b["hands"][0]["deck"] and a["players"] == b["players"][::-1]
    pairs = {(p["a"], p["b"]): p for p in summary["pairs"]}
    assert pairs[("random", "simple")]["a_win_share"] < 0.2
    assert [r["agent"] for r in summary["ratings"]][-1] == "random"
    assert "| simple | heuristic |" in summary["report"]


def test_same_results_whatever_the_worker_count(tmp_path, monkeypatch):
    from rummy_env.eval import tournament

    monkeypatch.setattr(tournament, "CHUNK", 3)  # batched: chunks of 3 games on the 2 workers
    one = run(config(tmp_path, out=str(tmp_path / "one")), progress=False)
    two = run(config(tmp_path, out=str(tmp_path / "two"), workers=2), progress=False)
    assert records(tmp_path / "one" / "results.jsonl") == records(tmp_path / "two" / "results.jsonl")
    assert one["pairs"] == two["pairs"] and one["batched_this_run"] == two["batched_this_run"] == 8


TIMING = ("seconds_this_run", "batched_this_run")


def without_timing(summary):
    return {k: v for k, v in summary.items() if k not in TIMING and k != "config"}


@pytest.mark.parametrize("agents, rules", [
    (["random", "simple", "heuristic:knock=turn"], "classic"),
    (["heuristic:knock=turn,take_margin=-2,late_turn=6", "simple:seed=4", "random:seed=9"], "eaai"),
    (["ppo", "ppo:greedy=false", "simple"], "classic"),
    (["heuristic", "heuristic:knock_value=8,knock_worlds=12,seed=3", "simple"], "eaai"),
])
def test_many_games_at_once_give_the_same_results_file_as_one_at_a_time(tmp_path, agents, rules):
    """The batched path (the vector engine, the agents' array versions) plays the very same
    games: results.jsonl equal line by line, the summary equal but for timing."""
    if agents[0] == "ppo":
        pytest.importorskip("torch")
    deals = 2 if agents[0] == "ppo" else 4 if agents[0] == "heuristic" else 8
    off = run(config(tmp_path, agents=agents, rules=rules, deals=deals, out=str(tmp_path / "off"), batch="off"),
              progress=False)
    auto = run(config(tmp_path, agents=agents, rules=rules, deals=deals, out=str(tmp_path / "auto")), progress=False)
    assert off["batched_this_run"] == 0 and auto["batched_this_run"] == auto["played_this_run"] == 3 * deals * 2
    lines = [(tmp_path / path / "results.jsonl").read_text().splitlines() for path in ("off", "auto")]
    assert lines[0] == lines[1]
    assert without_timing(off) == without_timing(auto)
    assert {k: v for k, v in off["config"].items() if k != "batch"} == {k: v for k, v in auto["config"].items() if k != "batch"}
    for r in records(tmp_path / "auto" / "results.jsonl").values():
        assert replay_hand(r["hands"][0], rules).result.to_dict() == r["hands"][0]["result"]


def test_pairs_without_array_versions_and_matches_are_played_one_game_at_a_time(tmp_path):
    # the search agent has no array version
    cfg = config(tmp_path, agents=["random", "mcts:simulations=4", "simple"], deals=2)
    mixed = run(cfg, progress=False)
    assert mixed["batched_this_run"] == 4  # random vs simple only
    off = run(config(tmp_path, agents=cfg.agents, deals=2, out=str(tmp_path / "off"), batch="off"), progress=False)
    assert records(cfg.out_dir / "results.jsonl") == records(tmp_path / "off" / "results.jsonl")
    assert without_timing(mixed) == without_timing(off)
    matches = run(config(tmp_path, rules="eaai", mode="matches", deals=1, out=str(tmp_path / "m")), progress=False)
    assert matches["batched_this_run"] == 0 and matches["played_this_run"] == 2


def test_a_batched_run_writes_as_it_goes_and_resumes_after_a_crash(tmp_path):
    cfg = config(tmp_path, agents=["random", "simple", "heuristic:knock=turn"], deals=30)
    seen = []

    def crash(record):
        seen.append(record["key"])
        if len(seen) == 40:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run(cfg, progress=False, on_game=crash)
    results = cfg.out_dir / "results.jsonl"
    written = len(results.read_text().splitlines()) - 1
    assert 40 <= written < 180  # the finished games were written before the crash, not all games
    with results.open("a") as f:  # and a line cut in half by it
        f.write('{"key": "0-1-29-1", "hands": [')
    resumed = run(cfg, progress=False)
    assert resumed["played_this_run"] == resumed["batched_this_run"] == 180 - written
    assert len(results.read_text().splitlines()) == 181  # header + every game once
    whole = config(tmp_path, agents=cfg.agents, deals=30, out=str(tmp_path / "whole"), batch="off")
    run(whole, progress=False)
    assert records(results) == records(whole.out_dir / "results.jsonl")


def test_matches_mode_and_gauntlet(tmp_path):
    cfg = config(tmp_path, agents=["random", "simple", "heuristic"], format="gauntlet", candidates=["heuristic"],
                 mode="matches", rules="eaai", deals=1)
    summary = run(cfg, progress=False)
    assert summary["batched_this_run"] == 0  # matches, and heuristic's knock estimate: one game at a time
    assert {(p["a"], p["b"]) for p in summary["pairs"]} == {("heuristic", "random"), ("heuristic", "simple")}
    rec = next(iter(records(cfg.out_dir / "results.jsonl").values()))
    assert len(rec["hands"]) >= 1 and max(rec["match"]["hand_points"]) >= 100


def test_a_killed_run_resumes_without_losing_or_repeating_games(tmp_path):
    out = tmp_path / "killed"
    cmd = [sys.executable, "-m", "rummy_env.cli", "tournament", "--agents", "simple", "heuristic", "--deals", "40",
           "--out", str(out), "--seed", "5", "--quiet", "--batch", "off"]  # one game at a time: slow enough to kill
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    results = out / "results.jsonl"
    deadline = time.time() + 120
    while time.time() < deadline and (not results.exists() or len(results.read_text().splitlines()) < 12):
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    partial = len(results.read_text().splitlines()) - 1
    assert 0 < partial < 80
    with results.open("a") as f:  # as if the crash cut a line in half
        f.write('{"key": "0-1-39-1", "hands": [')
    subprocess.run(cmd, check=True, timeout=300, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    resumed = records(results)
    assert len(results.read_text().splitlines()) == 81  # header + 80 games, none twice
    whole = run(load_config(agents=["simple", "heuristic"], deals=40, out=str(tmp_path / "whole"), seed=5), progress=False)
    assert resumed == records(tmp_path / "whole" / "results.jsonl") and whole["games"] == 80


def test_kill_stops_a_run_like_ctrl_c_with_one_line_and_it_resumes(tmp_path):
    out = tmp_path / "stopped"
    cmd = [sys.executable, "-m", "rummy_env.cli", "tournament", "--agents", "simple", "heuristic", "--deals", "20",
           "--out", str(out), "--seed", "6", "--quiet", "--batch", "off", "--workers", "2"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    results = out / "results.jsonl"
    deadline = time.time() + 120
    while time.time() < deadline and (not results.exists() or len(results.read_text().splitlines()) < 4):
        time.sleep(0.05)
    proc.terminate()  # SIGTERM, as `kill` sends
    err = proc.communicate(timeout=60)[1]
    assert proc.returncode == 130, err
    assert err.strip() == "rummy tournament: stopped; the files written so far are kept"
    assert len(results.read_text().splitlines()) - 1 < 40
    subprocess.run(cmd, check=True, timeout=300, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert len(results.read_text().splitlines()) == 41  # header + 40 games, none twice


def test_mismatched_or_damaged_results_files_are_refused_not_overwritten(tmp_path):
    cfg = config(tmp_path)
    run(cfg, progress=False)
    path = cfg.out_dir / "results.jsonl"
    before = path.read_text()
    with pytest.raises(ResultsFileError, match="seed: file has 3, this run 5"):
        run(config(tmp_path, seed=5), progress=False)
    lines = before.splitlines()
    lines[2] = "{not json"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ResultsFileError, match="line 3 is not valid JSON"):
        run(cfg, progress=False)
    assert path.read_text().splitlines()[2] == "{not json"
    other = tmp_path / "other" / "results.jsonl"
    other.parent.mkdir()
    other.write_text('{"hello": 1}\n')
    with pytest.raises(ResultsFileError, match="does not start with a tournament header"):
        run(config(tmp_path, out=str(other.parent)), progress=False)
    assert other.read_text() == '{"hello": 1}\n'


def test_a_finished_tournament_grows_with_more_deals_keeping_its_games(tmp_path, capsys):
    from rummy_env.cli.main import main

    path = tmp_path / "t" / "results.jsonl"
    run(config(tmp_path, deals=2), progress=False)
    before = path.read_text().splitlines()
    grown = run(config(tmp_path, deals=5), progress=False)
    assert grown["grown_from_deals"] == 2 and grown["played_this_run"] == 6 and grown["games"] == 10
    after = path.read_text().splitlines()
    assert after[1:5] == before[1:] and len(after) == 11  # the old games kept as they were, the new ones added
    assert json.loads(after[0])["header"] == {**json.loads(before[0])["header"], "deals": 5}
    fresh = run(config(tmp_path, deals=5, out=str(tmp_path / "fresh")), progress=False)
    assert records(path) == records(tmp_path / "fresh" / "results.jsonl")  # as if it had been 5 deals from the start
    assert all(grown[k] == fresh[k] for k in ("agents", "pairs", "ratings", "points_ratings", "report"))
    assert "5 duplicate deals per pair" in (tmp_path / "t" / "report.md").read_text()
    assert json.loads((tmp_path / "t" / "summary.json").read_text())["games"] == 10
    again = run(config(tmp_path, deals=5), progress=False)  # nothing left to play
    assert again["played_this_run"] == 0 and again["grown_from_deals"] is None
    whole = path.read_text()
    with pytest.raises(ResultsFileError, match="holds a tournament of 5 deals; this run asks for 3: a tournament can "
                                               "be grown \\(more deals\\) but not shrunk; rerun with --deals 5 or more"):
        run(config(tmp_path, deals=3), progress=False)
    with pytest.raises(ResultsFileError, match="belongs to another tournament \\(deals: file has 5, this run 8, "
                                               "seed: file has 3, this run 4\\)"):
        run(config(tmp_path, deals=8, seed=4), progress=False)
    assert path.read_text() == whole
    assert main(["tournament", "--agents", "random", "simple", "--deals", "6", "--seed", "3", "--out",
                 str(tmp_path / "t"), "--quiet"]) == 0
    assert "grown from 5 to 6 deals: the games of the first 5 were kept, 2 new ones played" in capsys.readouterr().out


def test_a_tables_tournament_grows_too(tmp_path):
    base = dict(game="basic", agents=["random", "heuristic"], out=str(tmp_path / "t"), seed=2)
    run(TournamentConfig(**base, deals=1), progress=False)
    grown = run(TournamentConfig(**base, deals=2), progress=False)
    assert grown["grown_from_deals"] == 1 and grown["played_this_run"] == 2
    run(TournamentConfig(**{**base, "out": str(tmp_path / "fresh")}, deals=2), progress=False)
    assert records(tmp_path / "t" / "results.jsonl") == records(tmp_path / "fresh" / "results.jsonl")


def test_bad_settings_name_what_is_allowed(tmp_path):
    with pytest.raises(ValueError, match="at least 2 agents"):
        config(tmp_path, agents=["simple"])
    with pytest.raises(ValueError, match="unknown agent 'champion'"):
        config(tmp_path, agents=["simple", "champion"])
    with pytest.raises(ValueError, match="mode must be one of"):
        config(tmp_path, mode="sets")
    with pytest.raises(ValueError, match="needs rules with a target score"):
        config(tmp_path, mode="matches", rules="openspiel")
    with pytest.raises(ValueError, match="unknown tournament setting.*'deal'"):
        load_config(agents=["simple", "random"], deal=3)
    with pytest.raises(ValueError, match="batch must be one of \\('auto', 'off'\\), got 'on'"):
        config(tmp_path, batch="on")
    yaml_path = tmp_path / "t.yaml"
    yaml_path.write_text("agents: [simple, random]\ndeals: 7\n")
    assert load_config(str(yaml_path), deals=2).deals == 2


def test_bradley_terry_orders_and_centres_ratings():
    wins = np.array([[0, 30, 40], [10, 0, 30], [0, 10, 0]], dtype=float)
    elo = bradley_terry(wins)
    assert elo[0] > elo[1] > elo[2] and abs(elo.sum()) < 1e-6
    even = bradley_terry(np.array([[0, 20], [20, 0]], dtype=float))
    assert np.allclose(even, 0)


def test_points_ratings_fit_the_pairs_mean_margins():
    # A beats B by 10 a game (2 games), B beats C by 4 (1 game), A beats C by 14 (3 games):
    # consistent margins, so the fit is exact: A - B = 10, B - C = 4, centred: 8, -2, -6
    margins = np.zeros((3, 3))
    counts = np.zeros((3, 3))
    for i, j, margin, games in ((0, 1, 10, 2), (1, 2, 4, 1), (0, 2, 14, 3)):
        margins[i, j], margins[j, i], counts[i, j] = margin * games / 2, -margin * games / 2, games
    assert np.allclose(massey(margins, counts), [8, -2, -6])
    # inconsistent margins, one game each: A-B 10, B-C 0, A-C 0. Least squares: the normal
    # equations (a-b-10) + (a-c) = 0 and -(a-b-10) + (b-c) = 0 with a+b+c = 0 give 10/3, -10/3, 0
    margins[:] = 0
    margins[0, 1], margins[1, 0] = 5, -5
    counts[:] = 0
    counts[0, 1] = counts[1, 2] = counts[0, 2] = 1
    assert np.allclose(massey(margins, counts), [10 / 3, -10 / 3, 0])


def test_the_two_ratings_can_disagree_and_the_report_says_why(tmp_path):
    """Agent 0 wins one game in three, by 30; agent 1 wins the others by 5: agent 1 has
    more wins, agent 0 more points (30 - 5 - 5 = +20 over three games: +20/3 a game, so
    ratings +10/3 and -10/3)."""
    records = []
    for deal in range(30):
        for swap in (0, 1):
            won = deal % 3 == 0
            margin0 = 30 if won else -5  # agent 0's points
            winner0 = 0 if won else 1  # in agent 0's seat terms
            seat0 = swap
            records.append({"i": 0, "j": 1, "deal": deal, "swap": swap, "hands": [],
                            "winner": seat0 if winner0 == 0 else 1 - seat0,
                            "margin": margin0 if seat0 == 0 else -margin0})
    names = ["big-hands", "small-hands"]
    assert ratings(records, names)[0]["agent"] == "small-hands"
    points = ratings(records, names, kind="points")
    assert points[0]["agent"] == "big-hands" and points[0]["rating"] == pytest.approx(20 / 6)
    assert points[0]["ci95_low"] > 0
    cfg = config(tmp_path, agents=["random", "simple", "heuristic"], deals=2)
    summary = run(cfg, progress=False)
    report = (cfg.out_dir / "report.md").read_text()
    assert "points rating" in report and "wins rating" in report and "an agent that wins fewer but bigger" in report
    assert [r["agent"] for r in summary["points_ratings"]][-1] == "random"
    assert {r["agent"] for r in summary["points_ratings"]} == {r["agent"] for r in summary["ratings"]}


def test_replay_command_steps_through_a_recorded_game(tmp_path):
    cfg = config(tmp_path, deals=1)
    assert run(cfg, progress=False)["batched_this_run"] == 2  # records of the batched path replay
    out = subprocess.run([sys.executable, "-m", "rummy_env.cli", "replay", str(cfg.out_dir / "results.jsonl"),
                          "--key", "0-1-0-1"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "game 0-1-0-1" in out.stdout and "hand over" in out.stdout
    bad = subprocess.run([sys.executable, "-m", "rummy_env.cli", "replay", str(cfg.out_dir / "results.jsonl"),
                          "--key", "9-9-9-9"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "no game '9-9-9-9'" in bad.stderr
    assert PairGame(0, 1, 2, 1).key == "0-1-2-1"
    folder = subprocess.run([sys.executable, "-m", "rummy_env.cli", "replay", str(cfg.out_dir)], capture_output=True,
                            text=True, timeout=60)
    assert folder.returncode == 0 and "game 0-1-0-0" in folder.stdout  # the folder names its results.jsonl


@pytest.mark.parametrize("content, message", [
    ("hello\n", "line 1 is not valid JSON"),
    ('{"a": 1}\n', "does not start with a tournament header"),
    ("", "does not start with a tournament header"),
    ('{"header": {}}\n[1, 2]\n', "line 2 is not a game record"),
    (None, "not found"),
    ("dir", "results.jsonl not found"),
])
def test_replay_of_a_wrong_file_names_the_file_and_what_was_expected(tmp_path, content, message):
    path = tmp_path / "x.jsonl"
    if content == "dir":
        path = tmp_path
    elif content is not None:
        path.write_text(content)
    out = subprocess.run([sys.executable, "-m", "rummy_env.cli", "replay", str(path)], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.startswith(f"rummy replay: error: {path}") and message in out.stderr
    assert "expected a results.jsonl written by rummy tournament" in out.stderr


def test_ray_backend_gives_the_same_results_as_local_workers(tmp_path):
    import ray  # noqa: F401  (the ray extra is part of .[dev], which the test command installs)

    args = ["--agents", "random", "simple", "--deals", "3", "--seed", "2", "--quiet"]
    for backend, out in (("ray", "r"), ("local", "l")):
        subprocess.run([sys.executable, "-m", "rummy_env.cli", "tournament", *args, "--backend", backend,
                        "--out", str(tmp_path / out)], check=True, timeout=300, capture_output=True)
    assert records(tmp_path / "r" / "results.jsonl") == records(tmp_path / "l" / "results.jsonl")


def test_the_example_config_loads():
    from pathlib import Path

    cfg = load_config(str(Path(__file__).resolve().parents[2] / "configs" / "tournament.yaml"), deals=1)
    assert cfg.deals == 1 and "heuristic" in cfg.agents and cfg.pairs()


def test_a_tournament_of_one_deal_says_it_has_no_interval_rather_than_nan(tmp_path):
    summary = run(load_config(None, agents=["random", "simple"], deals=1, out=str(tmp_path / "one")), progress=False)
    assert "nan" not in summary["report"] and "(one deal: no interval)" in summary["report"]
    assert "nan" not in (tmp_path / "one" / "report.md").read_text()
