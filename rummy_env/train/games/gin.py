"""Gin Rummy's training adapter: its network, its vector engine as the rollout source, its warm start.

Gin Rummy has a vector engine (``VectorGinRummy``: ``num_envs`` games in lockstep arrays),
so its rollouts are ``rummy_env.train.rollout.RolloutWorker``'s (``num_envs`` x
``rollout_steps`` env steps an update, the scripted opponents as array operations, the
oracle critic, advice features) rather than the in-process hands every other game uses;
the trainer itself (``rummy_env.train.ppo``) is the same. Named by the game's
``training_module``; the generic trainer never imports this module by name.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, NoReturn, Optional, Union

import numpy as np

from rummy_env.agents.gin.heuristic_vector import heuristic_actions
from rummy_env.agents.gin.simple_vector import simple_actions
from rummy_env.gin.vector import OUTCOMES, VectorGinRummy
from rummy_env.train.adapter import TrainingAdapter
from rummy_env.train.rewards import with_win_bonus


class GinAdapter(TrainingAdapter):
    """Gin Rummy's network (``rummy_env.agents.gin.network.PolicyNet``) and vector rollouts."""

    outcomes = OUTCOMES

    def make_net(self, config: Any) -> Any:
        from rummy_env.agents.gin.network import PolicyNet

        return PolicyNet(config.hidden, config.card_hidden, advice=config.advice)

    def make_critic(self, config: Any, net: Any) -> Optional[Any]:
        from rummy_env.train.critic import OracleCritic

        return OracleCritic(net.obs_size, config.critic_hidden) if config.critic == "oracle" else None

    def net_shape(self, net: Any) -> dict[str, Any]:
        return {"hidden": list(net.hidden), "card_hidden": net.card_hidden, "advice": net.advice}

    def wanted_shape(self, config: Any) -> dict[str, Any]:
        return {"hidden": list(config.hidden), "card_hidden": config.card_hidden, "advice": config.advice}

    def load_policy(self, path: Union[str, Path]) -> tuple[Any, dict[str, Any]]:
        from rummy_env.agents.gin.network import load_policy

        return load_policy(path)

    def policy_payload(self, net: Any, rules: Optional[str], extra: Optional[dict[str, Any]] = None) -> dict[str, Any]:
        from rummy_env.agents.gin.network import policy_payload

        return policy_payload(net, rules, extra)

    def inputs(self, net: Any, info: Any, rules: Any, legal: list[int]) -> np.ndarray:
        """The ``ppo`` agent's input: the flat encoding, then (advice networks) the advice features."""
        from rummy_env.agents.gin.ppo import PPOAgent

        mask = np.zeros(self.game.num_actions, dtype=np.int8)
        mask[legal] = 1
        return PPOAgent.from_net(net).inputs({"action_mask": mask}, {"information_set": info, "rules": rules})

    def work(self, config: Any) -> int:
        return config.num_envs

    def make_worker(self, config: Any, index: int, share: int, net: Any, critic: Optional[Any],
                    generator: Optional[Any]) -> Any:
        from rummy_env.train.rollout import RolloutWorker

        return RolloutWorker(config, index, share, net, critic, generator)

    def imitation_data(self, config: Any, progress: Optional[Callable[[int], None]] = None,
                       folder: Optional[Path] = None) -> dict[str, np.ndarray]:
        """Gin Rummy's teachers (``simple``, ``heuristic``) have array versions: their hands are
        played on the vector engine in seconds, so nothing is kept in ``folder``."""
        c = config
        return collect(c.imitation_teacher, c.rules, c.reward, c.imitation_samples, seed=c.seed + 5, advice=c.advice,
                       win_bonus=c.win_bonus, progress=progress)

    def opponent_kinds(self, config: Any) -> tuple[str, ...]:
        from rummy_env.train.rollout import OPPONENT_KINDS

        return OPPONENT_KINDS

    def check(self, config: Any, fail: Callable[[str, Any, str], NoReturn]) -> None:
        from rummy_env.train.rollout import OPPONENT_KINDS

        c = config
        self.check_targets(c, fail)
        if set(c.table_sizes) != {2}:
            fail("players", c.players, "Gin Rummy is played by 2: leave players out or set {2: 1}")
        unknown = sorted(set(c.opponents) - set(OPPONENT_KINDS))
        if unknown:
            fail("opponents", dict(c.opponents), f"unknown kind(s) {unknown}; kinds: {', '.join(OPPONENT_KINDS)}")
        if c.imitation_teacher not in (None, *TEACHERS):
            fail("imitation_teacher", c.imitation_teacher, "choose simple, heuristic or null (no warm start)")
        if c.imitation_file is not None and c.advice:
            fail("imitation_file", c.imitation_file, "with advice: true the network also reads the heuristic's advice "
                 "features, which an exported file does not hold: set advice: false")
        if c.rollout_workers > c.num_envs:
            fail("rollout_workers", c.rollout_workers, f"must be at most num_envs ({c.num_envs}): each worker plays "
                 "its share of the games")
        for spec in c.eval_opponents:
            try:
                self.check_spec(spec)
            except (ValueError, TypeError) as exc:
                fail("eval_opponents", spec, str(exc))


ADAPTER = GinAdapter


TEACHERS = ("simple", "heuristic")


def collect(teacher: str, rules: str, reward: str, samples: int, num_envs: int = 256, seed: int = 0,
            progress: Optional[Callable[[int], None]] = None, advice: bool = False,
            win_bonus: float = 0.0) -> dict[str, np.ndarray]:
    """At least ``samples`` teacher moves from finished hands (obs, mask, action, result);
    with ``advice`` each observation is followed by the mover's advice features; results
    include ``win_bonus`` (``train.config.with_win_bonus``)."""
    from rummy_env.agents.gin.network import vector_inputs

    if teacher not in TEACHERS:
        raise ValueError(f"imitation teacher must be one of {TEACHERS}, got {teacher!r}")
    env = VectorGinRummy(num_envs, rules=rules, encoding="flat", reward=reward, seed=seed)
    r = env.reset()
    rng = np.random.default_rng(seed + 1)
    obs_out, mask_out, act_out, ret_out = [], [], [], []
    pending: list[list[tuple[np.ndarray, np.ndarray, int, int]]] = [[] for _ in range(num_envs)]
    done_count = 0
    rows = np.arange(num_envs)
    while done_count < samples:
        mask = r.action_mask
        observation = vector_inputs(r.observation, env, rows, advice)
        actions = (simple_actions if teacher == "simple" else heuristic_actions)(env, rows, rng)
        for g in rows:
            pending[g].append((observation[g], mask[g].astype(bool), int(actions[g]), int(r.player[g])))
        r = env.step(actions)
        for g in np.flatnonzero(r.terminated):
            for obs, m, a, seat in pending[g]:
                obs_out.append(obs)
                mask_out.append(m)
                act_out.append(a)
                ret_out.append(with_win_bonus(r.rewards[g, seat], win_bonus))
            done_count += len(pending[g])
            pending[g] = []
        if progress is not None:
            progress(done_count)
    return {"obs": np.array(obs_out, dtype=np.float32), "mask": np.array(mask_out, dtype=bool),
            "act": np.array(act_out, dtype=np.int64), "ret": np.array(ret_out, dtype=np.float32)}
