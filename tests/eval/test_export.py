"""``rummy export``: every line checked against a replay of its game (the position, the legal
moves, the move played, the outcome) and against what the env showed the agent in a match;
nothing but the outcome changes when the other seats' hidden cards are dealt otherwise; a
crash or a limit loses nothing and a rerun duplicates nothing; bad input gets one line;
and the trainer's warm start reads an exported file, refusing one of another game or rules."""

import json

import numpy as np
import pytest

from rummy_env.cli import main
from rummy_env.core.game import get_game
from rummy_env.core.traces import FIELDS
from rummy_env.eval import export as export_module
from rummy_env.eval.config import TournamentConfig
from rummy_env.eval.export import decision_fields, export
from rummy_env.eval.games import deal_seed
from rummy_env.eval.store import read_results
from rummy_env.eval.tournament import run

# a tiny tournament of each game: 2 deals (Rommé's hands cut at 30 turns, random play being long)
GAMES = {
    "gin": dict(agents=["random", "heuristic"]),
    "basic": dict(agents=["random", "heuristic", "heuristic:danger_weight=0"], players_per_table=3),
    "romme": dict(agents=["random", "heuristic"], rules={"preset": "romme", "max_turns": 30}),
}


@pytest.fixture(scope="module")
def tournaments(tmp_path_factory):
    """Each game's tiny tournament folder (played once for the module)."""
    root = tmp_path_factory.mktemp("tournaments")
    folders = {}
    for name, settings in GAMES.items():
        config = TournamentConfig(game=name, deals=2, seed=3, out=str(root / name), **settings)
        run(config, progress=False)
        folders[name] = root / name
    return folders


def lines_of(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("name", list(GAMES))
def test_every_line_is_a_decision_of_the_replayed_game(tournaments, tmp_path, name):
    header, records = read_results(tournaments[name])
    game = get_game(name)
    rules = game.load_rules(header["rules"])
    out = tmp_path / "d.jsonl"
    summary = export(tournaments[name], out, view="json")
    lines = lines_of(out)
    assert summary.complete and summary.lines == len(lines) == summary.new_lines and summary.games == len(records)
    expected = []  # (key, hand, step) of every real choice, found by replaying the records here
    for record in records:
        for h, hand in enumerate(record["hands"]):
            state = game.deal(rules, len(record["players"]), deck=hand["deck"], dealer=hand["dealer"])
            for step, action in enumerate(hand["actions"]):
                if len(state.legal_actions()) > 1:
                    expected.append((record["key"], h, step, state.clone()))
                state.step(action)
            assert state.result.to_dict() == hand["result"]
    assert [(x["key"], x["hand"], x["step"]) for x in lines] == [e[:3] for e in expected]
    by_key = {r["key"]: r for r in records}
    encoding = game.encoding("json")
    for line, (key, h, step, state) in zip(lines, expected):
        record, hand = by_key[key], by_key[key]["hands"][h]
        seat = state.current_player
        assert tuple(line) == FIELDS and line["game"] == name and game.load_rules(line["rules"]) == rules and line["mode"] == "hands"
        assert line["seat"] == seat and line["agent"] == record["players"][seat]
        assert line["num_players"] == len(record["players"]) and line["view"] == "json"
        assert [m["id"] for m in line["legal"]] == state.legal_actions() and len(line["legal"]) > 1
        assert [m["name"] for m in line["legal"]] == [game.action_name(a, rules) for a in state.legal_actions()]
        assert line["action"] == {"id": hand["actions"][step], "name": game.action_name(hand["actions"][step], rules)}
        assert line["action"]["id"] in state.legal_actions()
        assert line["observation"] == json.loads(encoding.encode(state.information_set(seat), rules))
        assert line["reward"] == hand["result"]["rewards"][seat] and line["outcome"] == hand["result"]["outcome"]
        assert line["won"] == (hand["result"]["winner"] == seat)
    assert {x["agent"] for x in lines} == set(header["agents"])


def test_the_flat_view_of_a_match_is_what_the_env_showed_the_agent(tmp_path):
    config = TournamentConfig(agents=["random", "simple"], mode="matches", deals=1, seed=2, out=str(tmp_path / "m"))
    run(config, progress=False)
    _, records = read_results(tmp_path / "m")
    out = tmp_path / "d.jsonl"
    export(tmp_path / "m", out, view="flat", forced=True)
    lines = lines_of(out)
    game = get_game("gin")
    assert {x["mode"] for x in lines} == {"matches"} and len({x["hand"] for x in lines}) > 1  # a match of several hands
    for record in records:
        env = game.raw_env(num_players=2, rules=config.rules, episode="match", encoding="flat")
        env.reset(seed=deal_seed(config.seed, record["deal"]), options={"dealer": 1})  # as the tournament played it
        mine = iter(x for x in lines if x["key"] == record["key"])
        for h, hand in enumerate(record["hands"]):
            assert list(env.game.deck) == hand["deck"]
            for step, action in enumerate(hand["actions"]):
                line = next(mine)
                assert (line["hand"], line["step"]) == (h, step)
                shown = env.observe(env.agent_selection)
                assert np.array_equal(np.array(line["observation"], dtype=np.float32), shown["observation"])
                assert [m["id"] for m in line["legal"]] == np.flatnonzero(shown["action_mask"]).tolist()
                env.step(action)
        assert next(mine, None) is None


@pytest.mark.parametrize("name", list(GAMES))
def test_a_line_does_not_change_when_the_hidden_cards_are_dealt_otherwise(tournaments, name):
    header, records = read_results(tournaments[name])
    game = get_game(name)
    rules = game.load_rules(header["rules"])
    rng = np.random.default_rng(0)
    changed = checked = 0
    for record in records[:2]:
        hand = record["hands"][0]
        state = game.deal(rules, len(record["players"]), deck=hand["deck"], dealer=hand["dealer"])
        for step, action in enumerate(hand["actions"]):
            if step % 3 == 0:  # every third position: the views cost a few milliseconds each
                seat = state.current_player
                other = game.redeal_hidden(state, seat, rng)
                changed += other.card_places() != state.card_places()
                for view in export_module.VIEWS:
                    assert decision_fields(game, rules, other, view) == decision_fields(game, rules, state, view)
                checked += 1
            state.step(action)
    assert checked > 5 and changed > checked // 2  # the redeal really moved hidden cards


def test_a_crash_or_a_limit_loses_nothing_and_a_rerun_duplicates_nothing(tournaments, tmp_path, monkeypatch):
    folder = tournaments["gin"]
    whole = tmp_path / "whole.jsonl"
    export(folder, whole, view="text")
    reference = whole.read_bytes()
    assert len(lines_of(whole)) > 20

    out = tmp_path / "crash.jsonl"
    saves = {"n": 0}
    real_save = export_module._Cursor.save

    def save_then_crash(self):
        saves["n"] += 1
        if saves["n"] == 3:  # the new cursor, game 1's: then game 2's lines are written and the process dies
            raise KeyboardInterrupt
        real_save(self)

    monkeypatch.setattr(export_module._Cursor, "save", save_then_crash)
    with pytest.raises(KeyboardInterrupt):
        export(folder, out, view="text")
    monkeypatch.setattr(export_module._Cursor, "save", real_save)
    assert len(out.read_bytes()) > 0 and reference.startswith(out.read_bytes())  # game 2's lines, not vouched for
    with out.open("ab") as f:
        f.write(b'{"game": "gin", "cut')  # and a line cut off in the middle
    again = export(folder, out, view="text")
    assert out.read_bytes() == reference and again.complete
    assert export(folder, out, view="text").new_lines == 0 and out.read_bytes() == reference

    limited = tmp_path / "limited.jsonl"
    assert export(folder, limited, view="text", limit=7).lines == 7 and len(lines_of(limited)) == 7
    assert not export(folder, limited, view="text", limit=40).complete  # mid-game both times
    done = export(folder, limited, view="text")
    assert done.complete and done.new_lines == done.lines - 40 and limited.read_bytes() == reference


def test_a_grown_tournament_adds_its_new_games_to_the_export(tmp_path):
    config = dict(agents=["random", "simple"], seed=4, out=str(tmp_path / "t"))
    run(TournamentConfig(deals=1, **config), progress=False)
    out = tmp_path / "d.jsonl"
    first = export(tmp_path / "t", out, view="flat")
    run(TournamentConfig(deals=2, **config), progress=False)
    grown = export(tmp_path / "t", out, view="flat")
    assert grown.games == 2 * first.games and grown.new_lines == grown.lines - first.lines > 0
    fresh = tmp_path / "fresh.jsonl"
    export(tmp_path / "t", fresh, view="flat")
    assert out.read_bytes() == fresh.read_bytes()


def test_bad_input_gets_one_line(tournaments, tmp_path, capsys):
    folder = tournaments["gin"]
    quiet = TournamentConfig(agents=["random", "simple"], deals=1, record=False, out=str(tmp_path / "quiet"))
    run(quiet, progress=False)
    (tmp_path / "empty").mkdir()
    header_line, first, *rest = (folder / "results.jsonl").read_text().splitlines()
    forged = json.loads(first)
    forged["hands"][0]["result"]["rewards"] = [5, -5]  # not what its moves give
    (tmp_path / "forged").mkdir()
    (tmp_path / "forged" / "results.jsonl").write_text("\n".join([header_line, json.dumps(forged), *rest]) + "\n")
    taken = tmp_path / "taken.jsonl"
    taken.write_text("something else\n")
    cases = [
        (["export", str(tmp_path / "quiet")], "--no-record"),
        (["export", str(tmp_path / "empty")], "results.jsonl not found"),
        (["export", str(tmp_path / "forged")], "the replay does not reproduce the recorded outcome"),
        (["export", str(folder), "--view", "yaml"], "unknown view 'yaml': choose text, json, flat"),
        (["export", str(folder), "--agents", "mcts"], "--agents mcts: not an agent of this tournament"),
        (["export", str(folder), "--out", str(taken)], "is not an export in progress"),
        (["export", str(folder), "--limit", "0"], "limit must be a whole number >= 1"),
    ]
    for argv, message in cases:
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, (argv, err)
    out = tmp_path / "d.jsonl"
    assert main(["export", str(folder), "--out", str(out), "--agents", "heuristic", "--view", "flat"]) == 0
    assert {x["agent"] for x in lines_of(out)} == {"heuristic"}
    assert main(["export", str(folder), "--out", str(out), "--view", "flat"]) == 2  # another export's file
    assert "other settings (agents differ" in capsys.readouterr().err


def test_the_trainer_warm_starts_from_an_exported_file(tournaments, tmp_path):
    pytest.importorskip("torch")
    from rummy_env.train.config import load_config
    from rummy_env.train.curves import read_scalars
    from rummy_env.train.ppo import Trainer

    flat = tmp_path / "flat.jsonl"
    export(tournaments["gin"], flat, view="flat", agents=["heuristic"])
    count = len(lines_of(flat))
    tiny = {"num_envs": 16, "rollout_steps": 4, "minibatch_size": 64, "hidden": [16], "eval_every": 0,
            "progress": False, "torch_threads": 1, "total_updates": 1, "imitation_epochs": 2,
            "runs_dir": str(tmp_path), "imitation_file": str(flat)}
    trainer = Trainer.start(load_config(None, tiny), tmp_path / "warm")
    trainer.train()
    trainer.close()
    scalars = read_scalars(tmp_path / "warm")
    assert scalars["imitation/samples"][1][-1] == count and (tmp_path / "warm" / "policy_imitation.pt").is_file()
    capped = Trainer.start(load_config(None, {**tiny, "imitation_samples": 10}), tmp_path / "capped")
    capped.close()
    assert read_scalars(tmp_path / "capped")["imitation/samples"][1][-1] == 10

    basic = tmp_path / "basic.jsonl"
    export(tournaments["basic"], basic, view="flat")
    text = tmp_path / "text.jsonl"
    export(tournaments["gin"], text, view="text", limit=3)
    other = tmp_path / "other.jsonl"
    other.write_text('{"game": "gin"}\n')
    refused = [
        ({"imitation_file": str(other)}, "line 1 is not a decision of rummy export (it lacks rules, mode"),
        ({"imitation_file": str(basic)}, "line 1: a decision of 'basic', but this run trains 'gin'"),
        ({"rules": "eaai"}, "line 1: played under other rules than this run's 'eaai' (big_gin_bonus: 31 there, 0 here"),
        ({"imitation_file": str(text)}, "line 1: view 'text', but the network reads the 'flat' observation"),
    ]
    for extra, message in refused:
        with pytest.raises(ValueError, match=message.replace("(", r"\(")):
            Trainer.start(load_config(None, {**tiny, **extra}), tmp_path / "refused")
        assert not (tmp_path / "refused").exists()  # refused before the run folder is made
    with pytest.raises(FileNotFoundError, match="nope.jsonl not found: expected a file written by rummy export"):
        Trainer.start(load_config(None, {**tiny, "imitation_file": str(tmp_path / "nope.jsonl")}), tmp_path / "refused")
    with pytest.raises(ValueError, match="a teacher or a file, not both"):
        load_config(None, {**tiny, "imitation_teacher": "heuristic"})
    with pytest.raises(ValueError, match="also reads the heuristic's advice features"):
        load_config(None, {**tiny, "advice": True})
    with pytest.raises(ValueError, match="Rommé's network reads more than an observation"):
        load_config(None, {"game": "romme", "imitation_file": str(flat), "imitation_teacher": None})
