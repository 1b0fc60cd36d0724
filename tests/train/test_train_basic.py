"""Basic Rummy's learned agent: the network's masks, no hidden-information leaks in its
input or moves, the in-process source's advantages, a tiny real run of the one trainer
(``rummy train --game basic``) with exact resume, config and command-line errors (the
deprecated ``train-basic`` alias too), and Basic Rummy's ``ppo`` agent (shipped file, ``ppo:PATH``)."""

import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from rummy_env import agents, basic_rummy_v0  # noqa: E402
from rummy_env.agents.arena import play_hand  # noqa: E402
from rummy_env.agents.basic.network import BasicPolicyNet, load_policy, neighbour_index, save_policy  # noqa: E402
from rummy_env.agents.basic.ppo import SHIPPED, RummyPPOAgent, network_actions  # noqa: E402
from rummy_env.basic.encoding import encode  # noqa: E402
from rummy_env.basic.game import LAYOFF, MELD, NUM_ACTIONS, BasicRummyState  # noqa: E402
from rummy_env.basic.rules import load_rummy_rules  # noqa: E402
from rummy_env.cli import main  # noqa: E402
from rummy_env.train.config import PPOConfig, load_config  # noqa: E402
from rummy_env.train.hands import Played, returns_and_advantages  # noqa: E402
from rummy_env.train.ppo import CheckpointError, Trainer  # noqa: E402
from train_checks import check_start_from_another_runs_policy  # noqa: E402

TINY = {"game": "basic", "hands_per_update": 12, "total_updates": 4, "minibatch_size": 64, "hidden": [32], "card_hidden": 8,
        "eval_every": 0, "progress": False, "snapshot_every": 1, "checkpoint_every": 2, "torch_threads": 1,
        "imitation_samples": 300, "imitation_epochs": 1, "opponents": {"heuristic": 0.5, "pool": 0.3, "random": 0.2}}


def tiny(tmp_path, **extra):
    return load_config(None, {**TINY, "runs_dir": str(tmp_path), **extra})


def positions(n: int, hands: int, seed: int):
    """(state, legal mask) at every decision of ``hands`` random hands at ``n`` players,
    melds and lay-offs played when legal so the play phase is well covered."""
    rng = np.random.default_rng(seed)
    for h in range(hands):
        state = BasicRummyState.new_hand(n, seed=seed * 1000 + h)
        while not state.is_over:
            legal = state.legal_actions()
            yield state, legal
            plays = [a for a in legal if a >= MELD]
            state.step(int(rng.choice(plays)) if plays and rng.random() < 0.8 else int(rng.choice(legal)))


# ---------------------------------------------------------------- the network


def test_neighbours_are_the_cards_a_card_melds_with():
    idx = neighbour_index()
    assert idx.shape == (52, 7)
    assert list(idx[0]) == [52, 52, 1, 2, 13, 26, 39]  # AC: nothing below, 2C 3C, then the other aces
    assert list(idx[12]) == [10, 11, 52, 52, 25, 38, 51]  # KC


@pytest.mark.parametrize("n", [2, 3, 4])
def test_masked_network_never_picks_an_illegal_move(n):
    """Random weights, scaled so the logits are large: greedy and sampled moves are legal,
    illegal moves get probability exactly 0, and lay-offs land on the action ids."""
    torch.manual_seed(n)
    net = BasicPolicyNet((32,), 8)
    with torch.no_grad():
        for p in net.parameters():
            p.mul_(40.0)
    rules = load_rummy_rules("basic")
    rng = np.random.default_rng(n)
    rows, masks = [], []
    layoffs = 0
    for state, legal in positions(n, 6, n):
        rows.append(encode(state.information_set(state.current_player), rules, "flat"))
        mask = np.zeros(NUM_ACTIONS, dtype=bool)
        mask[legal] = True
        masks.append(mask)
        layoffs += any(a >= LAYOFF for a in legal)
    x, m = np.stack(rows), np.stack(masks)
    assert layoffs > 0  # lay-offs were among the positions checked
    for greedy in (True, False):
        actions, logp, _ = network_actions(net, x, m, greedy, rng)
        assert m[np.arange(len(actions)), actions].all()
        assert np.isfinite(logp).all()
    with torch.no_grad():
        full, _ = net(torch.from_numpy(x), torch.from_numpy(m))
    prob = full.exp().numpy()
    assert (prob[~m] == 0).all() and np.allclose(prob.sum(1), 1.0, atol=1e-5)


def test_policy_files_round_trip_and_are_checked(tmp_path):
    net = BasicPolicyNet((16,), 4)
    save_policy(net, tmp_path / "p.pt", "basic", {"note": 1})
    back, meta = load_policy(tmp_path / "p.pt")
    assert meta["extra"] == {"note": 1} and back.hidden == (16,)
    for a, b in zip(net.state_dict().values(), back.state_dict().values()):
        assert torch.equal(a, b)
    (tmp_path / "junk.pt").write_bytes(b"not a torch file")
    with pytest.raises(ValueError, match="not a readable policy file"):
        load_policy(tmp_path / "junk.pt")
    torch.save({"format": "something-else"}, tmp_path / "other.pt")
    with pytest.raises(ValueError, match="not a Basic Rummy policy file"):
        load_policy(tmp_path / "other.pt")
    with pytest.raises(FileNotFoundError):
        load_policy(tmp_path / "missing.pt")


# ---------------------------------------------------------------- hidden information


@pytest.mark.parametrize("n", [2, 3, 4])
def test_agent_input_and_move_ignore_cards_the_player_cannot_know(n):
    """At every decision of random hands, the cards the mover cannot know are dealt
    otherwise (other hands' unknown cards, a hidden stock's order): the network's input is
    identical and so is its move (greedy, and sampled with the same seed)."""
    torch.manual_seed(0)
    net = BasicPolicyNet((32,), 8)
    rules = load_rummy_rules("basic")
    rng = np.random.default_rng(10 + n)
    checked = moved = 0
    for state, legal in positions(n, 4, 20 + n):
        p = state.current_player
        other = state.redeal_hidden(p, rng)
        moved += other.hands != state.hands or other.stock != state.stock
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        mask[legal] = 1
        obs = {"action_mask": mask}
        for greedy in (True, False):
            a = RummyPPOAgent.from_net(net, greedy=greedy, seed=checked)
            b = RummyPPOAgent.from_net(net, greedy=greedy, seed=checked)
            info_a = {"information_set": state.information_set(p), "rules": rules}
            info_b = {"information_set": other.information_set(p), "rules": rules}
            assert np.array_equal(a.inputs(obs, info_a), b.inputs(obs, info_b))
            assert a.act(obs, info_a) == b.act(obs, info_b)
        checked += 1
    assert checked > 100 and moved > 0.5 * checked  # the redeals did move cards


@pytest.mark.skipif(not SHIPPED.is_file(), reason="no shipped policy")
def test_the_shipped_agent_does_not_peek_through_the_env():
    from conftest import play_checking_no_peeking

    rng = np.random.default_rng(0)
    checked = 0
    for n, game in ((2, 0), (3, 1), (4, 2)):  # a hand at each table size, every decision asked twice
        env = basic_rummy_v0.raw_env(num_players=n, rules={"max_turns": 80})
        checked += play_checking_no_peeking(env, "basic/ppo", game, lambda s, p, r: s.redeal_hidden(p, r), rng, 200)[0]
    assert checked > 60


# ---------------------------------------------------------------- advantages


def test_returns_and_advantages_follow_each_seat_to_the_end_of_its_hand():
    seed = 0
    while True:  # the first seeded heuristic hand that someone wins
        state = BasicRummyState.new_hand(2, seed=seed)
        players = [agents.make("heuristic", seed=1, game="basic"), agents.make("heuristic", seed=2, game="basic")]
        rules = load_rummy_rules("basic")
        while not state.is_over:
            p = state.current_player
            mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
            mask[state.legal_actions()] = 1
            state.step(players[p].act({"action_mask": mask}, {"information_set": state.information_set(p), "rules": rules}))
        if state.result.winner == 0:
            break
        seed += 1
    played = Played(act=[5, 6, 7], val=[0.1, 0.2, 0.3], hand=[(0, 1), (0, 0), (0, 1)], results=[state.result])
    ret, adv = returns_and_advantages(played, "scaled", win_bonus=0.1, gamma=1.0, lam=1.0)
    loser = state.result.rewards[1] / 100 - 0.1
    assert ret[0] == pytest.approx(loser) and ret[2] == pytest.approx(loser)
    assert ret[1] == pytest.approx(state.result.rewards[0] / 100 + 0.1)
    assert adv[2] == pytest.approx(loser - 0.3) and adv[0] == pytest.approx(loser - 0.1)
    ret, adv = returns_and_advantages(played, "scaled", win_bonus=0.0, gamma=1.0, lam=0.0)
    assert adv[0] == pytest.approx(0.3 - 0.1)  # one-step: the seat's next value minus this one


# ---------------------------------------------------------------- config and command line


@pytest.mark.parametrize("override, match", [
    ({"hands_per_update": 0}, "hands_per_update"),
    ({"players": {5: 1.0}}, "players"),
    ({"players": {2: 0.0}}, "positive sum"),
    ({"opponents": {"mcts": 1.0}}, "unknown kind"),
    ({"lr": "fast"}, "finite number"),
    ({"gamma": 1.5}, r"\[0, 1\]"),
    ({"rules": "no-such-preset"}, "rules"),
    ({"name": "a/b"}, "slashes"),
    ({"imitation_samples": -1}, ">= 0"),
    ({"progress": "maybe"}, "true or false"),
    ({"lr_schedule": 1}, "unknown training config field"),
    ({"critic": "oracle"}, "no oracle critic"),
])
def test_bad_config_values_get_a_clear_error(override, match):
    with pytest.raises(ValueError, match=match):
        load_config(None, {"game": "basic", **override})


def test_config_file_and_dotted_overrides():
    c = load_config("configs/ppo_basic.yaml", {"players.4": "0", "opponents.random": "0.1", "lr": "1e-4"})
    assert c.players[4] == 0.0 and c.players[2] == 1.0 and c.opponents["random"] == 0.1 and c.lr == 1e-4
    assert isinstance(c, PPOConfig) and c.game == "basic" and c.to_dict()["hidden"] == [256, 256]
    more = load_config("configs/ppo_basic_more.yaml")  # stage 2 of the shipped agent: starts from stage 1
    assert more.init_policy == "runs/ppo_basic_stage1.pt" and more.imitation_samples == 0


@pytest.mark.parametrize("argv, message", [
    (["train-basic", "--set", "lr"], "FIELD=VALUE"),
    (["train-basic", "--set", "total_updates=-3"], "total_updates"),
    (["train-basic", "--set", "players.7=1"], "players"),
    (["train-basic", "--config", "no/such.yaml"], "not found"),
    (["train-basic", "--resume", "no/such/run"], "not a training run folder"),
])
def test_the_command_refuses_bad_input_without_a_traceback(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


# ---------------------------------------------------------------- a tiny run, resume


def weights(path):
    return load_policy(path)[0].state_dict()


def test_a_tiny_run_checkpoints_and_resuming_gives_the_straight_runs_weights(tmp_path):
    straight = Trainer.start(tiny(tmp_path), tmp_path / "straight")
    straight.train()
    straight.close()
    assert (tmp_path / "straight" / "checkpoint.pt").is_file() and straight.update == 4
    assert list((tmp_path / "straight").glob("events.out.tfevents.*"))

    class Killed(Exception):
        pass

    def kill_after_update_3(trainer):  # the checkpoint of update 2 is the last one: update 3 is lost
        if trainer.update == 3:
            raise Killed

    first = Trainer.start(tiny(tmp_path), tmp_path / "split")
    with pytest.raises(Killed):
        first.train(on_update=kill_after_update_3)
    first.close()
    assert main(["train-basic", "--resume", str(tmp_path / "split")]) == 0
    a, b = weights(tmp_path / "straight" / "policy.pt"), weights(tmp_path / "split" / "policy.pt")
    assert all(torch.equal(a[k], b[k]) for k in a)
    again = Trainer.start(tiny(tmp_path, seed=1), tmp_path / "other_seed")
    again.train()
    again.close()
    c = weights(tmp_path / "other_seed" / "policy.pt")
    assert not all(torch.equal(a[k], c[k]) for k in a)  # the comparison can fail


def test_resume_refuses_changes_that_alter_learning_and_damaged_checkpoints(tmp_path, capsys):
    run = Trainer.start(tiny(tmp_path, total_updates=2, imitation_samples=0), tmp_path / "run")
    run.train()
    run.close()
    assert main(["train-basic", "--resume", str(tmp_path / "run"), "--set", "lr=0.1"]) == 2
    assert "cannot change ['lr']" in capsys.readouterr().err
    with pytest.raises(FileExistsError):
        Trainer.start(tiny(tmp_path), tmp_path / "run")
    (tmp_path / "run" / "checkpoint.pt").write_bytes(b"truncated")
    with pytest.raises(CheckpointError, match="damaged"):
        Trainer.resume(tmp_path / "run")


def test_extending_a_run_continues_the_learning_rate_decay(tmp_path):
    """``--resume --set total_updates=N``: the rate falls on from the last update's to 0 at N
    (``train.lr_schedule``), as in ``rummy train``; the rates are read back from TensorBoard."""
    from rummy_env.train.curves import read_scalars

    lr = 4e-4
    run = Trainer.start(tiny(tmp_path, total_updates=2, imitation_samples=0, lr=lr), tmp_path / "run")
    run.train()
    run.close()
    assert main(["train-basic", "--resume", str(tmp_path / "run"), "--set", "total_updates=4"]) == 0
    rates = read_scalars(tmp_path / "run")["charts/learning_rate"][1]
    # lr * (1 - u / 2) for updates 0 and 1; then from update 1's rate (lr / 2) to 0 at update 4
    np.testing.assert_allclose(rates, [lr, lr / 2, lr / 2 * 2 / 3, lr / 2 / 3], rtol=1e-6)


def test_a_run_can_start_from_another_runs_policy(tmp_path):
    policy = check_start_from_another_runs_policy(tiny, tmp_path, imitation_samples=0)
    with pytest.raises(ValueError, match="init_policy: .*not a Basic Rummy policy file"):
        Trainer.start(tiny(tmp_path, init_policy="rummy_env/agents/gin/data/ppo_gin.pt", imitation_samples=0),
                      tmp_path / "fifth")
    assert not (tmp_path / "fifth").exists()  # no half-made run folder
    with pytest.raises(ValueError, match="from a policy or from imitation, not both"):
        tiny(tmp_path, init_policy=policy)  # TINY has a warm start
    assert main(["train-basic", "--set", f"init_policy={tmp_path / 'nowhere.pt'}", "--set", "imitation_samples=0",
                 "--set", f"runs_dir={tmp_path}"]) == 2


# ---------------------------------------------------------------- the agent


def test_the_agent_plays_a_trained_file_at_every_table_size_by_both_spec_forms(tmp_path):
    net = BasicPolicyNet((16,), 4)
    save_policy(net, tmp_path / "p.pt", "basic")
    for spec in (f"ppo:path={tmp_path / 'p.pt'}", f"ppo:{tmp_path / 'p.pt'}",
                 f"ppo:path={tmp_path / 'p.pt'},greedy=false"):
        agent = agents.make(spec, seed=1, game="basic")
        assert isinstance(agent, RummyPPOAgent) and agent.path == tmp_path / "p.pt"
    for n in (2, 3, 4):
        seats = [agents.make(f"ppo:{tmp_path / 'p.pt'}", seed=0, game="basic")] + [
            agents.make("heuristic", seed=s, game="basic") for s in range(1, n)]
        assert play_hand(seats, "basic", seed=n).outcome in ("out", "rummy", "stalemate")
    with pytest.raises(ValueError, match="greedy"):
        agents.make(f"ppo:path={tmp_path / 'p.pt'},greedy=3", game="basic")
    with pytest.raises(FileNotFoundError):
        agents.make("ppo:path=no/such.pt", game="basic")
    assert "ppo" in agents.available(game="basic")


def test_the_gin_ppo_agent_refuses_a_basic_policy_and_the_other_way_round(tmp_path):
    save_policy(BasicPolicyNet((16,), 4), tmp_path / "basic.pt", "basic")
    with pytest.raises(ValueError, match="policy"):
        agents.make(f"ppo:{tmp_path / 'basic.pt'}")
    from rummy_env.agents.gin.ppo import SHIPPED as GIN

    with pytest.raises(ValueError, match="Gin Rummy policy"):
        agents.make(f"ppo:{GIN}", game="basic")


@pytest.mark.skipif(not SHIPPED.is_file(), reason="no shipped policy")
def test_the_shipped_agent_beats_random_play_at_two_players():
    """A sanity line: 20 hands against Basic Rummy's random agent (the shipped network must win most)."""
    won = 0
    for seed in range(20):
        result = play_hand([agents.make("ppo", game="basic"), agents.make("random", seed=seed, game="basic")], "basic",
                           seed=seed)
        won += result.winner == 0
    assert won >= 15


def test_importing_the_package_and_the_env_does_not_import_torch():
    code = ("import sys, rummy_env; from rummy_env import basic_rummy_v0, agents; basic_rummy_v0.env(num_players=3).reset(seed=0); "
            "agents.available(game='basic'); import rummy_env.agents.basic.ppo; "
            "assert 'torch' not in sys.modules, 'torch was imported'")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def test_a_checkpoint_of_the_0_2_train_basic_resumes_exactly(tmp_path):
    """A run folder of 0.2's ``rummy train-basic`` (its checkpoint format
    ``rummy-env-basic-ppo-checkpoint-v1``, a ``config.yaml`` that names no game) continues
    under ``rummy train --resume`` as a Basic Rummy run, to the weights of a run never stopped."""
    from rummy_env.agents import torch_files

    straight = Trainer.start(tiny(tmp_path, total_updates=2, imitation_samples=0), tmp_path / "straight")
    straight.train()
    straight.close()
    class Stopped(Exception):
        pass

    def stop(trainer):
        raise Stopped

    first = Trainer.start(tiny(tmp_path, total_updates=2, imitation_samples=0, checkpoint_every=1), tmp_path / "old")
    with pytest.raises(Stopped):
        first.train(on_update=stop)  # after update 1 and its checkpoint
    first.close()
    new = torch_files.load(tmp_path / "old" / "checkpoint.pt", "checkpoint")
    counters = new["counters"]
    old_config = {k: v for k, v in new["config"].items() if k not in ("game", "imitation_teacher")}
    torch_files.save({"format": "rummy-env-basic-ppo-checkpoint-v1", "config": old_config, "policy": new["policy"],
                      "optimizer": new["optimizer"], "torch_generator": new["torch_generator"],
                      "numpy_generator": new["games"][0]["rng"], "pool": new["pool"],
                      "counters": {"update": counters["update"], "decisions": counters["global_step"],
                                   "hands": counters["episodes"], "train_seconds": counters["train_seconds"],
                                   "lr_line": counters["lr_line"]}}, tmp_path / "old" / "checkpoint.pt")
    import yaml

    (tmp_path / "old" / "config.yaml").write_text(yaml.safe_dump(old_config))
    assert main(["train", "--resume", str(tmp_path / "old")]) == 0
    a, b = weights(tmp_path / "straight" / "policy.pt"), weights(tmp_path / "old" / "policy.pt")
    assert all(torch.equal(a[k], b[k]) for k in a)
