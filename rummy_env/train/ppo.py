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
import io
import math
import os
import pickle
import time
from pathlib import Path
from typing import Any, Callable, Optional, Union

import numpy as np
import torch
import yaml

from rummy_env.agents.arena import play_hand
from rummy_env.agents.gin.heuristic_features import advice
from rummy_env.agents.gin.heuristic_vector import Analysis, Positions, actions_from, analyse, estimate_knocks, positions_of
from rummy_env.agents.gin.simple import simple_actions
from rummy_env.core.cards import NUM_CARDS
from rummy_env.gin.vector import OUTCOMES, VectorGinRummy
from rummy_env.train.config import OPPONENT_KINDS, PPOConfig, load_config, make_config, with_win_bonus
from rummy_env.train.critic import OracleCritic, privileged
from rummy_env.agents.gin.network import PolicyNet, load_policy, masked_entropy, policy_payload, save_policy, vector_inputs
from rummy_env.train.opponents import random_actions
from rummy_env.train.policy_stack import PolicyStack

CHECKPOINT_FORMAT = "rummy-env-ppo-checkpoint-v1"
SELF, POOL, HEURISTIC = (OPPONENT_KINDS.index(k) for k in ("self", "pool", "heuristic"))
# Fields that may change when resuming (they do not change what is learned).
RESUMABLE_OVERRIDES = ("total_updates", "eval_every", "checkpoint_every", "progress", "torch_threads")


class CheckpointError(ValueError):
    """A checkpoint that cannot be used (missing, damaged, or from another run format)."""


def evaluate(net: PolicyNet, opponent: str, rules: str, hands: int, seed: int) -> dict[str, float]:
    """The policy (greedy) against ``opponent`` over ``hands // 2`` deals, seats swapped.

    Returns the share of hands won (ties and draws count half), points per hand (from
    the policy's side) and its 95% half-width over deals.
    """
    from rummy_env import agents
    from rummy_env.agents.gin.ppo import PPOAgent

    net.eval()
    learner = PPOAgent.from_net(net)
    deals = np.random.default_rng(seed)
    per_deal = []
    wins = 0.0
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
        per_deal.append(pts / 2)
    arr = np.array(per_deal)
    half = 1.96 * arr.std(ddof=1) / math.sqrt(len(arr)) if len(arr) > 1 else float("nan")
    return {"win_rate": wins / hands, "points_per_hand": float(arr.mean()), "points_ci95": float(half)}


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
        self.rng = np.random.default_rng(c.seed + 2)
        self.env = VectorGinRummy(c.num_envs, rules=c.rules, encoding="flat", reward=c.reward, seed=c.seed + 3)
        names = list(c.opponents)
        weights = np.array([float(c.opponents[k]) for k in names])
        self._kinds = np.array([OPPONENT_KINDS.index(k) for k in names])
        self._weights = weights / weights.sum()
        self.pool: list[dict[str, torch.Tensor]] = []
        self._pool_stack: Optional[PolicyStack] = None
        self.update = 0
        self.global_step = 0
        self.episodes = 0
        self.train_seconds = 0.0
        n = c.num_envs
        self.env.reset()
        self.kind = np.zeros(n, dtype=np.int64)
        self.pool_index = np.zeros(n, dtype=np.int64)
        self.learner_seat = np.zeros(n, dtype=np.int64)
        self._assign(np.arange(n))
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

    def _assign(self, rows: np.ndarray) -> None:
        """Draw an opponent kind, pool member and learner seat for newly dealt games."""
        if rows.size == 0:
            return
        kinds = self._kinds[self.rng.choice(len(self._kinds), size=rows.size, p=self._weights)]
        if not self.pool:  # no snapshot yet: the current policy stands in
            kinds = np.where(kinds == POOL, SELF, kinds)
        self.kind[rows] = kinds
        self.pool_index[rows] = self.rng.integers(0, max(len(self.pool), 1), size=rows.size)
        self.learner_seat[rows] = self.rng.integers(0, 2, size=rows.size)

    def _snapshot(self) -> None:
        self.pool.append({k: v.detach().clone() for k, v in self.net.state_dict().items()})
        del self.pool[: -self.config.pool_size]
        self._build_pool_stack()

    def _build_pool_stack(self) -> None:
        """The pool's networks, evaluated together (``train.policy_stack``); None while empty."""
        self._pool_stack = PolicyStack(self.pool, self.config.advice) if self.pool else None

    def _sample(self, logp: torch.Tensor) -> torch.Tensor:
        """Gumbel-max sampling (faster than ``multinomial`` here); masked actions never win."""
        u = torch.rand(logp.shape, generator=self.gen).clamp_(min=1e-12)
        return torch.argmax(logp - torch.log(-torch.log(u)), dim=-1)

    # ------------------------------------------------------------------ one update

    def _rollout(self) -> dict[str, Any]:
        c, env = self.config, self.env
        T, n = c.rollout_steps, c.num_envs
        # the learner's inputs, masks (and privileged features) step by step, learner games only:
        # concatenated they are the batch in the order of rec_buf's True entries (step, then game)
        obs_parts: list[np.ndarray] = []
        mask_parts: list[np.ndarray] = []
        priv_parts: list[np.ndarray] = []
        act_buf = np.zeros((T, n), dtype=np.int64)
        logp_buf = np.zeros((T, n), dtype=np.float32)
        val_buf = np.zeros((T, n), dtype=np.float32)
        rec_buf = np.zeros((T, n), dtype=bool)
        player_buf = np.zeros((T, n), dtype=np.int64)
        rew_buf = np.zeros((T, n, 2), dtype=np.float32)
        term_buf = np.zeros((T, n), dtype=bool)
        returns: dict[str, list[float]] = {k: [] for k in OPPONENT_KINDS if k != "self"}
        outcomes = np.zeros(6, dtype=np.int64)
        self.net.eval()
        if self.critic is not None:
            self.critic.eval()
        obs = env.observe()
        mask = env.action_mask().astype(bool)
        for t in range(T):
            player = env.current.astype(np.int64)
            learner = (self.kind == SELF) | (player == self.learner_seat)
            others = ~learner
            hr = np.flatnonzero(others & (self.kind == HEURISTIC))
            # the networks' inputs, and the heuristic opponent's analysis of its games
            inputs, heuristic = self._inputs_and_heuristic(obs, np.flatnonzero(learner | (self.kind == POOL)), hr)
            actions = np.zeros(n, dtype=np.int64)
            rows = np.flatnonzero(learner)
            obs_parts.append(inputs[rows])
            mask_parts.append(mask[rows])
            with torch.no_grad():
                o = torch.from_numpy(obs_parts[-1])
                m = torch.from_numpy(mask_parts[-1])
                logp, value = self.net(o, m)
                if self.critic is not None:
                    priv_parts.append(privileged(env, rows, player[rows]))
                    value = self.critic(o, torch.from_numpy(priv_parts[-1]))
                a = self._sample(logp)
                actions[rows] = a.numpy()
                logp_buf[t, rows] = logp.gather(1, a[:, None]).squeeze(1).numpy()
                val_buf[t, rows] = value.numpy()
                pr = np.flatnonzero(others & (self.kind == POOL))
                if pr.size:  # each game against its own snapshot
                    lp = self._pool_stack.log_probs(torch.from_numpy(self.pool_index[pr]), torch.from_numpy(inputs[pr]),
                                                    torch.from_numpy(mask[pr]))
                    actions[pr] = self._sample(lp).numpy()
            rr = np.flatnonzero(others & (self.kind == OPPONENT_KINDS.index("random")))
            if rr.size:
                actions[rr] = random_actions(mask[rr], self.rng)
            sr = np.flatnonzero(others & (self.kind == OPPONENT_KINDS.index("simple")))
            if sr.size:
                actions[sr] = simple_actions(env, sr, self.rng)
            if hr.size:
                actions[hr] = self._heuristic_moves(hr, heuristic)
            act_buf[t] = actions
            rec_buf[t], player_buf[t] = learner, player
            r = env.step(actions)
            rew_buf[t], term_buf[t] = with_win_bonus(r.rewards, c.win_bonus), r.terminated
            done = np.flatnonzero(r.terminated)
            if done.size:
                for g in done:
                    kind = OPPONENT_KINDS[self.kind[g]]
                    if kind != "self":
                        returns[kind].append(float(r.rewards[g, self.learner_seat[g]]))
                np.add.at(outcomes, r.outcome[done], 1)
                self.episodes += done.size
                self._assign(done)
            obs, mask = r.observation, r.action_mask.astype(bool)
        with torch.no_grad():
            last_inputs = torch.from_numpy(self._inputs(obs, np.arange(n)))
            if self.critic is not None:
                last_value = self.critic(last_inputs, torch.from_numpy(privileged(env, np.arange(n), env.current)))
            else:
                _, last_value = self.net(last_inputs, torch.from_numpy(mask))
        adv, ret = self._gae(val_buf, player_buf, rew_buf, term_buf, rec_buf, last_value.numpy(), env.current.astype(np.int64))
        sel = rec_buf.reshape(-1)
        return {
            "obs": np.concatenate(obs_parts),
            "mask": np.concatenate(mask_parts),
            "act": act_buf.reshape(-1)[sel],
            "logp": logp_buf.reshape(-1)[sel],
            "val": val_buf.reshape(-1)[sel],
            "adv": adv.reshape(-1)[sel],
            "ret": ret.reshape(-1)[sel],
            "priv": np.concatenate(priv_parts) if priv_parts else np.zeros((int(sel.sum()), 0), dtype=np.float32),
            "returns": returns,
            "outcomes": outcomes,
        }

    def _inputs(self, observation: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """The networks' inputs (``rummy_env.agents.gin.network.vector_inputs``), advice for games ``rows`` only."""
        return vector_inputs(observation, self.env, rows, self.config.advice)

    def _inputs_and_heuristic(self, observation: np.ndarray, rows: np.ndarray,
                              heuristic_rows: np.ndarray) -> tuple[np.ndarray, Optional[tuple[Positions, Analysis]]]:
        """``_inputs(observation, rows)``, and the heuristic's positions and analysis of games
        ``heuristic_rows`` (``rummy_env.agents.gin.heuristic_vector``). With advice, one analysis covers
        both sets of games: its cost is largely per call, not per game. None for no games."""
        env, c = self.env, self.config
        if not c.advice:
            if not heuristic_rows.size:
                return observation, None
            pos = positions_of(env, heuristic_rows)
            return observation, (pos, analyse(pos, env.rules))
        both = positions_of(env, np.concatenate([rows, heuristic_rows]))
        analysis = analyse(both, env.rules)
        mine = slice(0, rows.size)
        features = advice(both.subset(mine), env.rules, analysis.subset(mine))
        theirs = slice(rows.size, None)
        heuristic = (both.subset(theirs), analysis.subset(theirs)) if heuristic_rows.size else None
        return vector_inputs(observation, env, rows, True, features), heuristic

    def _heuristic_moves(self, rows: np.ndarray, heuristic: tuple[Positions, Analysis]) -> np.ndarray:
        """The heuristic opponent's moves in games ``rows`` from its positions and analysis
        there (``_inputs_and_heuristic``): ``heuristic_actions(env, rows, self.rng,
        knock=heuristic_knock)``, the same draws in the same order."""
        noise = self.rng.random((rows.size, NUM_CARDS))
        if self.config.heuristic_knock == "estimate":
            estimate_knocks(self.env, rows, *heuristic, self.rng)
        return actions_from(*heuristic, noise)

    def _gae(self, values, players, rewards, terminated, recorded, last_value, last_player):
        """Advantages per (game, seat) trajectory; see the module docstring."""
        c = self.config
        T, n = values.shape
        rows = np.arange(n)
        adv = np.zeros((T, n), dtype=np.float32)
        next_value = np.zeros((n, 2), dtype=np.float32)
        next_adv = np.zeros((n, 2), dtype=np.float32)
        pending = np.zeros((n, 2), dtype=np.float32)  # reward waiting for the seat's last move
        known = np.zeros((n, 2), dtype=bool)  # whether the seat's continuation is known
        next_value[rows, last_player] = last_value
        known[rows, last_player] = True
        for t in range(T - 1, -1, -1):
            end = terminated[t]
            next_value[end] = 0.0
            next_adv[end] = 0.0
            pending[end] = rewards[t][end]
            known[end] = True
            p = players[t]
            rec = recorded[t]
            delta = pending[rows, p] + c.gamma * next_value[rows, p] - values[t]
            a = delta + c.gamma * c.gae_lambda * next_adv[rows, p]
            a = np.where(known[rows, p], a, 0.0)
            adv[t] = np.where(rec, a, 0.0)
            upd = rows[rec]
            pu = p[rec]
            next_value[upd, pu] = values[t][rec]
            next_adv[upd, pu] = adv[t][rec]
            pending[upd, pu] = 0.0
            known[upd, pu] = True
        return adv, adv + values

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
        stats: dict[str, list[float]] = {k: [] for k in ("policy_loss", "value_loss", "entropy", "approx_kl", "clip_fraction")}
        for _ in range(c.update_epochs):
            order = torch.randperm(m, generator=self.gen)
            for start in range(0, m, c.minibatch_size):
                idx = order[start : start + c.minibatch_size]
                logp_all, value = self.net(obs[idx], mask[idx])
                if self.critic is not None:
                    value = self.critic(obs[idx], priv[idx])
                logp = logp_all.gather(1, act[idx, None]).squeeze(1)
                log_ratio = logp - old_logp[idx]
                ratio = log_ratio.exp()
                adv = adv_all[idx]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8) if adv.numel() > 1 else adv
                pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - c.clip_coef, 1 + c.clip_coef)).mean()
                if c.clip_vloss:
                    v_clipped = old_val[idx] + (value - old_val[idx]).clamp(-c.clip_coef, c.clip_coef)
                    v_loss = 0.5 * torch.max((value - ret[idx]) ** 2, (v_clipped - ret[idx]) ** 2).mean()
                else:
                    v_loss = 0.5 * ((value - ret[idx]) ** 2).mean()
                entropy = masked_entropy(logp_all, mask[idx]).mean()
                loss = c.vf_coef * v_loss if warmup else pg_loss - c.ent_coef * entropy + c.vf_coef * v_loss
                self.optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self._params, c.max_grad_norm)
                self.optimizer.step()
                with torch.no_grad():
                    stats["policy_loss"].append(float(pg_loss))
                    stats["value_loss"].append(float(v_loss))
                    stats["entropy"].append(float(entropy))
                    stats["approx_kl"].append(float(((ratio - 1) - log_ratio).mean()))
                    stats["clip_fraction"].append(float(((ratio - 1).abs() > c.clip_coef).float().mean()))
            if c.target_kl is not None and np.mean(stats["approx_kl"][-math.ceil(m / c.minibatch_size):]) > c.target_kl:
                break
        out = {k: float(np.mean(v)) for k, v in stats.items()}
        var = float(np.var(batch["ret"]))
        out["explained_variance"] = float("nan") if var == 0 else 1 - float(np.var(batch["ret"] - batch["val"])) / var
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
                    lr = c.lr * (1.0 - self.update / c.total_updates)
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
                         "train_seconds": self.train_seconds},
            "games": pickle.dumps({
                "env": self.env, "rng": self.rng, "kind": self.kind,
                "pool_index": self.pool_index, "learner_seat": self.learner_seat,
            }),
        }
        buffer = io.BytesIO()
        torch.save(state, buffer)
        _atomic_write(self.run_dir / "checkpoint.pt", buffer.getvalue())
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
        games = pickle.loads(state["games"])
        self.env, self.rng = games["env"], games["rng"]
        self.kind, self.pool_index, self.learner_seat = games["kind"], games["pool_index"], games["learner_seat"]

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None


def _init_weights(config: PPOConfig) -> dict[str, torch.Tensor]:
    """The weights of ``config.init_policy`` (a policy file or checkpoint), checked to fit.

    Why a run may start from them: to train a finished agent further under other settings
    (another reward or opponent mix) as a new run, where ``--resume`` may only continue the
    same one. The network must have the run's shape (``hidden``, ``card_hidden``, ``advice``).
    """
    c = config
    try:
        net, _ = load_policy(c.init_policy)
    except FileNotFoundError as exc:
        raise FileNotFoundError(f"init_policy: {exc}") from None
    except ValueError as exc:
        raise ValueError(f"init_policy: {exc}") from None
    have = {"hidden": list(net.hidden), "card_hidden": net.card_hidden, "advice": net.advice}
    want = {"hidden": list(c.hidden), "card_hidden": c.card_hidden, "advice": c.advice}
    if have != want:
        raise ValueError(f"init_policy {c.init_policy!r} holds a network with {have}; this run's config asks for {want}")
    return net.state_dict()


def _atomic_write(path: Path, data: bytes) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    tmp.replace(path)


def load_checkpoint(path: Union[str, Path]) -> dict[str, Any]:
    """A training checkpoint's contents; ``CheckpointError`` naming the file if unusable."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"no checkpoint at {str(path)!r}: the run saved none yet (checkpoint_every updates)")
    try:
        state = torch.load(path, map_location="cpu", weights_only=False)
    except Exception as exc:
        raise CheckpointError(f"checkpoint {str(path)!r} is damaged or not a checkpoint ({type(exc).__name__}: {exc})") from None
    needed = ("config", "policy", "optimizer", "torch_generator", "pool", "counters", "games")
    if not isinstance(state, dict) or state.get("format") != CHECKPOINT_FORMAT or any(k not in state for k in needed):
        raise CheckpointError(f"{str(path)!r} is not a {CHECKPOINT_FORMAT} checkpoint")
    if state["config"].get("critic", "shared") == "oracle" and not isinstance(state.get("critic"), dict):
        raise CheckpointError(f"{str(path)!r} is from a run with the oracle critic but holds no critic weights")
    return state
