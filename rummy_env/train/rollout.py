"""Gin Rummy's rollout worker: a vector engine of games, its opponents and the policy's forward pass.

Why a class of its own: the same worker plays the rollouts of ``rummy train --game gin`` in the
trainer's process (backend ``local``, ``rummy_env.train.workers``) and inside a Ray actor
(backend ``ray``, ``rummy_env.train.ray_rollouts``); the learner (``rummy_env.train.ppo.Trainer``)
only concatenates the batches its workers return and learns from them. Gin Rummy's
training adapter (``rummy_env.train.games.gin``) makes it.

A worker owns ``num_games`` of the run's ``num_envs`` games (``split_games``), its own
deals, opponent draws and sampling generator, seeded from the config's seed and its index
(``worker_seeds``). Worker 0 uses the seeds the single-process trainer always used, and
with one in-process worker it samples from the learner's own torch generator: that run
is the single-process trainer's, draw for draw. Each worker computes the advantages of
its own games (a game never spans two workers), so a batch is the same whichever
process played it.
"""

from __future__ import annotations

import time
from typing import Any, Optional

import numpy as np
import torch

from rummy_env.agents.gin.heuristic_features import advice
from rummy_env.agents.gin.heuristic_vector import Analysis, Positions, actions_from, analyse, estimate_knocks, positions_of
from rummy_env.agents.gin.network import PolicyNet, vector_inputs
from rummy_env.agents.gin.simple_vector import simple_actions
from rummy_env.core.cards import NUM_CARDS
from rummy_env.gin.vector import VectorGinRummy
from rummy_env.train.config import PPOConfig
from rummy_env.train.rewards import with_win_bonus
from rummy_env.train.critic import OracleCritic, privileged
from rummy_env.train.opponents import random_actions
from rummy_env.train.policy_stack import PolicyStack

# Opponent kinds a learner game can be assigned at each deal (weights in ``opponents``):
#   self      - the current policy plays both seats; both seats' moves are training data
#               (from scratch, pure self-play drifts to passive play: both take every
#               discard and hands run to max_turns; the defaults learn mostly from simple)
#   pool      - a past snapshot of the policy (frozen), chosen uniformly from the pool
#   random / simple / heuristic - the scripted Gin agents (``rummy_env.agents.gin``) as array
#   operations (heuristic: by default its turn-based knock rule, ``heuristic:knock=turn``;
#   ``heuristic_vector``; ``heuristic_knock: estimate`` gives it the agent's default knock estimate)
OPPONENT_KINDS = ("self", "pool", "random", "simple", "heuristic")
SELF, POOL, HEURISTIC = (OPPONENT_KINDS.index(k) for k in ("self", "pool", "heuristic"))


def worker_seeds(seed: int, index: int) -> tuple[int, int, int]:
    """The seeds of worker ``index``'s deals, its numpy generator (opponent draws, scripted
    opponents' noise) and its own torch sampling generator. Worker 0 keeps the seeds of the
    single-process trainer (``seed + 3``, ``seed + 2``); the others are spawned from
    ``(seed, index)``, so no two workers play the same deals."""
    spawned = np.random.SeedSequence([seed, index]).generate_state(3, dtype=np.uint32)
    sampling = int(spawned[2])
    if index == 0:
        return seed + 3, seed + 2, sampling
    return int(spawned[0]), int(spawned[1]), sampling


def state_of_v1(engine_class: str, engine: Any, old: dict[str, Any]) -> dict[str, Any]:
    """A worker of a format-v1 checkpoint (rummy-env 0.2 pickled its engine and generator)
    as ``RolloutWorker.state`` gives it: ``engine`` the attributes of its engine, of class
    ``engine_class`` (a dotted name), as the pickle held them (``VectorGinRummy.__getstate__``),
    read as data by ``rummy convert-policy`` (``rummy_env.train.convert``), the snapshot taken
    from them (``VectorGinRummy.snapshot_of``); ``old`` the worker's other entries.
    ``ValueError`` when that is not a Gin engine's, or naming what it lacks."""
    gin = f"{VectorGinRummy.__module__}.{VectorGinRummy.__qualname__}"
    if engine_class != gin or not isinstance(engine, dict):
        raise ValueError("its games are not the Gin engines a 0.2 checkpoint holds")
    engine_rng = engine.get("_rng")
    missing = [name for name in ("num_envs", *VectorGinRummy._STATE) if name not in engine]
    if missing or not isinstance(engine_rng, np.random.Generator):
        raise ValueError(f"its engines lack {', '.join(missing) or 'their generator'}")
    rng = old["rng"]
    return {"env": VectorGinRummy.snapshot_of(engine),
            "rng": rng.bit_generator.state if isinstance(rng, np.random.Generator) else rng,
            "kind": old["kind"], "pool_index": old["pool_index"], "learner_seat": old["learner_seat"],
            "generator": old.get("generator")}


class RolloutWorker:
    """Plays ``config.rollout_steps`` vector steps of its games per ``rollout`` call.

    ``net`` and ``critic`` (None: the policy's own value head) are the modules whose moves
    and values it records; in-process they are the learner's own, in an actor a copy whose
    weights the driver sends each update (``load_weights``). ``generator``: the torch
    generator to sample from (the learner's, for the single in-process worker); None: its
    own, seeded by ``worker_seeds``.
    """

    def __init__(self, config: PPOConfig, index: int, num_games: int, net: PolicyNet,
                 critic: Optional[OracleCritic], generator: Optional[torch.Generator] = None) -> None:
        self.config = c = config
        self.index = index
        self.net, self.critic = net, critic
        env_seed, rng_seed, sampling_seed = worker_seeds(c.seed, index)
        self.own_generator = generator is None
        self.gen = torch.Generator().manual_seed(sampling_seed) if generator is None else generator
        self.rng = np.random.default_rng(rng_seed)
        self.env = VectorGinRummy(num_games, rules=c.rules, encoding="flat", reward=c.reward, seed=env_seed)
        names = list(c.opponents)
        weights = np.array([float(c.opponents[k]) for k in names])
        self._kinds = np.array([OPPONENT_KINDS.index(k) for k in names])
        self._weights = weights / weights.sum()
        self.pool_count = 0
        self._pool_stack: Optional[PolicyStack] = None
        self.env.reset()
        self.kind = np.zeros(num_games, dtype=np.int64)
        self.pool_index = np.zeros(num_games, dtype=np.int64)
        self.learner_seat = np.zeros(num_games, dtype=np.int64)
        self._assign(np.arange(num_games))

    # ------------------------------------------------------------------ what the driver sends

    def load_weights(self, net_state: dict[str, torch.Tensor], critic_state: Optional[dict[str, torch.Tensor]]) -> None:
        """The learner's current weights (an actor's copy; in-process workers share the modules)."""
        self.net.load_state_dict(net_state)
        if self.critic is not None and critic_state is not None:
            self.critic.load_state_dict(critic_state)

    def set_pool(self, pool: list[dict[str, torch.Tensor]]) -> None:
        """The opponent pool's snapshots, evaluated together (``train.policy_stack``)."""
        self.pool_count = len(pool)
        self._pool_stack = PolicyStack(pool, self.config.advice) if pool else None

    def reassign(self) -> None:
        """Draw every game's opponent and seat anew (as at a deal); benchmarks use it once the pool is full."""
        self._assign(np.arange(self.env.num_envs))

    # ------------------------------------------------------------------ state (checkpoints, replacing a dead actor)

    def state(self) -> dict[str, Any]:
        """Everything that decides its next rollouts besides the weights and the pool, as
        plain data (arrays, numbers, dicts): checkpoints keep it without pickling objects."""
        return {"env": self.env.snapshot(), "rng": self.rng.bit_generator.state, "kind": self.kind.copy(),
                "pool_index": self.pool_index.copy(), "learner_seat": self.learner_seat.copy(),
                "generator": self.gen.get_state() if self.own_generator else None}

    def restore(self, state: dict[str, Any]) -> None:
        """Continue from ``state()``'s output. A state without a generator (a checkpoint of a
        single in-process worker) leaves this worker's own generator as seeded."""
        held = state["env"].get("num_envs") if isinstance(state.get("env"), dict) else None
        if held != self.env.num_envs:
            raise ValueError(f"rollout worker {self.index} plays {self.env.num_envs} games; the saved state holds {held}")
        self.env.restore(state["env"])
        rng = np.random.default_rng()
        rng.bit_generator.state = state["rng"]
        self.rng = rng
        for name in ("kind", "pool_index", "learner_seat"):
            setattr(self, name, np.array(state[name], dtype=np.int64))
        if self.own_generator and state.get("generator") is not None:
            self.gen.set_state(state["generator"])

    # ------------------------------------------------------------------ self-play

    def _assign(self, rows: np.ndarray) -> None:
        """Draw an opponent kind, pool member and learner seat for newly dealt games."""
        if rows.size == 0:
            return
        kinds = self._kinds[self.rng.choice(len(self._kinds), size=rows.size, p=self._weights)]
        if not self.pool_count:  # no snapshot yet: the current policy stands in
            kinds = np.where(kinds == POOL, SELF, kinds)
        self.kind[rows] = kinds
        self.pool_index[rows] = self.rng.integers(0, max(self.pool_count, 1), size=rows.size)
        self.learner_seat[rows] = self.rng.integers(0, 2, size=rows.size)

    def _sample(self, logp: torch.Tensor) -> torch.Tensor:
        """Gumbel-max sampling (faster than ``multinomial`` here); masked actions never win."""
        u = torch.rand(logp.shape, generator=self.gen).clamp_(min=1e-12)
        return torch.argmax(logp - torch.log(-torch.log(u)), dim=-1)

    # ------------------------------------------------------------------ one rollout

    def rollout(self) -> dict[str, Any]:
        """``rollout_steps`` vector steps: the learner's moves with their masks, log-probabilities,
        values, advantages and returns, and the hands' results (``episodes``, ``returns``, ``outcomes``)."""
        start = time.perf_counter()
        episodes = 0
        c, env = self.config, self.env
        T, n = c.rollout_steps, env.num_envs
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
                episodes += done.size
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
            "episodes": episodes,
            "steps": T * n,
            "seconds": time.perf_counter() - start,
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
