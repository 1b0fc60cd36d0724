"""Masked PPO with self-play on the vector engine: rollouts, GAE, updates, logging, resume.

One update = ``rollout_steps`` vector steps of ``num_envs`` games (every game moves once
per step, whichever seat is to move), then ``update_epochs`` passes of clipped PPO over
the learner's moves. What makes it right for Gin Rummy:

- **Masks.** Each move's legal mask is stored with it and reused in the update, so the
  new and old probabilities are over the same legal actions; the entropy bonus is over
  legal actions only.
- **Two seats, one trajectory each.** A game interleaves two players; advantages are
  computed per (game, seat): a seat's next state is its own next decision, and the hand's
  result reaches both seats' last moves whoever ended it.
- **Hands end for real.** Knock, Gin, Big Gin and the game's own draws (the wall) are
  terminal, with the draw's 0 reward: nothing is bootstrapped across a deal. At the end
  of a rollout the seat to move bootstraps from its value; the other seat's last move
  gets no advantage that update (its outcome is not known yet).
- **Oracle critic** (``critic: oracle``, ``train.critic``): the value baseline may also
  read the opponent's hand and the stock, to take out of the advantages some of the
  noise the hidden cards put in; it is a baseline only, so the policy learns from and
  plays on its own information set. ``critic_warmup`` updates train the value alone first.
- **Self-play.** Games are assigned opponents at each deal by ``PPOConfig.opponents``
  (``train.opponents``); snapshots join the pool every ``snapshot_every`` updates.
- **Rollout workers.** The rollouts are played by ``rollout_workers`` workers
  (``train.rollout``), each its share of the games, in this process (``backend: local``)
  or as Ray actors (``backend: ray``, ``train.ray_rollouts``); the trainer concatenates
  their batches and learns. One local worker is the single-process trainer, draw for draw.

A run folder holds ``config.yaml``, TensorBoard events, ``checkpoint.pt`` (everything
needed to continue: model, optimiser, every RNG, the games in progress, the pool,
counters; written atomically every ``checkpoint_every`` updates) and ``policy.pt`` (the
latest policy, loadable as ``ppo:RUN/policy.pt``). ``resume`` continues from the
checkpoint exactly: the same updates as an uninterrupted run, and TensorBoard events
past the checkpoint are purged so curves do not repeat.
"""

from __future__ import annotations

import copy
import datetime as _dt
import math
import time
from pathlib import Path
from typing import Any, Callable, Optional, Union

import numpy as np
import torch
import yaml

from rummy_env.agents.arena import play_hand
from rummy_env.agents.gin.network import PolicyNet, load_policy, policy_payload, save_policy
from rummy_env.core.cards import NUM_CARDS
from rummy_env.gin.vector import OUTCOMES
from rummy_env.train.config import PPOConfig, load_config, make_config
from rummy_env.train.critic import OracleCritic
from rummy_env.agents import torch_files
from rummy_env.train.files import CheckpointError, init_weights, read_checkpoint
from rummy_env.train.lr_schedule import Line, from_checkpoint
from rummy_env.train.ppo_loss import STATS, explained_variance, minibatch_losses
from rummy_env.train.rollout import LocalRollouts, state_from_checkpoint

CHECKPOINT_FORMAT = "rummy-env-ppo-checkpoint-v2"
OLD_FORMATS = ("rummy-env-ppo-checkpoint-v1",)  # pickled its games: rummy convert-policy rewrites it
# Fields that may change when resuming (they do not change what is learned).
# ``backend`` and ``ray_address`` say where the rollouts run, not what they are, except that one in-process
# worker samples from the learner's generator and one actor from its own (``train.rollout``).
RESUMABLE_OVERRIDES = ("total_updates", "eval_every", "checkpoint_every", "progress", "torch_threads", "backend",
                       "ray_address")


def evaluate(net: PolicyNet, opponent: str, rules: str, hands: int, seed: int) -> dict[str, float]:
    """The policy (greedy) against ``opponent`` over ``hands // 2`` deals, seats swapped.

    Returns the share of hands won (ties and draws count half), the share of hands drawn
    or tied (``draw_rate``: a run whose every hand is drawn "wins" half of them), points
    per hand (from the policy's side) and its 95% half-width over deals.
    """
    from rummy_env import agents
    from rummy_env.agents.gin.ppo import PPOAgent

    net.eval()
    learner = PPOAgent.from_net(net)
    deals = np.random.default_rng(seed)
    per_deal = []
    wins = draws = 0.0
    for d in range(hands // 2):
        deck = deals.permutation(NUM_CARDS).tolist()
        pts = 0.0
        for seat in (0, 1):
            other = agents.make(opponent, seed=seed + 2 * d + seat)
            players = [learner, other] if seat == 0 else [other, learner]
            result = play_hand(players, rules=rules, deck=deck, dealer=1)
            reward = result.rewards[seat]
            pts += reward
            wins += 1.0 if reward > 0 else 0.0 if reward < 0 else 0.5
            draws += reward == 0
        per_deal.append(pts / 2)
    arr = np.array(per_deal)
    half = 1.96 * arr.std(ddof=1) / math.sqrt(len(arr)) if len(arr) > 1 else float("nan")
    return {"win_rate": wins / hands, "draw_rate": draws / hands, "points_per_hand": float(arr.mean()),
            "points_ci95": float(half)}


class Trainer:
    """One training run in ``run_dir``; build with ``Trainer.start`` or ``Trainer.resume``."""

    def __init__(self, config: PPOConfig, run_dir: Path) -> None:
        self.config = c = config
        self.run_dir = Path(run_dir)
        torch.set_num_threads(c.torch_threads)
        torch.manual_seed(c.seed)
        self.net = PolicyNet(c.hidden, c.card_hidden, advice=c.advice)
        # the value baseline: the policy's own head, or the oracle critic (rummy_env/train/critic.py)
        self.critic = OracleCritic(self.net.obs_size, c.critic_hidden) if c.critic == "oracle" else None
        self._params = [*self.net.parameters(), *(self.critic.parameters() if self.critic is not None else ())]
        self.optimizer = torch.optim.Adam(self._params, lr=c.lr, eps=1e-5, fused=True)  # one kernel: faster on CPU
        self.gen = torch.Generator().manual_seed(c.seed + 1)
        self.pool: list[dict[str, torch.Tensor]] = []
        self.update = 0
        self.global_step = 0
        self.episodes = 0
        self.train_seconds = 0.0
        self.lr_line = Line(0, c.lr, c.total_updates)  # the rate's decay (train.lr_schedule)
        self.rollouts = make_rollouts(c, self.net, self.critic, self.gen)
        self._writer = None

    # ------------------------------------------------------------------ construction

    @classmethod
    def start(cls, config: PPOConfig, run_dir: Optional[Union[str, Path]] = None) -> "Trainer":
        """A new run; its folder is ``runs_dir/NAME__SEED__TIME`` unless ``run_dir`` is given."""
        if run_dir is None:
            stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
            run_dir = Path(config.runs_dir) / f"{config.name}__{config.seed}__{stamp}"
        run_dir = Path(run_dir)
        if (run_dir / "checkpoint.pt").exists() or (run_dir / "config.yaml").exists():
            raise FileExistsError(f"{str(run_dir)!r} already holds a run; continue it with --resume {run_dir}")
        init = _init_weights(config) if config.init_policy else None  # a bad file fails before the folder exists
        run_dir.mkdir(parents=True, exist_ok=True)
        (run_dir / "config.yaml").write_text(yaml.safe_dump(config.to_dict(), sort_keys=False))
        trainer = cls(config, run_dir)
        trainer._open_writer(purge_step=None)
        trainer._log_config()
        if config.imitation_teacher:
            trainer._imitate()
        elif init is not None:
            trainer._init_from(init)
        return trainer

    def _init_from(self, state: dict[str, torch.Tensor]) -> None:
        """Start from ``init_policy``'s weights (checked by ``_init_weights``), evaluated at step 0."""
        self.net.load_state_dict(state)
        self._writer.add_text("init_policy", str(self.config.init_policy), 0)
        if self.config.eval_every:
            for opp, res in self.evaluate().items():
                for k, v in res.items():
                    self._writer.add_scalar(f"eval/{opp}/{k}", v, 0)
        self._writer.flush()

    def _imitate(self) -> None:
        """The warm start (``train.imitation``), logged under ``imitation/`` at step 0."""
        from tqdm import tqdm

        from rummy_env.train.imitation import collect, pretrain

        c = self.config
        start = time.perf_counter()
        with tqdm(total=c.imitation_samples, disable=not c.progress, desc=f"imitating {c.imitation_teacher}",
                  unit="move") as bar:
            data = collect(c.imitation_teacher, c.rules, c.reward, c.imitation_samples, seed=c.seed + 5, advice=c.advice,
                           win_bonus=c.win_bonus,
                           progress=lambda n: bar.update(min(n, c.imitation_samples) - bar.n))
        stats = pretrain(self.net, data, c.imitation_epochs, c.imitation_lr, c.minibatch_size,
                         torch.Generator().manual_seed(c.seed + 6))
        self.train_seconds += time.perf_counter() - start
        for k, v in stats.items():
            self._writer.add_scalar(f"imitation/{k}", v, 0)
        self._writer.add_scalar("imitation/samples", len(data["act"]), 0)
        self._writer.add_scalar("imitation/seconds", time.perf_counter() - start, 0)
        if c.eval_every:
            for opp, res in self.evaluate().items():
                for k, v in res.items():
                    self._writer.add_scalar(f"eval/{opp}/{k}", v, 0)
        self._writer.flush()

    @classmethod
    def resume(cls, run_dir: Union[str, Path], overrides: Optional[dict[str, Any]] = None) -> "Trainer":
        """Continue the run in ``run_dir`` from its checkpoint (see the module docstring)."""
        run_dir = Path(run_dir)
        config_file = run_dir / "config.yaml"
        if not config_file.is_file():
            raise FileNotFoundError(f"{str(run_dir)!r} is not a training run folder (no config.yaml)")
        bad = sorted(set(overrides or {}) - set(RESUMABLE_OVERRIDES))
        if bad:
            raise ValueError(
                f"cannot change {bad} when resuming (it would change what is learned); "
                f"allowed: {', '.join(RESUMABLE_OVERRIDES)}"
            )
        config = load_config(config_file, overrides)
        state = load_checkpoint(run_dir / "checkpoint.pt")
        saved = make_config(state["config"])
        if {**saved.to_dict(), **{k: getattr(config, k) for k in RESUMABLE_OVERRIDES}} != config.to_dict():
            raise CheckpointError(f"{str(run_dir / 'checkpoint.pt')!r} does not belong to the config in {str(config_file)!r}")
        if overrides:
            (run_dir / "config.yaml").write_text(yaml.safe_dump(config.to_dict(), sort_keys=False))
        trainer = cls(config, run_dir)
        trainer._restore(state)
        trainer._open_writer(purge_step=trainer.global_step + 1)
        return trainer

    def _open_writer(self, purge_step: Optional[int]) -> None:
        from torch.utils.tensorboard import SummaryWriter

        self._writer = SummaryWriter(str(self.run_dir), purge_step=purge_step)

    def _log_config(self) -> None:
        from torch.utils.tensorboard.summary import hparams

        flat = {k: (str(v) if isinstance(v, (list, dict, tuple)) or v is None else v) for k, v in self.config.to_dict().items()}
        rows = "\n".join(f"|{k}|{v}|" for k, v in flat.items())
        self._writer.add_text("config", "|field|value|\n|-|-|\n" + rows, 0)
        metrics = {f"eval/{o}/points_per_hand": 0.0 for o in self.config.eval_opponents}
        for summary in hparams(flat, metrics):
            self._writer.file_writer.add_summary(summary)

    # ------------------------------------------------------------------ self-play

    def _snapshot(self) -> None:
        self.pool.append({k: v.detach().clone() for k, v in self.net.state_dict().items()})
        del self.pool[: -self.config.pool_size]
        self._build_pool_stack()

    def _build_pool_stack(self) -> None:
        """Send the pool to the rollout workers (each evaluates it as a ``train.policy_stack``)."""
        self.rollouts.set_pool(self.pool)

    # ------------------------------------------------------------------ one update

    def _rollout(self) -> dict[str, Any]:
        """One update's batch from the rollout workers (``train.rollout``, ``train.ray_rollouts``)."""
        batch = self.rollouts.collect()
        self.episodes += batch["episodes"]
        return batch

    def _learn(self, batch: dict[str, Any]) -> dict[str, float]:
        c = self.config
        self.net.train()
        if self.critic is not None:
            self.critic.train()
        warmup = self.update < c.critic_warmup  # only the value learns (the policy's loss is left out)
        obs = torch.from_numpy(batch["obs"])
        priv = torch.from_numpy(batch["priv"])
        mask = torch.from_numpy(batch["mask"])
        act = torch.from_numpy(batch["act"])
        old_logp = torch.from_numpy(batch["logp"])
        old_val = torch.from_numpy(batch["val"])
        adv_all = torch.from_numpy(batch["adv"])
        ret = torch.from_numpy(batch["ret"])
        m = obs.shape[0]
        stats: dict[str, list[float]] = {k: [] for k in STATS}
        for _ in range(c.update_epochs):
            order = torch.randperm(m, generator=self.gen)
            for start in range(0, m, c.minibatch_size):
                idx = order[start : start + c.minibatch_size]
                logp_all, value = self.net(obs[idx], mask[idx])
                if self.critic is not None:
                    value = self.critic(obs[idx], priv[idx])
                pg_loss, v_loss, entropy, step_stats = minibatch_losses(
                    logp_all, value, mask[idx], act[idx], old_logp[idx], old_val[idx], adv_all[idx], ret[idx],
                    c.clip_coef, c.clip_vloss)
                loss = c.vf_coef * v_loss if warmup else pg_loss - c.ent_coef * entropy + c.vf_coef * v_loss
                self.optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self._params, c.max_grad_norm)
                self.optimizer.step()
                for k, v in step_stats.items():
                    stats[k].append(v)
            if c.target_kl is not None and np.mean(stats["approx_kl"][-math.ceil(m / c.minibatch_size):]) > c.target_kl:
                break
        out = {k: float(np.mean(v)) for k, v in stats.items()}
        out["explained_variance"] = explained_variance(batch["ret"], batch["val"])
        return out

    # ------------------------------------------------------------------ the loop

    def train(self, on_update: Optional[Callable[["Trainer"], None]] = None) -> dict[str, Any]:
        """Run updates until ``total_updates``; returns the last evaluation (if any)."""
        from tqdm import tqdm

        c = self.config
        w = self._writer
        last_eval: dict[str, Any] = {}
        bar = tqdm(total=c.total_updates, initial=self.update, disable=not c.progress, unit="update", dynamic_ncols=True)
        try:
            while self.update < c.total_updates:
                start = time.perf_counter()
                if c.anneal_lr:
                    lr = self.lr_line.at(self.update)
                    for group in self.optimizer.param_groups:
                        group["lr"] = lr
                batch = self._rollout()
                stats = self._learn(batch)
                self.update += 1
                self.global_step += c.steps_per_update
                seconds = time.perf_counter() - start
                self.train_seconds += seconds
                step = self.global_step
                for k, v in stats.items():
                    w.add_scalar(f"losses/{k}", v, step)
                w.add_scalar("charts/learning_rate", self.optimizer.param_groups[0]["lr"], step)
                w.add_scalar("charts/steps_per_second", c.steps_per_update / seconds, step)
                w.add_scalar("charts/learner_samples", len(batch["act"]), step)
                w.add_scalar("charts/rollout_seconds", batch["seconds"], step)
                if self.rollouts.restarts:
                    w.add_scalar("charts/worker_restarts", self.rollouts.restarts, step)
                w.add_scalar("charts/episodes", self.episodes, step)
                for kind, values in batch["returns"].items():
                    if values:
                        w.add_scalar(f"charts/episodic_return_vs_{kind}", float(np.mean(values)), step)
                total = batch["outcomes"].sum()
                if total:
                    for name, count in zip(OUTCOMES, batch["outcomes"]):
                        w.add_scalar(f"outcomes/{name}", count / total, step)
                if c.eval_every and (self.update % c.eval_every == 0 or self.update == c.total_updates):
                    last_eval = self.evaluate()
                    for opp, res in last_eval.items():
                        for k, v in res.items():
                            w.add_scalar(f"eval/{opp}/{k}", v, step)
                if self.update % c.snapshot_every == 0:
                    self._snapshot()
                if self.update % c.checkpoint_every == 0 or self.update == c.total_updates:
                    self.save()
                w.flush()
                bar.update(1)
                bar.set_postfix(steps_per_s=f"{c.steps_per_update / seconds:,.0f}", **(
                    {f"{o}": f"{r['points_per_hand']:+.2f}" for o, r in last_eval.items()}))
                if on_update is not None:
                    on_update(self)
        finally:
            bar.close()
        return last_eval

    def evaluate(self) -> dict[str, dict[str, float]]:
        """The current policy against each of ``eval_opponents`` (same deals every time)."""
        net = copy.deepcopy(self.net)
        return {o: evaluate(net, o, self.config.rules, self.config.eval_hands, seed=self.config.seed + 100_000)
                for o in self.config.eval_opponents}

    # ------------------------------------------------------------------ checkpoints

    def save(self) -> None:
        """Write ``checkpoint.pt`` and ``policy.pt`` atomically."""
        rules = self.config.rules
        extra = {"update": self.update, "global_step": self.global_step, "train_seconds": self.train_seconds}
        state = {
            "format": CHECKPOINT_FORMAT,
            "config": self.config.to_dict(),
            "policy": policy_payload(self.net, rules, extra),
            "optimizer": self.optimizer.state_dict(),
            "torch_generator": self.gen.get_state(),
            "pool": self.pool,
            "critic": None if self.critic is None else self.critic.state_dict(),
            "counters": {"update": self.update, "global_step": self.global_step, "episodes": self.episodes,
                         "train_seconds": self.train_seconds, "lr_line": list(self.lr_line)},
            "games": self.rollouts.states(),  # one state per rollout worker, plain data
        }
        torch_files.save(state, self.run_dir / "checkpoint.pt")
        save_policy(self.net, self.run_dir / "policy.pt", rules, extra)

    def _restore(self, state: dict[str, Any]) -> None:
        policy = state["policy"]
        self.net.load_state_dict(policy["state_dict"])
        if self.critic is not None:
            self.critic.load_state_dict(state["critic"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.gen.set_state(state["torch_generator"])
        self.pool = state["pool"]
        self._build_pool_stack()
        counters = state["counters"]
        self.update, self.global_step = counters["update"], counters["global_step"]
        self.episodes, self.train_seconds = counters["episodes"], counters["train_seconds"]
        line = from_checkpoint(counters.get("lr_line"), self.config.lr, state["config"]["total_updates"])
        self.lr_line = line.resumed(self.update, self.config.total_updates)  # a new total: the decay goes on
        self.rollouts.restore([state_from_checkpoint(games) for games in state["games"]])

    def close(self) -> None:
        """Close the TensorBoard writer and stop the rollout workers (Ray actors)."""
        self.rollouts.close()
        if self._writer is not None:
            self._writer.close()
            self._writer = None


def make_rollouts(config: PPOConfig, net: PolicyNet, critic: Optional[OracleCritic],
                  generator: torch.Generator) -> Any:
    """The rollout workers of ``config.backend``: in this process (``local``) or Ray actors (``ray``)."""
    if config.backend == "ray":
        from rummy_env.train.ray_rollouts import RayRollouts

        return RayRollouts(config, net, critic)
    return LocalRollouts(config, net, critic, generator)


def _init_weights(config: PPOConfig) -> dict[str, torch.Tensor]:
    """The weights of ``config.init_policy``, checked to have the run's ``hidden``,
    ``card_hidden`` and ``advice`` (``train.files.init_weights``)."""
    c = config
    return init_weights(c.init_policy, load_policy,
                        lambda net: {"hidden": list(net.hidden), "card_hidden": net.card_hidden, "advice": net.advice},
                        {"hidden": list(c.hidden), "card_hidden": c.card_hidden, "advice": c.advice})


def load_checkpoint(path: Union[str, Path]) -> dict[str, Any]:
    """A training checkpoint's contents; ``CheckpointError`` naming the file if unusable."""
    needed = ("config", "policy", "optimizer", "torch_generator", "pool", "counters", "games")
    state = read_checkpoint(path, CHECKPOINT_FORMAT, needed, converted=OLD_FORMATS)
    if state["config"].get("critic", "shared") == "oracle" and not isinstance(state.get("critic"), dict):
        raise CheckpointError(f"{str(path)!r} is from a run with the oracle critic but holds no critic weights")
    return state
