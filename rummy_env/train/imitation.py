"""A warm start for PPO, for every game: imitate a scripted teacher before learning by reinforcement.

From scratch, PPO spends its first millions of steps learning what any scripted player
knows (discard the card that leaves the least deadwood, knock when you may). Imitation
copies the teacher's moves instead: the game's training adapter collects teacher-vs-teacher
hands (``TrainingAdapter.imitation_data``: Gin Rummy's on its vector engine, the others'
in-process, ``rummy_env.train.hands.teacher_moves``), recording for every move the mover's
input, legal mask, the teacher's action and the mover's result of the hand; ``pretrain``
fits the policy to the actions (cross-entropy over legal moves) and the value to the
results, so PPO then starts from the teacher's strength with a value function that
already fits it. Enabled by ``imitation_teacher`` in the training config.
"""

from __future__ import annotations

import numpy as np
import torch


def pretrain(net: torch.nn.Module, data: dict[str, np.ndarray], epochs: int, lr: float, batch_size: int,
             generator: torch.Generator) -> dict[str, float]:
    """Fit ``net`` to the teacher's moves and results (any network ``net(obs, mask) ->
    (log-probabilities, values)`` over its ``num_actions``); returns the last epoch's losses and
    the share of moves where the policy's most probable action is the teacher's."""
    obs = torch.from_numpy(data["obs"])
    mask = torch.from_numpy(data["mask"])
    act = torch.from_numpy(data["act"])
    ret = torch.from_numpy(data["ret"])
    if mask.shape[1] != net.num_actions or not bool(mask[torch.arange(len(act)), act].all()):
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
