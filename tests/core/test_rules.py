from pathlib import Path

import pytest

from rummy_env.core.game import get_game
from rummy_env.gin.rules import PRESETS, Rules, load_rules

CONFIGS = Path(__file__).resolve().parents[2] / "configs" / "rules"


def test_presets_follow_the_spec():
    classic, eaai, openspiel = PRESETS["classic"], PRESETS["eaai"], PRESETS["openspiel"]
    assert classic == Rules()
    assert (classic.knock_limit, classic.gin_bonus, classic.big_gin_bonus, classic.undercut_bonus) == (10, 25, 31, 25)
    assert (classic.target_score, classic.game_bonus, classic.line_bonus, classic.shutout) == (100, 100, 25, True)
    assert not eaai.big_gin and eaai.undercut_on_tie and eaai.target_score == 100
    assert (eaai.game_bonus, eaai.line_bonus, eaai.shutout) == (0, 0, False)
    assert not openspiel.big_gin and not openspiel.undercut_on_tie and not openspiel.match


# each game's folder of YAML rules: one file per preset, each holding every option
GAME_CONFIGS = {"gin": CONFIGS, "basic": CONFIGS / "basic_rummy", "romme": CONFIGS / "romme"}


@pytest.mark.parametrize("game, name", [(game, name) for game in GAME_CONFIGS for name in sorted(get_game(game).presets)])
def test_yaml_files_equal_the_presets(game, name):
    import yaml

    game = get_game(game)
    path = GAME_CONFIGS[game.name] / f"{name}.yaml"
    preset = game.presets[name]
    assert game.load_rules(path) == preset and game.load_rules(str(path)) == preset
    assert set(yaml.safe_load(path.read_text())) == set(game.rules_type.option_names())
    assert game.load_rules(name) is preset


@pytest.mark.parametrize("game", sorted(GAME_CONFIGS))
def test_every_yaml_file_is_a_preset(game):
    assert sorted(p.stem for p in GAME_CONFIGS[game].glob("*.yaml")) == sorted(get_game(game).presets)


def test_yaml_with_preset_and_overrides(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text("preset: eaai\nknock_limit: 5\n")
    rules = load_rules(path)
    assert rules == PRESETS["eaai"].replace(knock_limit=5)
    assert load_rules({"aces": "high"}).aces_high


def test_rules_are_frozen():
    with pytest.raises(Exception):
        Rules().knock_limit = 3  # type: ignore[misc]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"knock_limit": -1}, "knock_limit must be >= 0"),
        ({"knock_limit": 21}, r"knock_limit must be 0..20 \(the limits played: 0 = Gin only, 5, 10, 15, 20\), got 21"),
        ({"knock_limit": "10"}, "knock_limit must be an integer"),
        ({"knock_limit": True}, "knock_limit must be an integer"),
        ({"undercut_on_tie": 1}, "undercut_on_tie must be bool"),
        ({"aces": "middle"}, "aces must be 'low' or 'high'"),
        ({"max_turns": 0}, "max_turns must be >= 1"),
    ],
)
def test_bad_options_name_the_problem(kwargs, message):
    with pytest.raises((TypeError, ValueError), match=message):
        Rules(**kwargs)


def test_unknown_options_and_specs_list_what_is_allowed(tmp_path):
    with pytest.raises(ValueError, match="unknown rule option.*knock_limt.*allowed: knock_limit"):
        load_rules({"knock_limt": 5})
    with pytest.raises(ValueError, match="use a preset"):
        load_rules("klassic")
    with pytest.raises(FileNotFoundError):
        load_rules(tmp_path / "missing.yaml")
    bad = tmp_path / "list.yaml"
    bad.write_text("- 1\n- 2\n")
    with pytest.raises(ValueError, match="must be a YAML mapping of rule options"):
        load_rules(bad)
    with pytest.raises(TypeError, match="rules must be"):
        load_rules(3.5)  # type: ignore[arg-type]
