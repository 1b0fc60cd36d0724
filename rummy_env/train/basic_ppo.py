"""Masked PPO for Basic Rummy at 2 to 4 players: ``rummy train-basic``.

Its own command and module, beside Gin Rummy's ``rummy train`` (``train.ppo``): that one
steps Gin's vector engine (``num_envs`` games in lockstep arrays, two seats, Ray rollout
workers), and none of that exists for Basic Rummy. Here the hands are scalar
``BasicRummyState`` games, many played at once in this process: each round every
unfinished hand makes one move, the scripted seats one by one and every network seat of
all the hands in one forward pass (the learner's, and each pool snapshot's). Its fields
(table sizes mixed by ``players``, Basic Rummy's opponents) are in ``train.basic_config``.

One update: ``hands_per_update`` hands are dealt (a table size drawn from ``players``,
the learner in a random seat, the other seats all one opponent kind drawn from
``opponents``: ``rummy-heuristic``, ``rummy-random`` or a pool snapshot of the network)
and played to the end; the learner's decisions with more than one legal move are its
trajectory. The reward is the hand's points for the learner / 100 plus ``win_bonus`` if
it won (minus if it lost), at the hand's end; advantages by GAE within each hand (a hand
always finishes inside its update: nothing is bootstrapped). Then ``update_epochs`` passes
of clipped PPO over those moves, with the legal masks stored with them, so the old and new
probabilities are over the same legal actions and the entropy is over legal actions only.

Before PPO, a warm start (``imitation_samples`` > 0): ``rummy-heuristic`` plays every seat
of hands at the ``players`` mix; the network is fitted to its moves (cross-entropy over
legal moves) and its value to the results (``train.imitation.pretrain``). Or, with
``init_policy``, the run starts from a finished network's weights instead (to train it
further under other settings: ``--resume`` may only continue the same run).

The network sees only the ``flat`` encoding of the mover's information set
(``rummy_env.basic.encoding``), as the ``rummy-ppo`` agent does when it plays.

A run folder holds ``config.yaml``, TensorBoard events (``losses/``, ``charts/``,
``eval/Np/`` against ``rummy-heuristic`` at each table size, ``imitation/``),
``checkpoint.pt`` (network, optimiser, the generators, the pool, counters; written
atomically every ``checkpoint_every`` updates and at the end), ``policy.pt`` (the
latest network, loadable as ``rummy-ppo:RUN/policy.pt``) and ``policy_imitation.pt``
(the network after the warm start, before PPO: to measure what PPO added). ``--resume`` continues from the
checkpoint: hands never cross an update, so the continued run makes the same updates as
one that was never stopped (tested: same seeds, same weights).
"""

from __future__ import annotations

import datetime as _dt
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional, Union

import numpy as np
import torch
import yaml

from rummy_env.agents.basic.agents import RummyHeuristicAgent, RummyRandomAgent
from rummy_env.agents.basic.network import BasicPolicyNet, load_policy, policy_payload, save_policy
from rummy_env.agents.basic.ppo import network_actions
from rummy_env.basic.encoding import encode
from rummy_env.basic.game import NUM_ACTIONS, BasicRummyState
from rummy_env.basic.rules import BasicRummyRules, load_rummy_rules
from rummy_env.core.cards import NUM_CARDS
from rummy_env.train.basic_config import RESUMABLE, BasicPPOConfig, load_config, make_config
from rummy_env.train.config import with_win_bonus
from rummy_env.agents import torch_files
from rummy_env.train.files import CheckpointError, init_weights, read_checkpoint
from rummy_env.train.lr_schedule import Line, from_checkpoint
from rummy_env.train.ppo_loss import STATS, explained_variance, minibatch_losses

CHECKPOINT_FORMAT = "rummy-env-basic-ppo-checkpoint-v1"
POINTS_SCALE = 100.0  # the reward is points / 100 (plus the win bonus)


# ----------------------------------------------------------------------------- playing hands


@dataclass
class Seat:
    """Who plays a seat: a scripted agent (``agent``) or network ``net`` of the batch's list
    (sampling unless ``greedy``); ``record``: its decisions are kept."""

    agent: Any = None
    net: int = -1
    record: bool = False


@dataclass
class Played:
    """The recorded decisions of a batch of hands (``record`` seats only) and the results."""

    obs: list = field(default_factory=list)
    mask: list = field(default_factory=list)
    act: list = field(default_factory=list)
    logp: list = field(default_factory=list)
    val: list = field(default_factory=list)
    hand: list = field(default_factory=list)  # (game, seat) of each decision, in order
    results: list = field(default_factory=list)  # per game: RummyHandResult


def play_hands(states: list[BasicRummyState], seats: list[list[Seat]], nets: list[BasicPolicyNet], rules: BasicRummyRules,
               rng: np.random.Generator, greedy: bool = False) -> Played:
    """Play every hand of ``states`` to its end; ``seats[g][s]`` says who plays seat s of
    game g. Each round every unfinished hand makes one move: scripted seats in game order,
    then each network's moves of all the hands in one forward pass (actions drawn from
    ``rng`` in game order unless ``greedy``). Network inputs are the mover's ``flat``
    information-set encoding only. Decisions with a single legal move are played, not
    recorded."""
    out = Played()
    live = [g for g, s in enumerate(states) if not s.is_over]
    while live:
        waiting: dict[int, list[tuple[int, np.ndarray, np.ndarray, bool]]] = {}
        for g in live:
            state = states[g]
            p = state.current_player
            seat = seats[g][p]
            legal = state.legal_actions()
            if len(legal) == 1:  # nothing to decide
                state.step(int(legal[0]))
                continue
            info = state.information_set(p)
            if seat.agent is not None:  # scripted: they read the mask and the information set
                mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
                mask[legal] = 1
                action = int(seat.agent.act({"action_mask": mask}, {"information_set": info, "rules": rules}))
                if seat.record:  # the imitation teacher
                    _record(out, encode(info, rules, "flat"), mask.astype(bool), action, 0.0, 0.0, g, p)
                state.step(action)
                continue
            mask = np.zeros(NUM_ACTIONS, dtype=bool)
            mask[legal] = True
            waiting.setdefault(seat.net, []).append((g, encode(info, rules, "flat"), mask, seat.record))
        for k in sorted(waiting):
            rows = waiting[k]
            x = np.stack([r[1] for r in rows])
            m = np.stack([r[2] for r in rows])
            actions, logp, values = network_actions(nets[k], x, m, greedy, rng)
            for (g, obs, mask, record), a, lp, v in zip(rows, actions, logp, values):
                if record:
                    _record(out, obs, mask, int(a), float(lp), float(v), g, states[g].current_player)
                states[g].step(int(a))
        live = [g for g in live if not states[g].is_over]
    out.results = [s.result for s in states]
    return out


def _record(out: Played, obs: np.ndarray, mask: np.ndarray, action: int, logp: float, value: float, g: int, p: int) -> None:
    out.obs.append(obs)
    out.mask.append(mask)
    out.act.append(action)
    out.logp.append(logp)
    out.val.append(value)
    out.hand.append((g, p))


def returns_and_advantages(played: Played, win_bonus: float, gamma: float, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """Per recorded decision: the return (the seat's hand reward: points / 100 plus the win
    bonus, at the hand's last decision, discounted by ``gamma``) and the GAE(``lam``)
    advantage over the recorded values. Each (game, seat)'s decisions are one trajectory
    that ends with the hand."""
    n = len(played.act)
    adv = np.zeros(n, dtype=np.float32)
    ret = np.zeros(n, dtype=np.float32)
    by_hand: dict[tuple[int, int], list[int]] = {}
    for i, key in enumerate(played.hand):
        by_hand.setdefault(key, []).append(i)
    values = np.asarray(played.val, dtype=np.float64)
    for (g, p), idx in by_hand.items():
        reward = float(with_win_bonus(np.float64(played.results[g].rewards[p] / POINTS_SCALE), win_bonus))
        next_value, gae = 0.0, 0.0
        for step, i in enumerate(reversed(idx)):
            r = reward if step == 0 else 0.0
            delta = r + gamma * next_value - values[i]
            gae = delta + gamma * lam * gae
            adv[i] = gae
            ret[i] = gae + values[i]
            next_value = values[i]
    return ret, adv


def deal(rng: np.random.Generator, sizes: np.ndarray, weights: np.ndarray, rules: BasicRummyRules
         ) -> tuple[BasicRummyState, int]:
    """A hand dealt at a table size drawn by ``weights`` (random deck and dealer) and the learner's seat."""
    n = int(rng.choice(sizes, p=weights))
    deck = rng.permutation(NUM_CARDS).tolist()
    dealer = int(rng.integers(n))
    return BasicRummyState.from_deck(deck, n, rules, dealer), int(rng.integers(n))


# ----------------------------------------------------------------------------- evaluation


def evaluate(net: BasicPolicyNet, rules: BasicRummyRules, sizes: list[int], hands: int, seed: int) -> dict[str, dict[str, float]]:
    """The network (greedy) against ``rummy-heuristic`` in every other seat: ``hands``
    hands per table size, the same deals every time (seeded by ``seed``), the network in
    seat ``hand % N``. Per table size ``"Np"``: its share of hands won, the share that
    ended without a winner (``draw_rate``), points a hand and the 95% half-width of the points."""
    out = {}
    for n in sizes:
        rng = np.random.default_rng([seed, n])
        states, seats = [], []
        heuristic = RummyHeuristicAgent(seed=seed + n)
        for h in range(hands):
            states.append(BasicRummyState.from_deck(rng.permutation(NUM_CARDS).tolist(), n, rules, n - 1))
            seats.append([Seat(net=0) if s == h % n else Seat(agent=heuristic) for s in range(n)])
        played = play_hands(states, seats, [net], rules, rng, greedy=True)
        points = np.array([r.rewards[h % n] for h, r in enumerate(played.results)], dtype=np.float64)
        won = np.array([r.winner == h % n for h, r in enumerate(played.results)], dtype=np.float64)
        half = 1.96 * points.std(ddof=1) / math.sqrt(len(points)) if len(points) > 1 else float("nan")
        drawn = np.array([r.winner is None for r in played.results], dtype=np.float64)
        out[f"{n}p"] = {"win_rate": float(won.mean()), "draw_rate": float(drawn.mean()),
                        "points_per_hand": float(points.mean()), "points_ci95": float(half)}
    return out


# ----------------------------------------------------------------------------- the trainer


class Trainer:
    """One Basic Rummy training run in ``run_dir``; build with ``Trainer.start`` or ``Trainer.resume``."""

    def __init__(self, config: BasicPPOConfig, run_dir: Path) -> None:
        self.config = c = config
        self.run_dir = Path(run_dir)
        self.rules = load_rummy_rules(c.rules)
        torch.set_num_threads(c.torch_threads)
        torch.manual_seed(c.seed)
        self.net = BasicPolicyNet(c.hidden, c.card_hidden)
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=c.lr, eps=1e-5)
        self.gen = torch.Generator().manual_seed(c.seed + 1)
        self.rng = np.random.default_rng([c.seed, 2])
        self.pool: list[dict[str, torch.Tensor]] = []
        self.update = 0
        self.decisions = 0
        self.hands = 0
        self.train_seconds = 0.0
        self.lr_line = Line(0, c.lr, c.total_updates)  # the rate's decay (train.lr_schedule)
        self._sizes = np.array(sorted(c.players), dtype=np.int64)
        w = np.array([c.players[k] for k in sorted(c.players)], dtype=np.float64)
        self._size_weights = w / w.sum()
        self._kinds = sorted(c.opponents)
        w = np.array([c.opponents[k] for k in self._kinds], dtype=np.float64)
        self._kind_weights = w / w.sum()
        self._writer = None

    # ------------------------------------------------------------------ construction

    @classmethod
    def start(cls, config: BasicPPOConfig, run_dir: Optional[Union[str, Path]] = None) -> "Trainer":
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
        trainer._writer.add_text("config", "|field|value|\n|-|-|\n" + "\n".join(
            f"|{k}|{v}|" for k, v in config.to_dict().items()), 0)
        if config.imitation_samples:
            trainer._imitate()
        elif init is not None:
            trainer._init_from(init)
        return trainer

    def _init_from(self, state: dict[str, torch.Tensor]) -> None:
        """Start from ``init_policy``'s weights (checked by ``_init_weights``), evaluated at step 0."""
        self.net.load_state_dict(state)
        self.net.eval()
        self._writer.add_text("init_policy", str(self.config.init_policy), 0)
        if self.config.eval_every:
            self._log_eval(self.evaluate(), 0)
        self._writer.flush()

    @classmethod
    def resume(cls, run_dir: Union[str, Path], overrides: Optional[dict[str, Any]] = None) -> "Trainer":
        """Continue the run in ``run_dir`` from its checkpoint; ``overrides`` may change only
        the fields of ``basic_config.RESUMABLE`` (the others would change what is learned)."""
        run_dir = Path(run_dir)
        config_file = run_dir / "config.yaml"
        if not config_file.is_file():
            raise FileNotFoundError(f"{str(run_dir)!r} is not a training run folder (no config.yaml)")
        bad = sorted(set(overrides or {}) - set(RESUMABLE))
        if bad:
            raise ValueError(f"cannot change {bad} when resuming (it would change what is learned); "
                             f"allowed: {', '.join(RESUMABLE)}")
        config = load_config(config_file, overrides)
        state = load_checkpoint(run_dir / "checkpoint.pt")
        saved = make_config(state["config"])
        if {**saved.to_dict(), **{k: getattr(config, k) for k in RESUMABLE}} != config.to_dict():
            raise CheckpointError(f"{str(run_dir / 'checkpoint.pt')!r} does not belong to the config in "
                                  f"{str(config_file)!r}")
        if overrides:
            config_file.write_text(yaml.safe_dump(config.to_dict(), sort_keys=False))
        trainer = cls(config, run_dir)
        trainer._restore(state)
        trainer._open_writer(purge_step=trainer.decisions + 1)
        return trainer

    def _open_writer(self, purge_step: Optional[int]) -> None:
        from torch.utils.tensorboard import SummaryWriter

        self._writer = SummaryWriter(str(self.run_dir), purge_step=purge_step)

    # ------------------------------------------------------------------ warm start

    def _imitate(self) -> None:
        """Fit the network to ``rummy-heuristic``'s moves and its value to the results, logged
        under ``imitation/`` at step 0 (``train.imitation.pretrain``)."""
        from rummy_env.train.imitation import pretrain

        c = self.config
        start = time.perf_counter()
        rng = np.random.default_rng([c.seed, 5])
        teacher = RummyHeuristicAgent(seed=c.seed + 5)
        obs, mask, act, ret = [], [], [], []
        while len(act) < c.imitation_samples:
            states = [deal(rng, self._sizes, self._size_weights, self.rules)[0] for _ in range(64)]
            seats = [[Seat(agent=teacher, record=True) for _ in range(s.num_players)] for s in states]
            played = play_hands(states, seats, [], self.rules, rng)
            results = played.results
            obs += played.obs
            mask += played.mask
            act += played.act
            ret += [float(with_win_bonus(np.float64(results[g].rewards[p] / POINTS_SCALE), c.win_bonus))
                    for g, p in played.hand]
        data = {"obs": np.array(obs, dtype=np.float32), "mask": np.array(mask, dtype=bool),
                "act": np.array(act, dtype=np.int64), "ret": np.array(ret, dtype=np.float32)}
        collected = time.perf_counter() - start
        stats = pretrain(self.net, data, c.imitation_epochs, c.imitation_lr, c.minibatch_size,
                         torch.Generator().manual_seed(c.seed + 6))
        seconds = time.perf_counter() - start
        self.train_seconds += seconds
        for k, v in stats.items():
            self._writer.add_scalar(f"imitation/{k}", v, 0)
        self._writer.add_scalar("imitation/samples", len(act), 0)
        self._writer.add_scalar("imitation/collect_seconds", collected, 0)
        self._writer.add_scalar("imitation/seconds", seconds, 0)
        save_policy(self.net, self.run_dir / "policy_imitation.pt", c.rules, {"imitation": stats, "samples": len(act)})
        if c.eval_every:
            self._log_eval(self.evaluate(), 0)
        self._writer.flush()

    # ------------------------------------------------------------------ one update

    def _rollout(self) -> tuple[Played, list[str]]:
        """This update's hands, played to the end: the learner's decisions and each hand's opponent kind."""
        c = self.config
        states, seats, kinds = [], [], []
        heuristic = RummyHeuristicAgent(seed=int(self.rng.integers(2**31)))
        random_agent = RummyRandomAgent(seed=int(self.rng.integers(2**31)))
        nets: list[BasicPolicyNet] = [self.net]
        pool_nets: dict[int, int] = {}
        for _ in range(c.hands_per_update):
            state, learner = deal(self.rng, self._sizes, self._size_weights, self.rules)
            kind = self._kinds[int(self.rng.choice(len(self._kinds), p=self._kind_weights))]
            if kind == "pool" and not self.pool:
                kind = "heuristic"  # nothing in the pool yet
            if kind == "pool":
                k = int(self.rng.integers(len(self.pool)))
                if k not in pool_nets:
                    snapshot = BasicPolicyNet(c.hidden, c.card_hidden)
                    snapshot.load_state_dict(self.pool[k])
                    snapshot.eval()
                    pool_nets[k] = len(nets)
                    nets.append(snapshot)
                other = Seat(net=pool_nets[k])
            else:
                other = Seat(agent=heuristic if kind == "heuristic" else random_agent)
            states.append(state)
            seats.append([Seat(net=0, record=True) if s == learner else other for s in range(state.num_players)])
            kinds.append(kind)
        self.net.eval()
        return play_hands(states, seats, nets, self.rules, self.rng), kinds

    def _learn(self, played: Played) -> dict[str, float]:
        c = self.config
        ret_np, adv_np = returns_and_advantages(played, c.win_bonus, c.gamma, c.gae_lambda)
        obs = torch.from_numpy(np.array(played.obs, dtype=np.float32))
        mask = torch.from_numpy(np.array(played.mask, dtype=bool))
        act = torch.tensor(played.act, dtype=torch.int64)
        old_logp = torch.tensor(played.logp, dtype=torch.float32)
        old_val = torch.tensor(played.val, dtype=torch.float32)
        adv_all, ret = torch.from_numpy(adv_np), torch.from_numpy(ret_np)
        m = len(act)
        self.net.train()
        stats: dict[str, list[float]] = {k: [] for k in STATS}
        for _ in range(c.update_epochs):
            order = torch.randperm(m, generator=self.gen)
            for start in range(0, m, c.minibatch_size):
                idx = order[start : start + c.minibatch_size]
                logp_all, value = self.net(obs[idx], mask[idx])
                pg_loss, v_loss, entropy, step_stats = minibatch_losses(
                    logp_all, value, mask[idx], act[idx], old_logp[idx], old_val[idx], adv_all[idx], ret[idx],
                    c.clip_coef)
                loss = pg_loss - c.ent_coef * entropy + c.vf_coef * v_loss
                self.optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.net.parameters(), c.max_grad_norm)
                self.optimizer.step()
                for k, v in step_stats.items():
                    stats[k].append(v)
        self.net.eval()
        out = {k: float(np.mean(v)) for k, v in stats.items()}
        out["explained_variance"] = explained_variance(ret_np, played.val)
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
                    for group in self.optimizer.param_groups:
                        group["lr"] = self.lr_line.at(self.update)
                played, kinds = self._rollout()
                rollout_seconds = time.perf_counter() - start
                stats = self._learn(played) if played.act else {}
                self.update += 1
                self.decisions += len(played.act)
                self.hands += len(played.results)
                seconds = time.perf_counter() - start
                self.train_seconds += seconds
                step = self.decisions
                for k, v in stats.items():
                    w.add_scalar(f"losses/{k}", v, step)
                w.add_scalar("charts/learning_rate", self.optimizer.param_groups[0]["lr"], step)
                w.add_scalar("charts/decisions_per_second", len(played.act) / seconds, step)
                w.add_scalar("charts/rollout_seconds", rollout_seconds, step)
                w.add_scalar("charts/hands", self.hands, step)
                w.add_scalar("charts/update", self.update, step)
                learner = {g: p for g, p in played.hand}
                for n in self._sizes:
                    pts = [r.rewards[learner[g]] for g, r in enumerate(played.results)
                           if len(r.penalties) == n and kinds[g] == "heuristic" and g in learner]
                    if pts:
                        w.add_scalar(f"charts/points_vs_heuristic_{n}p", float(np.mean(pts)), step)
                if c.eval_every and (self.update % c.eval_every == 0 or self.update == c.total_updates):
                    last_eval = self.evaluate()
                    self._log_eval(last_eval, step)
                if self.update % c.snapshot_every == 0:
                    self.pool.append({k: v.detach().clone() for k, v in self.net.state_dict().items()})
                    del self.pool[: -c.pool_size]
                if self.update % c.checkpoint_every == 0 or self.update == c.total_updates:
                    self.save()
                w.flush()
                bar.update(1)
                bar.set_postfix(dec_per_s=f"{len(played.act) / seconds:,.0f}",
                                **{k: f"{r['points_per_hand']:+.2f}" for k, r in last_eval.items()})
                if on_update is not None:
                    on_update(self)
        finally:
            bar.close()
        return last_eval

    def evaluate(self) -> dict[str, dict[str, float]]:
        """The network against ``rummy-heuristic`` at each table size of ``players`` (same deals every time)."""
        c = self.config
        return evaluate(self.net, self.rules, [int(n) for n in self._sizes], c.eval_hands, seed=c.seed + 100_000)

    def _log_eval(self, results: dict[str, dict[str, float]], step: int) -> None:
        for table, res in results.items():
            for k, v in res.items():
                self._writer.add_scalar(f"eval/{table}/{k}", v, step)

    # ------------------------------------------------------------------ checkpoints

    def save(self) -> None:
        """Write ``checkpoint.pt`` and ``policy.pt`` atomically."""
        extra = {"update": self.update, "decisions": self.decisions, "hands": self.hands,
                 "train_seconds": self.train_seconds}
        state = {
            "format": CHECKPOINT_FORMAT,
            "config": self.config.to_dict(),
            "policy": policy_payload(self.net, self.config.rules, extra),
            "optimizer": self.optimizer.state_dict(),
            "torch_generator": self.gen.get_state(),
            "numpy_generator": self.rng.bit_generator.state,
            "pool": self.pool,
            "counters": {"update": self.update, "decisions": self.decisions, "hands": self.hands,
                         "train_seconds": self.train_seconds, "lr_line": list(self.lr_line)},
        }
        torch_files.save(state, self.run_dir / "checkpoint.pt")
        save_policy(self.net, self.run_dir / "policy.pt", self.config.rules, extra)

    def _restore(self, state: dict[str, Any]) -> None:
        self.net.load_state_dict(state["policy"]["state_dict"])
        self.net.eval()
        self.optimizer.load_state_dict(state["optimizer"])
        self.gen.set_state(state["torch_generator"])
        self.rng.bit_generator.state = state["numpy_generator"]
        self.pool = state["pool"]
        counters = state["counters"]
        self.update, self.decisions = counters["update"], counters["decisions"]
        self.hands, self.train_seconds = counters["hands"], counters["train_seconds"]
        line = from_checkpoint(counters.get("lr_line"), self.config.lr, state["config"]["total_updates"])
        self.lr_line = line.resumed(self.update, self.config.total_updates)  # a new total: the decay goes on

    def close(self) -> None:
        """Close the TensorBoard writer."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None


def _init_weights(config: BasicPPOConfig) -> dict[str, torch.Tensor]:
    """The weights of ``config.init_policy``, checked to have the run's ``hidden`` and
    ``card_hidden`` (``train.files.init_weights``)."""
    c = config
    return init_weights(c.init_policy, load_policy,
                        lambda net: {"hidden": list(net.hidden), "card_hidden": net.card_hidden},
                        {"hidden": list(c.hidden), "card_hidden": c.card_hidden})


def load_checkpoint(path: Union[str, Path]) -> dict[str, Any]:
    """A Basic Rummy training checkpoint's contents; ``CheckpointError`` naming the file if unusable."""
    needed = ("config", "policy", "optimizer", "torch_generator", "numpy_generator", "pool", "counters")
    return read_checkpoint(path, CHECKPOINT_FORMAT, needed)

