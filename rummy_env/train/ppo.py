"""The one trainer of every game: masked PPO with self-play, run folders, checkpoints, exact resume.

``rummy train --game gin|basic|romme|...``. One update = one rollout from the game's batch
rollout source (its training adapter, ``rummy_env.train.adapter``: Gin Rummy's vector
engine, ``num_envs`` x ``rollout_steps`` env steps; every other game ``hands_per_update``
hands played together in this process, ``rummy_env.train.hands``), then ``update_epochs``
passes of clipped PPO over the learner's moves. What the trainer holds for every game:

- **Masks.** Each move's legal mask is stored with it and reused in the update, so the
  new and old probabilities are over the same legal actions; the entropy bonus is over
  legal actions only.
- **One trajectory per seat.** A hand interleaves its players; advantages are computed per
  (game, seat) by the source: a seat's next state is its own next decision, and the
  hand's result reaches every seat's last move whoever ended it. Hands end for real:
  nothing is bootstrapped across a deal.
- **Self-play.** Hands are given opponents by ``opponents``: the game's agents, the
  learner itself in every seat, or a pool snapshot (every other seat of a 3-6 player
  table); snapshots join the pool every ``snapshot_every`` updates.
- **Rollout workers.** ``rollout_workers`` workers play an update's share each, in this
  process (``backend: local``, ``train.workers``) or as Ray actors (``backend: ray``,
  ``train.ray_rollouts``); one local worker is the single-process trainer, draw for draw.
- **Evaluation** on duplicate deals against ``eval_opponents`` with 95% intervals
  (``train.evaluation``); a warm start by imitation (``train.imitation``) or from a policy file.

A run folder holds ``config.yaml``, TensorBoard events, ``checkpoint.pt`` (everything
needed to continue: model, optimiser, every generator, the games in progress, the pool,
counters; written atomically every ``checkpoint_every`` updates and at the end) and
``policy.pt`` (the latest policy, loadable by the game's ``ppo`` agent, e.g.
``ppo:RUN/policy.pt``). ``resume`` continues from the checkpoint exactly: the same
updates as an uninterrupted run, and TensorBoard events past the checkpoint are purged
so curves do not repeat.
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

from rummy_env.agents import torch_files
from rummy_env.core.files import write_atomically
from rummy_env.core.yaml_files import read_mapping
from rummy_env.train.adapter import CHECKPOINT_FORMAT, adapter_for
from rummy_env.train.config import PPOConfig, make_config
from rummy_env.train.evaluation import evaluate
from rummy_env.train.files import CheckpointError, init_weights, read_checkpoint
from rummy_env.train.lr_schedule import Line, from_checkpoint
from rummy_env.train.teacher_moves import FOLDER as TEACHER_FOLDER
from rummy_env.train.ppo_loss import STATS, explained_variance, minibatch_losses
from rummy_env.train.workers import LocalRollouts, state_from_checkpoint

OLD_FORMATS = ("rummy-env-ppo-checkpoint-v1",)  # pickled its games: rummy convert-policy rewrites it
BASIC_V1 = "rummy-env-basic-ppo-checkpoint-v1"  # ``rummy train-basic``'s checkpoints: read as this format
# Fields that may change when resuming (they do not change what is learned).
# ``backend`` and ``ray_address`` say where the rollouts run, not what they are, except that one in-process
# worker samples from the learner's generator and one actor from its own (``train.workers``).
RESUMABLE_OVERRIDES = ("total_updates", "eval_every", "checkpoint_every", "progress", "torch_threads", "backend",
                       "ray_address")


class Trainer:
    """One training run of any game in ``run_dir``; build with ``Trainer.start`` or ``Trainer.resume``."""

    def __init__(self, config: PPOConfig, run_dir: Path) -> None:
        self.config = c = config
        self.run_dir = Path(run_dir)
        self.adapter = adapter_for(c.game)
        torch.set_num_threads(c.torch_threads)
        torch.manual_seed(c.seed)
        self.net = self.adapter.make_net(c)
        # the value baseline: the policy's own head, or the game's oracle critic
        self.critic = self.adapter.make_critic(c, self.net)
        self._params = [*self.net.parameters(), *(self.critic.parameters() if self.critic is not None else ())]
        self.optimizer = torch.optim.Adam(self._params, lr=c.lr, eps=1e-5, fused=True)  # one kernel: faster on CPU
        self.gen = torch.Generator().manual_seed(c.seed + 1)
        self.pool: list[dict[str, torch.Tensor]] = []
        self.update = 0
        self.global_step = 0
        self.episodes = 0
        self.train_seconds = 0.0
        self.lr_line = Line(0, c.lr, c.total_updates)  # the rate's decay (train.lr_schedule)
        self.rollouts = make_rollouts(c, self.adapter, self.net, self.critic, self.gen)
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
        return cls._begin(config, run_dir, purge_step=None)

    @classmethod
    def _begin(cls, config: PPOConfig, run_dir: Path, purge_step: Optional[int]) -> "Trainer":
        """Set up the run in ``run_dir``: its config, TensorBoard events from ``purge_step`` on
        (None: a new folder), and the warm start."""
        init = _init_weights(config) if config.init_policy else None  # a bad file fails before the folder exists
        moves = None
        if config.imitation_file and config.imitation_samples:  # so does a file of moves of another game or rules
            from rummy_env.train.imitation import file_moves

            moves = file_moves(config, adapter_for(config.game))
        run_dir.mkdir(parents=True, exist_ok=True)
        _write_config(run_dir, config)
        trainer = cls(config, run_dir)
        trainer._open_writer(purge_step=purge_step)
        trainer._log_config()
        if moves is not None or (config.imitation_teacher and config.imitation_samples):
            trainer._imitate(moves)
        elif init is not None:
            trainer._init_from(init)
        return trainer

    def _init_from(self, state: dict[str, torch.Tensor]) -> None:
        """Start from ``init_policy``'s weights (checked by ``_init_weights``), evaluated at step 0."""
        self.net.load_state_dict(state)
        self._writer.add_text("init_policy", str(self.config.init_policy), 0)
        if self.config.eval_every:
            self._log_eval(self.evaluate(), 0)
        self._writer.flush()

    def _imitate(self, data: Optional[dict[str, np.ndarray]] = None) -> None:
        """The warm start (``train.imitation``) on ``data`` (``imitation_file``'s moves, read by
        ``start``) or else the teacher's hands, logged under ``imitation/`` at step 0; the network
        after it is kept as ``policy_imitation.pt`` (to measure what PPO added)."""
        from tqdm import tqdm

        from rummy_env.train.imitation import pretrain

        c = self.config
        start = time.perf_counter()
        if data is None:
            with tqdm(total=c.imitation_samples, disable=not c.progress, desc=f"imitating {c.imitation_teacher}",
                      unit="move") as bar:
                data = self.adapter.imitation_data(c, progress=lambda n: bar.update(min(n, c.imitation_samples) - bar.n),
                                                   folder=self.run_dir / TEACHER_FOLDER)
        else:
            self._writer.add_text("imitation_file", str(c.imitation_file), 0)
        collected = time.perf_counter() - start
        data = self.adapter.imitation_targets(c, data)
        stats = pretrain(self.net, data, c.imitation_epochs, c.imitation_lr, c.minibatch_size,
                         torch.Generator().manual_seed(c.seed + 6))
        seconds = time.perf_counter() - start
        self.train_seconds += seconds
        for k, v in stats.items():
            self._writer.add_scalar(f"imitation/{k}", v, 0)
        self._writer.add_scalar("imitation/samples", len(data["act"]), 0)
        self._writer.add_scalar("imitation/collect_seconds", collected, 0)
        self._writer.add_scalar("imitation/seconds", seconds, 0)
        self._save_policy(self.run_dir / "policy_imitation.pt", {"imitation": stats, "samples": len(data["act"])})
        if c.eval_every:
            self._log_eval(self.evaluate(), 0)
        self._writer.flush()

    @classmethod
    def resume(cls, run_dir: Union[str, Path], overrides: Optional[dict[str, Any]] = None) -> "Trainer":
        """Continue the run in ``run_dir`` from its checkpoint (see the module docstring); a run
        stopped before its first checkpoint starts again in its folder, reusing the warm
        start's teacher hands kept there (``train.teacher_moves``)."""
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
        if not (run_dir / "checkpoint.pt").exists():  # stopped before its first checkpoint, e.g. during the warm start
            values = read_mapping(config_file, "training config", "fields")
            config = make_config({**values, **(overrides or {})})
            return cls._begin(config, run_dir, purge_step=0)  # a teacher's hands on disk are reused
        state = load_checkpoint(run_dir / "checkpoint.pt")
        saved = make_config(state["config"])
        values = read_mapping(config_file, "training config", "fields")
        values.setdefault("game", saved.game)  # a run folder of rummy train-basic names no game
        config = make_config({**values, **(overrides or {})})
        if {**saved.to_dict(), **{k: getattr(config, k) for k in RESUMABLE_OVERRIDES}} != config.to_dict():
            raise CheckpointError(f"{str(run_dir / 'checkpoint.pt')!r} does not belong to the config in {str(config_file)!r}")
        if overrides or values != config.to_dict():
            _write_config(run_dir, config)
        trainer = cls(config, run_dir)
        trainer._restore(state)
        trainer._open_writer(purge_step=trainer.global_step + 1)
        return trainer

    def _open_writer(self, purge_step: Optional[int]) -> None:
        from torch.utils.tensorboard import SummaryWriter

        if purge_step is not None:
            _after_earlier_event_files(self.run_dir)
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
        self.rollouts.set_pool(self.pool)

    # ------------------------------------------------------------------ one update

    def _rollout(self) -> dict[str, Any]:
        """One update's batch from the rollout workers (``train.workers``, ``train.ray_rollouts``)."""
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
        self.net.eval()
        out = {k: float(np.mean(v)) for k, v in stats.items()}
        out["explained_variance"] = explained_variance(batch["ret"], batch["val"])
        return out

    # ------------------------------------------------------------------ the loop

    def train(self, on_update: Optional[Callable[["Trainer"], None]] = None) -> dict[str, Any]:
        """Run updates until ``total_updates``; returns the last evaluation (if any)."""
        from tqdm import tqdm

        c = self.config
        w = self._writer
        outcomes = self.adapter.outcomes or self.adapter.game.outcomes
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
                stats = self._learn(batch) if len(batch["act"]) else {}
                self.update += 1
                steps = int(batch["steps"])
                self.global_step += steps
                seconds = time.perf_counter() - start
                self.train_seconds += seconds
                step = self.global_step
                for k, v in stats.items():
                    w.add_scalar(f"losses/{k}", v, step)
                w.add_scalar("charts/learning_rate", self.optimizer.param_groups[0]["lr"], step)
                w.add_scalar("charts/steps_per_second", steps / seconds, step)
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
                    for name, count in zip(outcomes, batch["outcomes"]):
                        w.add_scalar(f"outcomes/{name}", count / total, step)
                if c.eval_every and (self.update % c.eval_every == 0 or self.update == c.total_updates):
                    last_eval = self.evaluate()
                    self._log_eval(last_eval, step)
                if self.update % c.snapshot_every == 0:
                    self._snapshot()
                if self.update % c.checkpoint_every == 0 or self.update == c.total_updates:
                    self.save()
                w.flush()
                bar.update(1)
                bar.set_postfix(steps_per_s=f"{steps / seconds:,.0f}", **(
                    {f"{o}": f"{r['points_per_hand']:+.2f}" for o, r in last_eval.items()}))
                if on_update is not None:
                    on_update(self)
        finally:
            bar.close()
        return last_eval

    def evaluate(self) -> dict[str, dict[str, float]]:
        """The current policy against each of ``eval_opponents`` (same deals every time, ``train.evaluation``)."""
        return evaluate(copy.deepcopy(self.net), self.config, self.adapter)

    def _log_eval(self, results: dict[str, dict[str, float]], step: int) -> None:
        for opp, res in results.items():
            for k, v in res.items():
                self._writer.add_scalar(f"eval/{opp}/{k}", v, step)

    # ------------------------------------------------------------------ checkpoints

    def _save_policy(self, path: Path, extra: dict[str, Any]) -> None:
        torch_files.save(self.adapter.policy_payload(self.net, self.config.rules, extra), path)

    def save(self) -> None:
        """Write ``checkpoint.pt`` and ``policy.pt`` atomically."""
        extra = {"update": self.update, "global_step": self.global_step, "train_seconds": self.train_seconds}
        state = {
            "format": CHECKPOINT_FORMAT,
            "config": self.config.to_dict(),
            "policy": self.adapter.policy_payload(self.net, self.config.rules, extra),
            "optimizer": self.optimizer.state_dict(),
            "torch_generator": self.gen.get_state(),
            "pool": self.pool,
            "critic": None if self.critic is None else self.critic.state_dict(),
            "counters": {"update": self.update, "global_step": self.global_step, "episodes": self.episodes,
                         "train_seconds": self.train_seconds, "lr_line": list(self.lr_line)},
            "games": self.rollouts.states(),  # one state per rollout worker, plain data
        }
        torch_files.save(state, self.run_dir / "checkpoint.pt")
        self._save_policy(self.run_dir / "policy.pt", extra)

    def _restore(self, state: dict[str, Any]) -> None:
        self.net.load_state_dict(state["policy"]["state_dict"])
        if self.critic is not None:
            self.critic.load_state_dict(state["critic"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.gen.set_state(state["torch_generator"])
        self.pool = state["pool"]
        self.rollouts.set_pool(self.pool)
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


def make_rollouts(config: PPOConfig, adapter: Any, net: Any, critic: Optional[Any], generator: torch.Generator) -> Any:
    """The rollout workers of ``config.backend``: in this process (``local``) or Ray actors (``ray``)."""
    if config.backend == "ray":
        from rummy_env.train.ray_rollouts import RayRollouts

        return RayRollouts(config, net, critic)
    return LocalRollouts(config, adapter, net, critic, generator)


def _write_config(run_dir: Path, config: PPOConfig) -> None:
    write_atomically(run_dir / "config.yaml", yaml.safe_dump(config.to_dict(), sort_keys=False).encode())


def _init_weights(config: PPOConfig) -> dict[str, torch.Tensor]:
    """The weights of ``config.init_policy``, checked to have the run's network shape (``train.files.init_weights``)."""
    adapter = adapter_for(config.game)
    return init_weights(config.init_policy, adapter.load_policy, adapter.net_shape, adapter.wanted_shape(config))


def load_checkpoint(path: Union[str, Path]) -> dict[str, Any]:
    """A training checkpoint's contents; ``CheckpointError`` naming the file if unusable. A
    checkpoint of ``rummy train-basic`` (``BASIC_V1``) is read as one of this trainer."""
    needed = ("config", "policy", "optimizer", "torch_generator", "pool", "counters", "games")
    try:
        state = read_checkpoint(path, CHECKPOINT_FORMAT, needed, converted=OLD_FORMATS)
    except CheckpointError:
        state = _from_basic_v1(path)
        if state is None:
            raise
    if state["config"].get("critic", "shared") == "oracle" and not isinstance(state.get("critic"), dict):
        raise CheckpointError(f"{str(path)!r} is from a run with the oracle critic but holds no critic weights")
    return state


def _from_basic_v1(path: Union[str, Path]) -> Optional[dict[str, Any]]:
    """A ``rummy train-basic`` checkpoint in this trainer's form (its one worker's generator
    is the one state its hands needed), or None if ``path`` is not one."""
    try:
        old = read_checkpoint(path, BASIC_V1, ("config", "policy", "optimizer", "torch_generator", "numpy_generator",
                                               "pool", "counters"))
    except CheckpointError:
        return None
    counters = old["counters"]
    return {"format": CHECKPOINT_FORMAT, "config": {**old["config"], "game": "basic"}, "policy": old["policy"],
            "optimizer": old["optimizer"], "torch_generator": old["torch_generator"], "pool": old["pool"],
            "critic": None, "games": [{"rng": old["numpy_generator"]}],
            "counters": {"update": counters["update"], "global_step": counters["decisions"], "episodes": counters["hands"],
                         "train_seconds": counters["train_seconds"], "lr_line": counters.get("lr_line")}}


def _after_earlier_event_files(run_dir: Path, most: float = 2.0) -> None:
    """Wait (at most ``most`` seconds) until the clock is past the second in which the
    run's newest event file was opened. TensorBoard reads a folder's event files in the
    order of their names, which begin with that second and end with a counter of the
    process: a resumed run's file opened in the same second could sort before the run's
    earlier one (``.10`` before ``.9``), and its purge of the updates done again would
    then be read before them, counting those updates twice. Only a run resumed within a
    second of its last file waits at all."""
    opened = [int(p.name.split(".")[3]) for p in run_dir.glob("events.out.tfevents.*")
              if len(p.name.split(".")) > 3 and p.name.split(".")[3].isdigit()]
    if opened:
        time.sleep(min(max(0.0, max(opened) + 1 - time.time()), most))
