"""Basic Rummy agents: legal play at every table size, strength, the registry names, and a
clear error when an agent gets the other game's input."""

import re

import numpy as np
import pytest

from rummy_env import agents
from rummy_env.agents.basic.agents import RummyHeuristicAgent, RummyRandomAgent
from rummy_env import gin_rummy_v0, basic_rummy_v0


def play_hand(specs, seed, rules="basic"):
    env = basic_rummy_v0.raw_env(num_players=len(specs), rules=rules)
    env.reset(seed=seed)
    players = [agents.make(spec, seed=seed + i, game="basic") for i, spec in enumerate(specs)]
    for name in env.agent_iter():  # the raw env raises on any illegal move
        obs, _, term, trunc, info = env.last()
        env.step(None if term or trunc else players[env.possible_agents.index(name)].act(obs, info))
    return env.game.result


@pytest.mark.parametrize("n", [2, 3, 4])
def test_agents_play_whole_hands_without_illegal_moves_and_heuristic_wins(n):
    wins = 0
    for seed in range(12):
        seat = seed % n
        specs = ["heuristic" if i == seat else "random" for i in range(n)]
        wins += play_hand(specs, seed).winner == seat
    assert wins >= 9  # a random player almost never goes out: melds come by chance only


def test_heuristic_plays_under_other_rule_options():
    for rules in ({"aces": "high"}, {"go_out_without_discard": False, "layoff_needs_own_meld": False}, {"hand_size": 4}):
        results = [play_hand(["heuristic"] * 3, seed, rules) for seed in range(4)]
        assert any(r.winner is not None for r in results)


def test_registry_names_and_game_tags():
    assert {"random", "heuristic", "ppo"} <= set(agents.available(game="basic"))
    assert isinstance(agents.make("random", game="basic"), RummyRandomAgent)
    h = agents.make("heuristic:danger_weight=0", seed=1, game="basic")
    assert isinstance(h, RummyHeuristicAgent) and h.danger_weight == 0 and h.game == "basic"
    assert agents.make("heuristic").game == "gin"  # no game named: Gin Rummy, as the CLI's --game
    with pytest.raises(ValueError, match="has no option.*knock"):
        agents.make("heuristic:knock=1", game="basic")


def test_old_names_are_deprecated_aliases_that_fix_their_game():
    """0.2's ``rummy-heuristic`` is Basic Rummy's ``heuristic``, with the same options and
    the same moves, and a DeprecationWarning naming the new spelling."""
    with pytest.warns(DeprecationWarning, match="'rummy-heuristic' is deprecated: it is 'heuristic' with game 'basic'"):
        old = agents.make("rummy-heuristic:danger_weight=0", seed=4)
    assert isinstance(old, RummyHeuristicAgent) and old.danger_weight == 0
    with pytest.warns(DeprecationWarning):
        assert agents.seed_of("romme-random:seed=9") == 9
    with pytest.raises(ValueError, match="'rummy-random' is Basic Rummy's 'random', not an agent of Gin Rummy"):
        agents.make("rummy-random", game="gin")
    env = basic_rummy_v0.raw_env(num_players=3)
    env.reset(seed=2)
    obs, _, _, _, info = env.last()
    new = agents.make("heuristic:danger_weight=0", seed=4, game="basic")
    with pytest.warns(DeprecationWarning):
        assert agents.make("rummy-heuristic:danger_weight=0", seed=4).act(obs, info) == new.act(obs, info)


@pytest.mark.parametrize("spec", ["basic/random", "basic/heuristic"])
def test_rummy_agents_refuse_gin_input(spec):
    env = gin_rummy_v0.raw_env()
    env.reset(seed=0)
    obs, _, _, _, info = env.last()
    with pytest.raises(TypeError, match=f"agent '{spec}' plays Basic Rummy.*got InformationSet"):
        agents.make(spec).act(obs, info)
    renv = basic_rummy_v0.raw_env(num_players=3)
    renv.reset(seed=0)
    robs, _, _, _, rinfo = renv.last()
    with pytest.raises(TypeError, match=r"action mask must have shape \(1267,\), got \(108,\)"):
        agents.make(spec).act({"action_mask": np.ones(108, dtype=np.int8)}, rinfo)
    with pytest.raises(TypeError, match="got no information_set"):
        agents.make(spec).act(robs, {})


def test_heuristic_takes_a_discard_that_melds_and_lays_down_its_melds():
    from rummy_env.core.cards import parse_hand
    from rummy_env.basic.game import DRAW_STOCK, MELD, TAKE_DISCARD, BasicRummyState
    from rummy_env.core.meld_table import meld_table

    s = BasicRummyState.from_hands(["AC 2C 7D 7H 9S TS JS KD 4H 5S", "4C 5H 6H 8D 8C QD QH 2D 3S 4S"], "3C", "QC")
    agent = agents.make("heuristic", seed=0, game="basic")

    def act():
        info = {"information_set": s.information_set(s.current_player), "rules": s.rules}
        return agent.act({"action_mask": s.legal_mask()}, info)

    assert act() == TAKE_DISCARD  # 3C makes AC 2C 3C
    s.step(TAKE_DISCARD)
    index = meld_table(False).index
    assert act() in (MELD + index[parse_hand("AC 2C 3C")], MELD + index[parse_hand("9S TS JS")])
    s = BasicRummyState.from_hands(["AC 5C 7D 7H 9S TS JS KD 4H 5S", "4C 5H 6H 8D 8C QD QH 2D 3S 4S"], "KC", "QC")
    assert act() == DRAW_STOCK  # KC melds with nothing


@pytest.mark.parametrize("spec", ["random", "simple", "heuristic", "mcts:simulations=8"])
def test_gin_agents_refuse_rummy_input(spec):
    env = basic_rummy_v0.raw_env(num_players=2)
    env.reset(seed=0)
    for _ in range(2):  # the draw, then the play phase
        obs, _, _, _, info = env.last()
        with pytest.raises(TypeError, match="plays Gin Rummy.*for Basic Rummy .basic_rummy_v0. make the agent with game='basic' "
                                            ".--game basic; agents.available..basic.. lists its agents."):
            agents.make(spec).act(obs, info)
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    gin = gin_rummy_v0.raw_env()
    gin.reset(seed=0)
    obs, _, _, _, info = gin.last()
    agents.make(spec, seed=0).act(obs, info)  # Gin input still works
    with pytest.raises(TypeError, match=r"should be Gin Rummy's Rules, got BasicRummyRules"):
        agents.make("simple").act(obs, dict(info, rules=env.rules))


def test_rummy_play_seats_a_person_at_a_basic_rummy_table():
    """``rummy play --game basic``: the generic terminal player (the table as the person's
    seat sees it, moves by number), the others' moves, the hand's outcome in words."""
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-m", "rummy_env.cli", "play", "--game", "basic", "--players", "3", "--opponent",
         "heuristic", "random", "--seed", "1", "--seat", "0"],
        input="0\n" * 600, capture_output=True, text=True, timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("you are player_0, playing Basic Rummy against heuristic, random")
    assert "player_1: [7 cards]" in out.stdout or "player_1 (dealer): [7 cards]" in out.stdout  # hidden hands
    assert "moves: [0] draw stock" in out.stdout and "player_2 " in out.stdout
    assert "went out" in out.stdout or "went rummy" in out.stdout or "stalemate" in out.stdout
    # every card on the screen written one way: the hands, the moves, the others' moves, the outcome
    assert "\u2665" in out.stdout and not re.search(r"\b[A2-9TJQK][CDHS]\b", out.stdout), out.stdout[-2000:]
    bad = subprocess.run([sys.executable, "-m", "rummy_env.cli", "play", "--game", "basic", "--players", "5"],
                         input="", capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "num_players must be an integer 2..4, got 5" in bad.stderr
    wrong = subprocess.run([sys.executable, "-m", "rummy_env.cli", "play", "--game", "basic", "--opponent", "simple"],
                           input="", capture_output=True, text=True, timeout=60)
    assert wrong.returncode == 2 and "unknown agent 'simple' for Basic Rummy ('simple' is an agent of Gin Rummy)" in \
        wrong.stderr and "available: random, heuristic" in wrong.stderr


def test_rummy_play_needs_no_extra_by_default_and_names_the_extra_an_agent_needs():
    """Without torch (the ``train`` extra) ``rummy play --game basic`` seats its ``medium``
    level; asking for ``ppo`` then says, in one line, what to install."""
    import subprocess
    import sys

    no_torch = "import sys; sys.modules['torch'] = None\nfrom rummy_env.cli import main\nsys.exit(main(sys.argv[1:]))"
    play = [sys.executable, "-c", no_torch, "play", "--game", "basic", "--seed", "1", "--seat", "0"]
    out = subprocess.run(play, input="q\n", capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("you are player_0, playing Basic Rummy against 'medium'")
    assert all(agents.default_opponent(g) == "medium" for g in ("gin", "basic", "romme"))
    assert "needs" not in out.stderr  # the medium level needs no extra
    ppo = subprocess.run(play + ["--opponent", "ppo"], input="q\n", capture_output=True, text=True, timeout=120)
    assert ppo.returncode == 2 and ppo.stdout == ""
    assert ppo.stderr.strip() == ("rummy play: error: the Basic Rummy ppo agent needs torch: pip install 'rummy-env[train]' "
                                  "(CPU build: pip install torch==2.13.0)")
