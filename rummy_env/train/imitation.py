"""A warm start for PPO: imitate a scripted teacher before learning by reinforcement.

From scratch, PPO spends its first millions of steps learning what any scripted player
knows (discard the card that leaves the least deadwood, knock when you may). Imitation
copies the teacher's moves instead: ``collect`` plays teacher-vs-teacher hands on the
vector engine and records, for every move, the mover's observation, legal mask, the
teacher's action and the mover's result of the hand; ``pretrain`` fits the policy to
the actions (cross-entropy over legal moves) and the value to the results, so PPO then
starts from the teacher's strength with a value function that already fits it.
Enabled by ``imitation_teacher`` in the training config (``configs/ppo.yaml``).
"""

from __future__ import annotations

from typing import Callable, Optional

import numpy as np
import torch

from rummy_env.agents.gin.heuristic_vector import heuristic_actions
from rummy_env.agents.gin.simple import simple_actions
from rummy_env.gin.game import NUM_ACTIONS
from rummy_env.gin.vector import VectorGinRummy
from rummy_env.train.config import with_win_bonus
from rummy_env.agents.gin.network import PolicyNet, vector_inputs

TEACHERS = ("simple", "heuristic")


def collect(teacher: str, rules: str, reward: str, samples: int, num_envs: int = 256, seed: int = 0,
            progress: Optional[Callable[[int], None]] = None, advice: bool = False,
            win_bonus: float = 0.0) -> dict[str, np.ndarray]:
    """At least ``samples`` teacher moves from finished hands (obs, mask, action, result);
    with ``advice`` each observation is followed by the mover's advice features; results
    include ``win_bonus`` (``train.config.with_win_bonus``)."""
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


def pretrain(net: PolicyNet, data: dict[str, np.ndarray], epochs: int, lr: float, batch_size: int,
             generator: torch.Generator) -> dict[str, float]:
    """Fit ``net`` to the teacher's moves and results (any network ``net(obs, mask) ->
    (log-probabilities, values)`` over its ``num_actions``: Basic Rummy's warm start uses it
    too, ``train.basic_ppo``); returns the last epoch's losses and
    the share of moves where the policy's most probable action is the teacher's."""
    obs = torch.from_numpy(data["obs"])
    mask = torch.from_numpy(data["mask"])
    act = torch.from_numpy(data["act"])
    ret = torch.from_numpy(data["ret"])
    if mask.shape[1] != getattr(net, "num_actions", NUM_ACTIONS) or not bool(mask[torch.arange(len(act)), act].all()):
        raise ValueError("imitation data holds actions outside their legal masks")
    optimizer = torch.optim.Adam(net.parameters(), lr=lr)
    net.train()
    stats: dict[str, float] = {}
    for _ in range(epochs):
        order = torch.randperm(len(act), generator=generator)
        totals = {"policy_loss": 0.0, "value_loss": 0.0, "agreement": 0.0}
        for start in range(0, len(act), batch_size):
            idx = order[start : start + batch_size]
            logp, value = net(obs[idx], mask[idx])
            policy_loss = -logp.gather(1, act[idx, None]).mean()
            value_loss = 0.5 * ((value - ret[idx]) ** 2).mean()
            optimizer.zero_grad()
            (policy_loss + value_loss).backward()
            optimizer.step()
            with torch.no_grad():
                totals["policy_loss"] += float(policy_loss) * len(idx)
                totals["value_loss"] += float(value_loss) * len(idx)
                totals["agreement"] += float((logp.argmax(1) == act[idx]).float().sum())
        stats = {k: v / len(act) for k, v in totals.items()}
    net.eval()
    return stats
