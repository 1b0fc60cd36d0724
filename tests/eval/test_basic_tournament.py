"""Basic Rummy tournaments: tables of 3 and 4, seat rotation over the same deals, records
that replay, ratings from pairwise finishing order, and settings that are refused."""

import json

import pytest

from rummy_env.eval.config import TournamentConfig, load_config
from rummy_env.eval.games import replay_hand
from rummy_env.eval.stats import _pairwise
from rummy_env.eval.tournament import run


def config(tmp_path, **kw):
    base = dict(agents=["random", "heuristic", "heuristic:danger_weight=0"], deals=3,
                out=str(tmp_path / "t"), seed=1, game="rummy", players_per_table=3)
    base.update(kw)
    return TournamentConfig(**base)


def records(path):
    lines = path.read_text().splitlines()
    return json.loads(lines[0])["header"], [json.loads(line) for line in lines[1:]]


def test_three_player_tables_rotate_seats_over_the_same_deals(tmp_path):
    cfg = config(tmp_path)
    assert cfg.rules == "basic"
    summary = run(cfg, progress=False)
    assert summary["games"] == 3 * 3  # one table, 3 deals, 3 rotations
    header, recs = records(cfg.out_dir / "results.jsonl")
    assert header["game"] == "basic" and header["players_per_table"] == 3
    for deal in range(3):
        games = [r for r in recs if r["deal"] == deal]
        assert len({tuple(r["hands"][0]["deck"]) for r in games}) == 1  # the same deck in every rotation
        assert sorted(tuple(r["seats"]) for r in games) == [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
    for r in recs:
        assert sum(r["points"]) == 0 and r["players"] == [cfg.agents[i] for i in r["seats"]]
        replay_hand(r["hands"][0], cfg.rules, "basic", 3)
    assert [row["agent"] for row in summary["ratings"]][-1] == "random"
    for name in ("report.md", "agents.csv", "pairs.csv", "crosstable.png", "ratings.png", "summary.json"):
        assert (cfg.out_dir / name).stat().st_size > 0
    assert "tables of 3" in summary["report"] and "| random |" in summary["report"]


def test_four_agents_at_tables_of_three_and_a_gauntlet(tmp_path):
    agents4 = ["random", "heuristic", "heuristic:danger_weight=0", "heuristic:partial_weight=0"]
    cfg = config(tmp_path, agents=agents4, deals=1)
    assert cfg.tables() == [(0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)]
    assert run(cfg, progress=False)["games"] == 4 * 3
    g = config(tmp_path, agents=agents4, format="gauntlet", candidates=["random"], out=str(tmp_path / "g"))
    assert g.tables() == [(0, 1, 2), (0, 1, 3), (0, 2, 3)]
    four = config(tmp_path, agents=agents4, players_per_table=4, deals=1, mode="matches", out=str(tmp_path / "m"))
    summary = run(four, progress=False)
    _, recs = records(four.out_dir / "results.jsonl")
    assert summary["games"] == 4 and all(max(r["match"]["totals"]) >= 100 for r in recs)


def test_pairwise_placings_from_a_finishing_order():
    # seats 0..2 hold agents 5, 7, 9; seat 1 went out, seats 0 and 2 paid the same.
    rec = {"seats": [5, 7, 9], "order": [[1], [0, 2]]}
    assert sorted(_pairwise(rec)) == [(5, 7, 0.0), (5, 9, 0.5), (7, 9, 1.0)]


def test_bad_rummy_settings_name_what_is_allowed(tmp_path):
    with pytest.raises(ValueError, match="unknown game 'poker'; games: basic, gin, romme"):
        config(tmp_path, game="poker")
    with pytest.raises(ValueError, match="unknown agent 'mcts' for Basic Rummy .'mcts' is an agent of Gin Rummy."):
        config(tmp_path, agents=["mcts", "random"])
    with pytest.raises(ValueError, match="'rummy-random' is Basic Rummy's 'random', not an agent of Gin Rummy"):
        TournamentConfig(agents=["random", "rummy-random"])
    with pytest.raises(ValueError, match="num_players must be an integer 2..4"):
        config(tmp_path, players_per_table=5)
    with pytest.raises(ValueError, match="players_per_table 3 is more than the 2 agents"):
        config(tmp_path, agents=["random", "heuristic"])
    with pytest.raises(ValueError, match="players_per_table must be 2"):
        TournamentConfig(agents=["random", "simple"], players_per_table=3)
    with pytest.raises(ValueError, match="unknown Basic Rummy rules 'eaai'"):
        config(tmp_path, rules="eaai")


def test_gin_identity_is_unchanged_and_the_example_config_loads():
    from pathlib import Path

    assert "game" not in TournamentConfig(agents=["random", "simple"]).identity()
    cfg = load_config(str(Path(__file__).resolve().parents[2] / "configs" / "tournament_rummy.yaml"), deals=1)
    assert cfg.game == "basic" and cfg.players_per_table == 3 and len(cfg.tables()) == 1


def test_cli_tournament_names_the_files_written_and_replay_shows_a_rummy_game(tmp_path, capsys):
    import yaml

    from rummy_env.cli import main
    from rummy_env.basic.game import action_name

    settings = dict(game="basic", players_per_table=3, deals=1, seed=1, workers=1,
                    agents=["random", "heuristic", "heuristic:danger_weight=0"])
    path = tmp_path / "t.yaml"
    path.write_text(yaml.safe_dump(settings))
    out_dir = tmp_path / "t"
    assert main(["tournament", "--config", str(path), "--out", str(out_dir), "--quiet"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last == (f"written: {out_dir}/results.jsonl, summary.json, report.md, agents.csv, pairs.csv, "
                    "crosstable.png, ratings.png")

    _, recs = records(out_dir / "results.jsonl")
    rec = next(r for r in recs if r["rotation"] == 1)  # seats rotated: player_0 is the table's second agent
    hand = rec["hands"][0]
    assert main(["replay", str(out_dir / "results.jsonl"), "--key", rec["key"]]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == (f"Basic Rummy game {rec['key']}: player_0 = heuristic, "
                        "player_1 = heuristic:danger_weight=0, player_2 = random, rules 'basic'")
    moves = [line for line in lines if line.startswith("player_") and ": " in line and "(dealer)" not in line
             and any(line.endswith(action_name(a)) for a in hand["actions"])]
    assert len(moves) >= len(hand["actions"])  # one line per move, named as action_name names it
    r = hand["result"]
    end = (f"hand over: player_{r['winner']} went out ({r['outcome']}), scores {r['points']}" if r["winner"] is not None
           else f"hand over: stalemate ({r['reason']}), no points")
    assert lines[-1] == end

    no_moves = tmp_path / "n"
    assert main(["tournament", "--config", str(path), "--out", str(no_moves), "--quiet", "--no-record"]) == 0
    capsys.readouterr()
    assert main(["replay", str(no_moves / "results.jsonl")]) == 2
    assert "stored without its moves" in capsys.readouterr().err


def test_cli_flags_choose_the_game_and_the_table_size(tmp_path, capsys):
    from rummy_env.cli import main

    out_dir = tmp_path / "flags"
    args = ["tournament", "--game", "rummy", "--players-per-table", "3", "--agents", "random", "heuristic",
            "heuristic:danger_weight=0", "--deals", "1", "--seed", "2", "--out", str(out_dir), "--quiet"]
    assert main(args) == 0
    header, recs = records(out_dir / "results.jsonl")
    assert header["game"] == "basic" and header["players_per_table"] == 3  # "rummy" is an alias
    assert {len(r["players"]) for r in recs} == {3}
    capsys.readouterr()
    assert main(["tournament", "--agents", "random", "simple", "--game", "rummy", "--out", str(tmp_path / "x")]) == 2
    assert "unknown agent 'simple' for Basic Rummy" in capsys.readouterr().err


def test_a_0_1_results_file_with_game_rummy_resumes(tmp_path):
    """0.1 wrote ``game: rummy`` for Basic Rummy; the registry reads it as ``basic``, so such
    a tournament resumes, playing only the games not in the file."""
    cfg = config(tmp_path, deals=2)
    run(cfg, progress=False)
    path = cfg.out_dir / "results.jsonl"
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    header["header"]["game"] = "rummy"
    path.write_text("\n".join([json.dumps(header)] + lines[1:4]) + "\n")  # as 0.1 left it, 3 games played
    played = []
    summary = run(config(tmp_path, deals=2, game="rummy"), progress=False, on_game=played.append)
    assert summary["games"] == 6 and len(played) == 3
    assert json.loads(path.read_text().splitlines()[0])["header"]["game"] == "rummy"  # the file is not rewritten


def test_replay_takes_the_key_and_refuses_the_older_game_flag(tmp_path, capsys):
    from rummy_env.cli import main

    cfg = config(tmp_path, deals=1)
    run(cfg, progress=False)
    _, recs = records(cfg.out_dir / "results.jsonl")
    assert main(["replay", str(cfg.out_dir), "--key", recs[1]["key"]]) == 0
    assert capsys.readouterr().out.startswith(f"Basic Rummy game {recs[1]['key']}:")
    with pytest.raises(SystemExit):  # --game names a game everywhere else: never read as a key
        main(["replay", str(cfg.out_dir), "--game", recs[1]["key"]])
    assert f"--game is now --key (the key of a recorded game, such as {recs[1]['key']})" in capsys.readouterr().err

