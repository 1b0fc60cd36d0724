"""PPO training: config errors, advantages worked by hand, masked entropy, the real
command on a tiny budget, exact resume after a kill, damaged checkpoints, curves, and a
short run that must clearly beat random."""

import dataclasses
import math
import re
import time

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from rummy_env import agents  # noqa: E402
from rummy_env.agents.arena import play_hand  # noqa: E402
from rummy_env.cli import main  # noqa: E402
from rummy_env.gin.vector import VectorGinRummy  # noqa: E402
from rummy_env.train.config import PPOConfig, load_config  # noqa: E402
from rummy_env.train.rewards import with_win_bonus  # noqa: E402
from rummy_env.train.curves import plot_curves, read_scalars  # noqa: E402
from rummy_env.agents.gin.network import PolicyNet, load_policy, save_policy  # noqa: E402
from rummy_env.train.ppo_loss import masked_entropy  # noqa: E402
from rummy_env.train.policy_stack import PolicyStack  # noqa: E402
from rummy_env.train.adapter import adapter_for  # noqa: E402
from rummy_env.train.evaluation import evaluate  # noqa: E402
from rummy_env.train.ppo import CheckpointError, Trainer, load_checkpoint  # noqa: E402
from rummy_env.train.rollout import RolloutWorker  # noqa: E402
from train_checks import check_start_from_another_runs_policy  # noqa: E402

TINY = {"num_envs": 32, "rollout_steps": 8, "minibatch_size": 128, "hidden": [32], "eval_every": 0,
        "progress": False, "snapshot_every": 1, "checkpoint_every": 2, "torch_threads": 1,
        "opponents": {"self": 0.4, "pool": 0.3, "random": 0.1, "simple": 0.1, "heuristic": 0.1}}


def tiny(tmp_path, **extra):
    return load_config(None, {**TINY, "runs_dir": str(tmp_path), **extra})


# ---------------------------------------------------------------- config


def test_config_refuses_unknown_fields_and_bad_values(tmp_path):
    with pytest.raises(ValueError, match="unknown training config field.*'lr_rate'"):
        load_config(None, {"lr_rate": 0.1})
    with pytest.raises(ValueError, match="'num_envs' = 0: must be a positive integer"):
        load_config(None, {"num_envs": "0"})
    with pytest.raises(ValueError, match="'gamma' = 1.5: must lie in"):
        load_config(None, {"gamma": "1.5"})
    with pytest.raises(ValueError, match="unknown kind.*'expert'"):
        load_config(None, {"opponents.expert": "1"})
    with pytest.raises(ValueError, match="eval_hands.*multiple of every table size"):
        load_config(None, {"eval_hands": 9})
    with pytest.raises(FileNotFoundError, match="nope.yaml"):
        load_config(tmp_path / "nope.yaml")
    with pytest.raises(ValueError, match="'win_bonus' = -0.1: must be >= 0"):
        load_config(None, {"win_bonus": "-0.1"})
    with pytest.raises(ValueError, match="'critic' = 'magic': choose shared or oracle"):
        load_config(None, {"critic": "magic"})
    with pytest.raises(ValueError, match="'critic_warmup' = 10: must be an integer >= 0 and below total_updates"):
        load_config(None, {"critic_warmup": "10", "total_updates": "10"})
    with pytest.raises(ValueError, match="'critic_warmup' = 2: needs critic: oracle"):
        load_config(None, {"critic_warmup": "2"})
    with pytest.raises(ValueError, match="'critic_hidden' = \\(0,\\): must be a non-empty list"):
        load_config(None, {"critic_hidden": "[0]"})


def test_every_float_field_takes_scientific_notation_from_files_and_the_command_line(tmp_path):
    floats = [f.name for f in dataclasses.fields(PPOConfig) if f.type in ("float", "Optional[float]")]
    assert {"lr", "target_kl", "win_bonus", "imitation_lr"} <= set(floats)
    # YAML 1.1 reads 1e-2 (no dot) as text; the command line always gives text
    (tmp_path / "sci.yaml").write_text("".join(f"{name}: 1e-2\n" for name in floats) + "opponents: {simple: 5E-1}\n")
    from_file = load_config(tmp_path / "sci.yaml")
    from_args = load_config(None, {**{name: "1e-2" for name in floats}, "opponents.simple": "5E-1"})
    for config in (from_file, from_args):
        assert all(getattr(config, name) == pytest.approx(0.01) for name in floats)
        assert config.opponents["simple"] == 0.5 and isinstance(config.opponents["simple"], float)
    with pytest.raises(ValueError, match="'lr' = 'fast': must be a finite number, e.g. 0.0003 or 3e-4"):
        load_config(None, {"lr": "fast"})
    for bad in ("nan", "inf", "-inf"):
        with pytest.raises(ValueError, match=f"'ent_coef' = '{bad}': must be a finite number"):
            load_config(None, {"ent_coef": bad})
    with pytest.raises(ValueError, match="'num_envs' = '1e3': must be an integer"):
        load_config(None, {"num_envs": "1e3"})


def test_the_readme_training_override_parses(tmp_path, monkeypatch):
    """``rummy train ... --lr 1e-4`` (the README's example) reaches the trainer as 0.0001."""
    seen = {}

    def start(config):
        seen["config"] = config
        raise SystemExit(0)

    monkeypatch.setattr(Trainer, "start", staticmethod(start))
    with pytest.raises(SystemExit):
        main(["train", "--config", "configs/ppo.yaml", "--name", "try", "--seed", "2", "--lr", "1e-4",
              "--set", "opponents.heuristic=0.3", "--runs-dir", str(tmp_path)])
    assert seen["config"].lr == 0.0001 and seen["config"].opponents["heuristic"] == 0.3


def test_the_win_bonus_rewards_hands_won_and_keeps_the_game_zero_sum():
    rewards = np.array([[0.27, -0.27], [0.0, 0.0], [-0.04, 0.04]])
    np.testing.assert_allclose(with_win_bonus(rewards, 0.1), [[0.37, -0.37], [0.0, 0.0], [-0.14, 0.14]])
    assert with_win_bonus(rewards, 0.0) is rewards
    from rummy_env.train.games.gin import collect

    plain = collect("simple", "classic", "scaled", 400, num_envs=16, seed=3)
    bonus = collect("simple", "classic", "scaled", 400, num_envs=16, seed=3, win_bonus=0.25)
    np.testing.assert_array_equal(plain["act"], bonus["act"])
    np.testing.assert_allclose(bonus["ret"] - plain["ret"], 0.25 * np.sign(plain["ret"]), atol=1e-6)
    assert (plain["ret"] != 0).any()


def test_config_file_then_overrides(tmp_path):
    f = tmp_path / "c.yaml"
    f.write_text("lr: 0.001\nhidden: [64, 64]\nopponents: {self: 1.0}\n")
    c = load_config(f, {"opponents.heuristic": "0.5", "num_envs": "16", "anneal_lr": "false"})
    assert (c.lr, c.hidden, c.num_envs, c.anneal_lr) == (0.001, (64, 64), 16, False)
    assert dict(c.opponents) == {"self": 1.0, "heuristic": 0.5}
    assert load_config(None, c.to_dict()) == c  # the saved config.yaml reloads to the same config


# ---------------------------------------------------------------- advantages


def gae(values, players, rewards, terminated, recorded, last_value, last_player, gamma=1.0, lam=1.0):
    worker = RolloutWorker.__new__(RolloutWorker)
    worker.config = PPOConfig(gamma=gamma, gae_lambda=lam)
    return worker._gae(np.array(values, np.float32)[:, None], np.array(players)[:, None],
                        np.array(rewards, np.float32)[:, None], np.array(terminated)[:, None],
                        np.array(recorded)[:, None], np.array([last_value], np.float32), np.array([last_player]))


def test_advantages_follow_each_seat_to_the_end_of_its_hand():
    # One game: seats move 0,1,0,1; seat 1 knocks at t=3 and wins 0.3 (seat 0 loses 0.3).
    # With gamma = lambda = 1 each move's advantage is the seat's hand result minus its value.
    # Then a new hand starts at t=4 (seat 0 to move, unfinished): its move bootstraps from
    # the last value 0.5 and must not see the previous hand's reward.
    values = [0.1, 0.2, -0.1, 0.4, 0.05]
    adv, ret = gae(values, [0, 1, 0, 1, 0], [[0, 0]] * 3 + [[-0.3, 0.3], [0, 0]],
                   [False, False, False, True, False], [True] * 5, last_value=0.5, last_player=0)
    np.testing.assert_allclose(adv[:, 0], [-0.3 - 0.1, 0.3 - 0.2, -0.3 + 0.1, 0.3 - 0.4, 0.5 - 0.05], atol=1e-6)
    np.testing.assert_allclose(ret[:, 0], [-0.3, 0.3, -0.3, 0.3, 0.5], atol=1e-6)


def test_advantages_with_lambda_and_unrecorded_opponent_moves():
    # Learner is seat 0 only (seat 1's moves are an opponent's: not recorded). Seat 0 moves at
    # t=0 and t=2; the hand ends at t=3 by seat 1 with seat 0 winning 0.2. lambda = 0.5:
    # t=2: delta = 0.2 - 0.3 = -0.1, adv = -0.1; t=0: delta = 0 + 0.3 - 0.1 = 0.2,
    # adv = 0.2 + 0.5 * (-0.1) = 0.15.
    adv, _ = gae([0.1, 9.0, 0.3, 9.0], [0, 1, 0, 1], [[0, 0]] * 3 + [[0.2, -0.2]],
                 [False, False, False, True], [True, False, True, False], last_value=0.0, last_player=0, lam=0.5)
    np.testing.assert_allclose(adv[:, 0], [0.15, 0.0, -0.1, 0.0], atol=1e-6)


def test_a_seat_whose_outcome_is_unknown_gets_no_advantage_for_its_last_move():
    # Seat 1 moved last at t=1; the rollout ends with seat 0 to move: seat 1's continuation
    # is unknown, so its last move has advantage 0 and its return equals its value.
    adv, ret = gae([0.1, 0.2], [0, 1], [[0, 0], [0, 0]], [False, False], [True, True], last_value=0.7, last_player=0)
    np.testing.assert_allclose(adv[:, 0], [0.6, 0.0], atol=1e-6)
    np.testing.assert_allclose(ret[:, 0], [0.7, 0.2], atol=1e-6)


def test_masked_policy_gives_zero_probability_and_legal_entropy():
    net = PolicyNet((16,), 8)
    obs = torch.randn(3, net.obs_size)
    mask = torch.zeros(3, net.num_actions, dtype=torch.bool)
    mask[0, [0, 1]] = True
    mask[1, 5] = True
    mask[2, 3:55] = True
    logp, value = net(obs, mask)
    assert value.shape == (3,)
    assert torch.all(logp.exp()[~mask] == 0)
    torch.testing.assert_close(logp.exp().sum(-1), torch.ones(3))
    legal = torch.log_softmax(net.global_logits(net.trunk(obs))[0, [0, 1]], -1)
    torch.testing.assert_close(masked_entropy(logp, mask)[0], -(legal.exp() * legal).sum())
    assert masked_entropy(logp, mask)[1] == 0  # one legal action: no entropy



@pytest.mark.parametrize("advice", [False, True])
def test_card_head_on_legal_cards_only_equals_the_dense_head(advice):
    # the card head is evaluated only where a discard or knock is legal; every legal
    # logit must be what the head gives when run on all 52 cards of every position
    torch.manual_seed(0)
    net = PolicyNet((32,), 8, advice=advice)
    obs = torch.randn(6, net.obs_size)
    mask = torch.zeros(6, net.num_actions, dtype=torch.bool)
    mask[0, [0, 1]] = True  # drawing: no card legal
    mask[1, [3, 9, 20, 55 + 9, 107]] = True  # discards, a knock, Big Gin
    mask[2, 3:55] = True
    mask[3, 55:107] = True
    mask[4, [2, 54, 106]] = True
    mask[5, [30]] = True
    logp, _ = net(obs, mask)
    z = net.trunk(obs)
    cards = obs[:, : 9 * 52].view(-1, 9, 52)
    if advice:  # each card's 4 advice slices follow the 479 flat values
        assert net.obs_size == 479 + 4 * 52 + 5
        cards = torch.cat([cards, obs[:, 479 : 479 + 4 * 52].view(-1, 4, 52)], dim=1)
    cards = cards.transpose(1, 2)
    per_card = net.card_out(torch.relu(net.card_in(cards) + net.card_context(z)[:, None, :]))
    g = net.global_logits(z)
    dense = torch.cat([g[:, :3], per_card[..., 0], per_card[..., 1], g[:, 3:]], dim=1).masked_fill(~mask, -1e9)
    torch.testing.assert_close(logp[mask], torch.log_softmax(dense, -1)[mask])


@pytest.mark.parametrize("advice, knock", [(False, "turn"), (True, "turn"), (True, "estimate")])
def test_one_heuristic_pass_gives_the_inputs_and_moves_of_separate_calls(tmp_path, monkeypatch, advice, knock):
    # the rollout analyses the networks' games and the heuristic opponent's games in one
    # call; inputs and moves must be those of the separate calls, random draws included
    from rummy_env.agents.gin.heuristic_vector import heuristic_actions
    trainer = Trainer(tiny(tmp_path, advice=advice, num_envs=48, heuristic_knock=knock), tmp_path / "run")
    worker = trainer.rollouts.workers[0]
    env, rng = worker.env, np.random.default_rng(3)
    import rummy_env.train.rollout as rollout_module

    estimated = []
    real = rollout_module.estimate_knocks
    monkeypatch.setattr(rollout_module, "estimate_knocks", lambda *args: estimated.append(real(*args).size))
    checked = 0
    for _ in range(40):
        obs = env.observe()
        order = rng.permutation(env.num_envs)
        rows, theirs = np.sort(order[:20]), np.sort(order[20:35])
        inputs, heuristic = worker._inputs_and_heuristic(obs, rows, theirs)
        np.testing.assert_array_equal(inputs, worker._inputs(obs, rows))
        worker.rng, b = np.random.default_rng(checked), np.random.default_rng(checked)
        moves = worker._heuristic_moves(theirs, heuristic)
        np.testing.assert_array_equal(moves, heuristic_actions(env, theirs, b, knock=knock))
        checked += 1
        env.step(heuristic_actions(env, np.arange(env.num_envs), rng))  # hands that come to knocks
    assert worker._inputs_and_heuristic(env.observe(), np.arange(4), np.zeros(0, dtype=np.intp))[1] is None
    assert knock == "turn" or sum(estimated) > 0  # the estimate was made, where it may knock
    with pytest.raises(ValueError, match="heuristic_knock.*choose turn or estimate"):
        tiny(tmp_path, heuristic_knock="sometimes")


def random_positions(n, obs_size, gen):
    """Observations and masks of n positions of every kind: draws, discards, knocks, Big Gin."""
    obs = torch.rand(n, obs_size, generator=gen)
    mask = torch.zeros(n, 108, dtype=torch.bool)
    for i in range(n):
        kind = i % 4
        if kind == 0:
            mask[i, [0, 1]] = True
        else:
            cards = torch.randperm(52, generator=gen)[:11]
            mask[i, 3 + cards] = True
            if kind >= 2:
                mask[i, 55 + cards[:3]] = True
            if kind == 3:
                mask[i, 107] = True
    return obs, mask


@pytest.mark.parametrize("advice", [False, True])
def test_a_policy_stack_gives_each_position_its_own_networks_policy(advice):
    gen = torch.Generator().manual_seed(1)
    torch.manual_seed(2)
    nets = [PolicyNet((32, 16), 8, advice=advice).eval() for _ in range(5)]
    stack = PolicyStack([n.state_dict() for n in nets], advice)
    obs, mask = random_positions(40, nets[0].obs_size, gen)
    which = torch.randint(0, 5, (40,), generator=gen)
    which[:6] = 3  # groups of different sizes, one network with no positions
    which[which == 1] = 0
    logp = stack.log_probs(which, obs, mask)
    with torch.no_grad():
        for i, net in enumerate(nets):
            rows = (which == i).nonzero().squeeze(1)
            if rows.numel():
                torch.testing.assert_close(logp[rows], net(obs[rows], mask[rows])[0], atol=1e-5, rtol=1e-5)
    assert (logp[~mask].exp() == 0).all() and torch.allclose(logp.exp().sum(1), torch.ones(40))
    assert stack.log_probs(which[:0], obs[:0], mask[:0]).shape == (0, 108)
    with pytest.raises(ValueError, match="at least one network"):
        PolicyStack([], advice)
    with pytest.raises(ValueError, match="one shape"):
        PolicyStack([nets[0].state_dict(), PolicyNet((32,), 8, advice=advice).state_dict()], advice)
    with pytest.raises(ValueError, match=f"with advice={not advice}"):
        PolicyStack([n.state_dict() for n in nets], not advice)
    with pytest.raises(ValueError, match=r"network indices in \[0, 5\)"):
        stack.log_probs(torch.full((40,), 5), obs, mask)


def test_the_pool_holds_the_last_snapshots_frozen(tmp_path):
    trainer = Trainer(tiny(tmp_path, pool_size=2), tmp_path / "run")
    torch.manual_seed(0)
    for step in range(3):
        with torch.no_grad():
            for p in trainer.net.parameters():
                p.add_(0.05 * torch.randn_like(p))
        trainer._snapshot()
    stack = lambda: trainer.rollouts.workers[0]._pool_stack  # noqa: E731 (the rollout worker's copy)
    assert len(trainer.pool) == stack().size == 2
    obs, mask = random_positions(8, trainer.net.obs_size, torch.Generator().manual_seed(0))
    nets = []
    for state in trainer.pool:
        nets.append(PolicyNet(trainer.config.hidden, trainer.config.card_hidden, advice=trainer.config.advice).eval())
        nets[-1].load_state_dict(state)
    with torch.no_grad():
        expected = [net(obs, mask)[0] for net in nets]
        learner = trainer.net.eval()(obs, mask)[0]
    for i in range(2):
        torch.testing.assert_close(stack().log_probs(torch.full((8,), i), obs, mask), expected[i])
    assert not torch.allclose(expected[0], expected[1])  # two different snapshots
    # the snapshots are copies: training the learner further leaves them alone
    with torch.no_grad():
        for p in trainer.net.parameters():
            p.add_(0.05 * torch.randn_like(p))
    trainer.rollouts.set_pool(trainer.pool)
    torch.testing.assert_close(stack().log_probs(torch.full((8,), 1), obs, mask), expected[1])
    torch.testing.assert_close(learner, expected[1])  # the last snapshot is the learner as it was


# ---------------------------------------------------------------- the command, resume, errors


def test_train_command_writes_a_run_and_its_policy_plays(tmp_path, capsys):
    code = main(["train", "--runs-dir", str(tmp_path), "--name", "smoke", "--num-envs", "32", "--rollout-steps", "8",
                 "--total-updates", "3", "--minibatch-size", "128", "--hidden", "[32]", "--eval-every", "3",
                 "--eval-hands", "4", "--checkpoint-every", "2", "--progress", "false", "--set", "opponents.simple=0.2"])
    assert code == 0
    (run,) = tmp_path.glob("smoke__0__*")
    for name in ("config.yaml", "checkpoint.pt", "policy.pt"):
        assert (run / name).is_file()
    scalars = read_scalars(run)
    assert list(scalars["losses/approx_kl"][0]) == [256, 512, 768]
    assert "eval/heuristic/points_per_hand" in scalars and "charts/steps_per_second" in scalars
    assert load_checkpoint(run / "checkpoint.pt")["counters"]["update"] == 3
    assert "vs heuristic" in capsys.readouterr().out
    agent = agents.make(f"ppo:{run / 'policy.pt'}")
    result = play_hand([agent, agents.make("random", seed=1)], seed=3)
    assert result.outcome in ("knock", "gin", "big_gin", "undercut", "tie", "draw")


def test_the_evaluation_says_when_every_hand_was_drawn(tmp_path, capsys):
    """With every hand drawn (here: rules that end a hand after 2 turns) the command says so
    instead of a share of hands won (drawn hands are no wins: ``draw_rate`` counts them)."""
    short = tmp_path / "short.yaml"
    short.write_text("max_turns: 2\n")
    code = main(["train", "--runs-dir", str(tmp_path), "--name", "drawn", "--num-envs", "32", "--rollout-steps", "8",
                 "--total-updates", "1", "--minibatch-size", "128", "--hidden", "[32]", "--eval-every", "1",
                 "--eval-hands", "4", "--progress", "false", "--rules", str(short)])
    assert code == 0
    out = capsys.readouterr().out
    assert "won 50.0%" not in out
    assert out.count(": all 4 hands drawn (+0.00 points a hand)") == 3  # random, simple, heuristic
    (run,) = tmp_path.glob("drawn__0__*")
    assert read_scalars(run)["eval/random/draw_rate"][1].tolist() == [1.0]


def test_an_interval_of_width_zero_is_named_not_printed():
    """A perfect record (or any set of identical results) has a normal interval of width 0,
    which says nothing of the uncertainty; the printed line says that instead of "+- 0.0%"."""
    from rummy_env.cli.training import _evaluation_text

    perfect = {"hands": 200.0, "win_rate": 1.0, "win_ci95": 0.0, "points_per_hand": 31.2, "points_ci95": 3.4}
    text = _evaluation_text(perfect, 200, "deal")
    assert text == "won 100.0% of 200 hands (no interval: every deal scored the same), +31.20 +- 3.40 points a hand"
    some_drawn = {"win_rate": 0.55, "draw_rate": 0.1, "points_per_hand": 4.25, "points_ci95": 2.5}
    assert _evaluation_text(some_drawn, 40, "hand") == ("won 55.0% of 40 hands (10.0% drawn, each counted as half a win), "
                                                        "+4.25 +- 2.50 points a hand")
    one = {"win_rate": 0.5, "draw_rate": 0.0, "points_per_hand": -3.0, "points_ci95": float("nan")}
    assert _evaluation_text(one, 2, "deal") == "won 50.0% of 2 hands, -3.00 points a hand (one deal: no interval)"


class Killed(Exception):
    """Stands for a crash in the middle of a run."""


ORACLE = {"critic": "oracle", "critic_hidden": [16], "critic_warmup": 1}


def test_a_resumed_runs_event_file_is_opened_in_a_later_second_than_the_runs_last(tmp_path):
    """TensorBoard orders a folder's event files by name, the second each was opened first:
    a run resumed in the second of its last file waits for the next, else its file could
    sort first (a process's counter ``.10`` before ``.9``) and the updates it does again
    would count twice (the resume test below failed so, depending on how many writers its
    process had opened before)."""
    from rummy_env.train.ppo import _after_earlier_event_files

    now = int(time.time())
    (tmp_path / f"events.out.tfevents.{now}.host.name.123.9").write_bytes(b"")
    _after_earlier_event_files(tmp_path)
    assert time.time() >= now + 1
    old = tmp_path / "old"
    old.mkdir()
    (old / f"events.out.tfevents.{now - 100}.host.123.9").write_bytes(b"")
    start = time.monotonic()
    _after_earlier_event_files(old)
    _after_earlier_event_files(tmp_path / "none")  # a folder without event files
    future = tmp_path / "future"
    future.mkdir()
    (future / f"events.out.tfevents.{now + 10 ** 6}.host.123.0").write_bytes(b"")  # a clock set back: bounded
    _after_earlier_event_files(future, most=0.2)
    assert time.monotonic() - start < 1.0


@pytest.mark.parametrize("critic", [{}, ORACLE], ids=["shared", "oracle"])
def test_resume_after_a_kill_repeats_no_update_and_matches_an_uninterrupted_run(tmp_path, critic):
    straight = Trainer.start(tiny(tmp_path, total_updates=5, **critic), tmp_path / "a")
    straight.train()
    straight.close()

    def kill_after_3(trainer):
        if trainer.update == 3:
            raise Killed  # the checkpoint is from update 2: update 3 is lost and redone

    broken = Trainer.start(tiny(tmp_path, total_updates=5, **critic), tmp_path / "b")
    with pytest.raises(Killed):
        broken.train(on_update=kill_after_3)
    broken.close()
    resumed = Trainer.resume(tmp_path / "b")
    assert resumed.update == 2
    resumed.train()
    resumed.close()
    a, b = straight.net.state_dict(), resumed.net.state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)
    if critic:
        a, b = straight.critic.state_dict(), resumed.critic.state_dict()
        assert all(torch.equal(a[k], b[k]) for k in a)
    sa, sb = read_scalars(tmp_path / "a"), read_scalars(tmp_path / "b")
    for tag in ("losses/policy_loss", "losses/value_loss", "charts/episodes"):
        steps, values = sb[tag]
        assert list(steps) == [256 * u for u in range(1, 6)]  # update 3 logged once, not twice
        np.testing.assert_allclose(values, sa[tag][1])


def test_resume_refuses_changes_that_alter_learning_and_damaged_checkpoints(tmp_path):
    t = Trainer.start(tiny(tmp_path, total_updates=2), tmp_path / "r")
    t.train()
    t.close()
    with pytest.raises(ValueError, match=r"cannot change \['lr'\] when resuming"):
        Trainer.resume(tmp_path / "r", {"lr": "0.1"})
    with pytest.raises(FileExistsError, match="already holds a run"):
        Trainer.start(tiny(tmp_path), tmp_path / "r")
    more = Trainer.resume(tmp_path / "r", {"total_updates": "3"})
    more.train()
    more.close()
    assert load_checkpoint(tmp_path / "r" / "checkpoint.pt")["counters"]["update"] == 3
    data = (tmp_path / "r" / "checkpoint.pt").read_bytes()
    (tmp_path / "r" / "checkpoint.pt").write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="checkpoint.pt' is damaged"):
        Trainer.resume(tmp_path / "r")
    with pytest.raises(CheckpointError, match="no checkpoint"):
        load_checkpoint(tmp_path / "missing.pt")
    with pytest.raises(FileNotFoundError, match="not a training run folder"):
        Trainer.resume(tmp_path / "nothing")


def test_extending_a_run_continues_the_learning_rate_decay(tmp_path):
    """``--resume --total-updates N`` on a finished run: the rate falls on in a straight line
    from the last update's rate to 0 at N (``train.lr_schedule``), no jump up; the line is
    kept in the checkpoint, so a later plain resume goes on along it."""
    lr, rates = 6e-4, []

    def record(trainer):
        rates.append(trainer.optimizer.param_groups[0]["lr"])

    first = Trainer.start(tiny(tmp_path, total_updates=3, lr=lr), tmp_path / "r")
    first.train(on_update=record)
    first.close()
    extended = Trainer.resume(tmp_path / "r", {"total_updates": "6"})

    def kill_after_5(trainer):
        record(trainer)
        if trainer.update == 5:
            raise Killed  # after the fifth update; the checkpoint is from the fourth: the fifth is redone

    with pytest.raises(Killed):
        extended.train(on_update=kill_after_5)
    extended.close()
    last = Trainer.resume(tmp_path / "r")
    assert last.update == 4
    last.train(on_update=record)
    last.close()
    # updates 0-2 on lr * (1 - u / 3); then from update 2's rate (lr / 3) to 0 at update 6: 3/4, 2/4, 1/4 of it
    expected = [lr, lr * 2 / 3, lr / 3, lr / 4, lr / 6] + [lr / 6, lr / 12]  # update 4 again, after the kill
    np.testing.assert_allclose(rates, expected, rtol=1e-12)
    assert read_scalars(tmp_path / "r")["charts/learning_rate"][1][3] == pytest.approx(lr / 4)


def test_policy_files_are_checked(tmp_path):
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a policy")
    with pytest.raises(ValueError, match="bad.pt' is not a readable policy file"):
        agents.make(f"ppo:{bad}")
    with pytest.raises(FileNotFoundError, match="nowhere.pt"):
        agents.make(f"ppo:path={tmp_path / 'nowhere.pt'}")
    torch.save({"format": "something else"}, bad)
    with pytest.raises(ValueError, match="not a rummy-env-policy-v1 policy file"):
        agents.make(f"ppo:{bad}")
    good = tmp_path / "good.pt"
    save_policy(PolicyNet((8,)), good, "classic")
    with pytest.raises(ValueError, match="greedy=3 must be true or false"):
        agents.make(f"ppo:path={good},greedy=3")


def test_policy_files_keep_whether_the_network_reads_advice(tmp_path):
    torch.manual_seed(3)
    net = PolicyNet((8,), 4, advice=True)
    path = tmp_path / "advice.pt"
    save_policy(net, path, "classic")
    loaded, meta = load_policy(path)
    assert loaded.advice and meta["advice"] and loaded.obs_size == net.obs_size
    obs, mask = torch.rand(2, net.obs_size), torch.ones(2, net.num_actions, dtype=torch.bool)
    torch.testing.assert_close(loaded(obs, mask)[0], net.eval()(obs, mask)[0])
    # a file from before advice existed has no such key: a network without advice
    payload = torch.load(path, weights_only=True)
    old = PolicyNet((8,), 4)
    payload.update(obs_size=old.obs_size, state_dict=old.state_dict())
    del payload["advice"]
    torch.save(payload, path)
    assert not load_policy(path)[0].advice
    # and an agent around an advice network plays whole hands
    save_policy(net, path, "classic")
    result = play_hand([agents.make(f"ppo:{path}"), agents.make("heuristic", seed=1)], "classic", seed=4)
    assert result.outcome


def test_curves_average_seeds_and_explain_missing_tags(tmp_path):
    for seed in (0, 1):
        t = Trainer.start(tiny(tmp_path, total_updates=2, seed=seed, checkpoint_every=5), tmp_path / f"exp__{seed}__x")
        t.train()
        t.close()
    out = plot_curves([tmp_path / "exp__0__x", tmp_path / "exp__1__x"], tmp_path / "c.png", tags=["losses/entropy"])
    assert out.stat().st_size > 1000
    with pytest.raises(ValueError, match="'eval/nope'.*tags found:.*losses/entropy"):
        plot_curves([tmp_path / "exp__0__x"], tmp_path / "d.png", tags=["eval/nope"])
    with pytest.raises(FileNotFoundError, match="no TensorBoard event files"):
        read_scalars(tmp_path)
    assert main(["curves", str(tmp_path / "exp__0__x"), "-o", str(tmp_path / "e.png")]) == 0


# ---------------------------------------------------------------- imitation warm start


def test_simple_actions_follow_the_simple_agent():
    """The vectorised simple opponent makes one of the moves the simple agent may make."""
    from rummy_env.agents.gin.simple_vector import simple_actions
    from rummy_env.train.opponents import information_set_of
    from rummy_env.agents.gin.simple import least_deadwood_discards
    from rummy_env.gin.game import DISCARD, KNOCK, Phase

    env = VectorGinRummy(64, seed=3)
    res = env.reset()
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(60):
        rows = np.arange(64)
        ours = simple_actions(env, rows, rng)
        for g in rows:
            info = information_set_of(env, int(g))
            obs = {"observation": res.observation[g], "action_mask": res.action_mask[g]}
            if info.phase == Phase.DISCARD and res.action_mask[g, 107] == 0:
                cards, _ = least_deadwood_discards(info.hand, info.taken_card, env.rules)
                card = ours[g] - (KNOCK if ours[g] >= KNOCK else DISCARD)
                assert card in cards
                assert (ours[g] >= KNOCK) == bool(res.action_mask[g, KNOCK + card])
            else:
                assert ours[g] == agents.make("simple", seed=0).act(obs, {"information_set": info, "rules": env.rules})
            checked += 1
        res = env.step(ours)
    assert checked == 60 * 64


def test_imitation_copies_the_teacher_and_starts_the_run(tmp_path):
    from rummy_env.train.games.gin import collect
    from rummy_env.train.imitation import pretrain

    data = collect("simple", "classic", "scaled", 3000, num_envs=32, seed=1)
    assert len(data["act"]) >= 3000
    assert data["mask"][np.arange(len(data["act"])), data["act"]].all()
    assert set(np.unique(data["ret"])) != {0.0}
    net = PolicyNet((64,), 16)
    before = pretrain(net, data, 1, 0.0, 512, torch.Generator().manual_seed(0))  # lr 0: measure only
    after = pretrain(net, data, 4, 3e-3, 256, torch.Generator().manual_seed(0))
    assert after["agreement"] > before["agreement"] + 0.1 and after["agreement"] > 0.7, (before, after)
    with pytest.raises(ValueError, match="imitation teacher must be one of"):
        collect("mcts", "classic", "scaled", 10)
    t = Trainer.start(tiny(tmp_path, total_updates=1, imitation_teacher="simple", imitation_samples=500,
                           imitation_epochs=1), tmp_path / "warm")
    t.train()
    t.close()
    assert read_scalars(tmp_path / "warm")["imitation/samples"][1][0] >= 500


def test_a_run_can_start_from_another_runs_policy(tmp_path):
    policy = check_start_from_another_runs_policy(tiny, tmp_path)
    with pytest.raises(ValueError, match="from a policy or from imitation, not both"):
        tiny(tmp_path, init_policy=policy, imitation_teacher="heuristic")


def test_advice_networks_imitate_the_heuristic_closely_and_train(tmp_path):
    """With the heuristic's evaluation as input, imitating it is nearly exact (only its
    random pick among equal discards cannot be copied); runs with advice train, snapshots
    in the pool included."""
    from rummy_env.train.games.gin import collect
    from rummy_env.train.imitation import pretrain

    data = collect("heuristic", "classic", "scaled", 4000, num_envs=32, seed=2, advice=True)
    assert data["obs"].shape[1] == PolicyNet((8,), advice=True).obs_size
    plain = {k: v[:, :479] if k == "obs" else v for k, v in data.items()}
    scores = {}
    for advice, d in ((True, data), (False, plain)):
        torch.manual_seed(0)
        net = PolicyNet((64,), 16, advice=advice)
        scores[advice] = pretrain(net, d, 6, 3e-3, 256, torch.Generator().manual_seed(0))["agreement"]
    assert scores[True] > 0.8 and scores[True] > scores[False] + 0.05, scores
    t = Trainer.start(tiny(tmp_path, total_updates=3, advice=True, opponents={"pool": 0.5, "self": 0.3, "heuristic": 0.2},
                           snapshot_every=1, eval_every=0), tmp_path / "advice")
    t.train()
    stack = t.rollouts.workers[0]._pool_stack  # the pool as the (in-process) rollout worker evaluates it
    assert t.net.advice and stack.advice and stack.size == 3
    t.close()


# ---------------------------------------------------------------- learning


def test_a_short_run_clearly_beats_random(tmp_path):
    config = load_config(None, {"num_envs": 128, "rollout_steps": 32, "total_updates": 20, "minibatch_size": 512,
                                "hidden": [128], "eval_every": 0, "progress": False, "runs_dir": str(tmp_path),
                                "checkpoint_every": 100, "opponents": {"simple": 1.0}, "torch_threads": 1})
    trainer = Trainer.start(config, tmp_path / "learn")
    trainer.train()
    trainer.close()
    judge = dataclasses.replace(config, eval_opponents=("random",), eval_hands=200, seed=5)
    untrained = evaluate(PolicyNet((128,)), judge, adapter_for("gin"))["random"]
    result = evaluate(trainer.net, judge, adapter_for("gin"))["random"]
    assert result["win_rate"] > 0.7, result
    assert result["points_per_hand"] - result["points_ci95"] > 3.0, result
    assert result["points_per_hand"] > untrained["points_per_hand"] + 3.0
    assert math.isfinite(result["points_ci95"])


def test_the_demo_trains_then_plays_a_tournament_with_the_new_agent(tmp_path, capsys):
    """The README's main command, on a tiny budget."""
    train_cfg = tmp_path / "train.yaml"
    train_cfg.write_text("name: demo\nnum_envs: 16\nrollout_steps: 8\ntotal_updates: 2\nminibatch_size: 64\n"
                         "hidden: [16]\neval_every: 2\neval_hands: 2\neval_opponents: [random]\ntorch_threads: 1\n")
    tour_cfg = tmp_path / "tour.yaml"
    tour_cfg.write_text("deals: 1\nworkers: 1\n")
    assert main(["demo", "--config", str(train_cfg), "--tournament", str(tour_cfg), "--out", str(tmp_path), "--quiet"]) == 0
    out = capsys.readouterr().out
    (demo,) = tmp_path.glob("demo-*")
    (run,) = demo.glob("demo__0__*")
    assert (demo / "curves.png").is_file() and (run / "policy.pt").is_file()
    results = (demo / "tournament" / "results.jsonl").read_text().splitlines()
    assert len(results) == 1 + 10 * 2  # header + 10 pairs x 1 deal x 2 seatings
    assert f"ppo:{run / 'policy.pt'}" in out and "Bradley-Terry" in out


def test_the_demo_refuses_a_bad_tournament_setting_before_it_trains(tmp_path, capsys):
    assert main(["demo", "--deals", "0", "--out", str(tmp_path), "--quiet"]) == 2
    captured = capsys.readouterr()
    assert captured.err == "rummy demo: error: deals must be a whole number >= 1, got 0\n"
    assert "training" not in captured.out and not list(tmp_path.iterdir())


# ---------------------------------------------------------------- the oracle critic


def test_privileged_features_are_the_opponents_hand_the_stock_and_its_next_card():
    from rummy_env.core import melds
    from rummy_env.core.cards import NUM_CARDS
    from rummy_env.gin.game import DRAW_STOCK
    from rummy_env.train.critic import PRIVILEGED_SIZE, privileged

    env = VectorGinRummy(16, seed=5)
    res = env.reset()
    rng = np.random.default_rng(1)
    checked = 0
    for _ in range(30):
        rows = np.arange(16)
        p = env.current.astype(np.intp)
        feats = privileged(env, rows, p)
        assert feats.shape == (16, PRIVILEGED_SIZE)
        for g in rows:
            opp = int(env.hands[g, 1 - p[g]])
            assert [c for c in range(NUM_CARDS) if feats[g, c]] == [c for c in range(NUM_CARDS) if opp >> c & 1]
            seen = int(env.hands[g, 0]) | int(env.hands[g, 1]) | int(env.pile_mask[g])
            stock = [c for c in range(NUM_CARDS) if not seen >> c & 1]  # every other card is in the stock
            assert [c for c in range(NUM_CARDS) if feats[g, NUM_CARDS + c]] == stock
            nxt = int(feats[g, 2 * NUM_CARDS : 3 * NUM_CARDS].argmax())
            assert feats[g, 2 * NUM_CARDS : 3 * NUM_CARDS].sum() == 1 and nxt in stock
            assert feats[g, -2] * 100 == pytest.approx(melds.min_deadwood(opp))
            assert feats[g, -1] * 100 == pytest.approx(min(melds.min_deadwood((opp | 1 << nxt) & ~(1 << c))
                                                           for c in range(NUM_CARDS) if (opp | 1 << nxt) >> c & 1))
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in res.action_mask])
        drawing = np.flatnonzero(actions == DRAW_STOCK)
        before = env.hands[drawing, p[drawing]].copy()
        res = env.step(actions)
        for i, g in enumerate(drawing):  # the card drawn is the one the features named next
            if not res.terminated[g]:
                drawn = int(env.hands[g, p[g]]) & ~int(before[i])
                assert drawn == 1 << int(feats[g, 2 * NUM_CARDS : 3 * NUM_CARDS].argmax())
                checked += 1
    assert checked > 50
    env.stock_next[3] = NUM_CARDS  # an empty stock: no next card, and the "after" figure is the deadwood now
    feats = privileged(env, np.array([3]), env.current[[3]])[0]
    assert feats[NUM_CARDS:-2].sum() == 0 and feats[-1] == feats[-2]
    assert feats[-2] * 100 == pytest.approx(melds.min_deadwood(int(env.hands[3, 1 - env.current[3]])))


def test_oracle_critic_warmup_trains_the_value_only_and_the_policy_file_holds_no_critic(tmp_path):
    t = Trainer.start(tiny(tmp_path, total_updates=3, critic="oracle", critic_hidden=[16], critic_warmup=2), tmp_path / "o")
    start_policy = {k: v.clone() for k, v in t.net.state_dict().items()}
    start_critic = {k: v.clone() for k, v in t.critic.state_dict().items()}
    seen = {}

    def record(trainer):
        seen[trainer.update] = ({k: v.clone() for k, v in trainer.net.state_dict().items()},
                                {k: v.clone() for k, v in trainer.critic.state_dict().items()})

    t.train(on_update=record)
    t.close()
    policy, critic = seen[2]
    assert all(torch.equal(policy[k], start_policy[k]) for k in policy)  # warmup: the policy did not move
    assert not all(torch.equal(critic[k], start_critic[k]) for k in critic)
    policy3, _ = seen[3]
    assert not all(torch.equal(policy3[k], policy[k]) for k in policy)  # after it, it learns
    net, _ = load_policy(tmp_path / "o" / "policy.pt")  # a plain policy: the critic stays in the checkpoint
    assert set(net.state_dict()) == set(policy)
    assert load_checkpoint(tmp_path / "o" / "checkpoint.pt")["critic"] is not None


@pytest.mark.parametrize("argv, message", [
    (["--game", "chess"], "field 'game' = 'chess': unknown game 'chess'; games: basic, gin, romme"),
    (["--game", "romme", "--players", "7"], "field 'players' = {7: 1.0}: keys must be table sizes of Rommé: 2..6"),
    (["--game", "gin", "--players", "3"], "keys must be table sizes of Gin Rummy: 2"),
    (["--game", "basic", "--opponents", "{simple: 1}"], "'opponents' = 'simple': unknown kind"),
    (["--game", "basic", "--critic", "oracle"], "Basic Rummy has no oracle critic"),
    (["--game", "romme", "--players", "[2, 5]", "--eval-hands", "12"], "'eval_hands' = 12: must be a multiple of every "
     "table size in players ([2, 5])"),
])
def test_every_game_trains_from_one_command_whose_mistakes_are_one_line(argv, message, tmp_path, capsys):
    assert main(["train", *argv, "--runs-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err
    assert not any(tmp_path.iterdir())  # refused before any run folder


def test_settings_that_would_fail_mid_run_are_refused_before_it():
    """An agent that cannot be made without a file, or more workers than hands, is a one-line
    refusal of the config, not an error after the warm start or the first updates."""
    for values, words in [({"game": "romme", "eval_opponents": "llm"}, "agent 'llm' needs model=..."),
                          ({"game": "romme", "opponents.sb3": "0.5"}, "agent 'sb3' needs path=..."),
                          ({"eval_opponents": "sb3"}, "agent 'sb3' needs path=..."),
                          ({"game": "basic", "rollout_workers": "300"}, "must be at most hands_per_update (256)")]:
        with pytest.raises(ValueError, match=re.escape(words)):
            load_config(None, values)
    assert load_config(None, {"game": "romme", "eval_opponents": "ppo"}).eval_opponents == ("ppo",)  # shipped: no file


def test_players_take_one_size_a_list_or_weights():
    assert load_config(None, {"game": "romme", "players": "4"}).players == {4: 1.0}
    assert load_config(None, {"game": "romme", "players": "[2, 6]"}).players == {2: 1.0, 6: 1.0}
    assert load_config(None, {"game": "basic", "players.4": "0"}).players == {2: 1.0, 3: 1.0, 4: 0.0}
    assert load_config(None, {"game": "gin"}).players == {2: 1.0}  # the game's smallest table, written out
    # one weight set after the whole field keeps the field's other entries, whatever its form
    assert load_config(None, {"game": "basic", "players": "3", "players.4": "1"}).players == {3: 1.0, 4: 1.0}
    assert load_config(None, {"game": "romme", "players": "[2, 3]", "players.4": "2"}).players == {2: 1.0, 3: 1.0, 4: 2.0}
    mixed = load_config(None, {"opponents": "{simple: 1}", "opponents.pool": "0.2"}).opponents
    assert mixed == {"simple": 1.0, "pool": 0.2}
    assert load_config(None, {"game": "basic"}).lr == 3e-4 and load_config(None, {}).lr == 5e-4  # each game's defaults
