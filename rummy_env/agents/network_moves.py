"""How a policy network picks its moves, for every game's network: one function shared by
the agents that play a trained network and by training, so both pick moves the same way.

torch is imported only when the function runs: importing this module (as the agents'
modules do) never needs it.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from rummy_env.core.masks import mask_id_rows


def network_actions(net: Any, inputs: np.ndarray, mask: np.ndarray, greedy: bool,
                    rng: Optional[np.random.Generator] = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The moves of ``net`` (``net(obs, mask) -> (log-probabilities, values)``) for (n, inputs)
    ``inputs`` and bool (n, actions) legal ``mask``: the most probable legal action
    (``greedy``), else a sample drawn with ``rng``; returns the actions, their
    log-probabilities and the values. Runs on the caller's torch threads.

    Both read each row's legal entries only (a few dozen of Rommé's 5,776 actions), with the
    moves the whole rows give: the first most probable legal action, and the draw's action
    found by the same running sums (illegal entries add nothing to them)."""
    import torch

    with torch.no_grad():
        logp_t, value_t = net(torch.from_numpy(np.ascontiguousarray(inputs, dtype=np.float32)),
                              torch.from_numpy(mask))
    logp = logp_t.numpy()
    rows = np.arange(len(logp))
    ids = mask_id_rows(mask)  # (n, most legal) the legal ids of each row in order, -1 after them
    legal = ids >= 0
    if not legal[:, 0].all():
        raise ValueError(f"row {int(np.argmin(legal[:, 0]))} of the mask has no legal action: no move to choose")
    at = np.maximum(ids, 0)
    if greedy:
        pick = np.argmax(np.where(legal, logp[rows[:, None], at], -np.inf), axis=1)
        action = ids[rows, pick]
    else:
        assert rng is not None, "sampling needs a generator"
        # the legal entries' running sums, each the very sum a running sum over the whole row
        # makes there (its illegal entries add 0.0): the same draw lands on the same action
        cumulative = np.cumsum(np.where(legal, np.exp(logp[rows[:, None], at].astype(np.float64)), 0.0), axis=1)
        u = rng.random(len(inputs)) * cumulative[:, -1]
        hit = cumulative > u[:, None]
        action = ids[rows, np.argmax(hit, axis=1)]
        # a row whose draw lands past its last legal entry (float rounding): as a running sum over
        # the whole row finds no entry, action 0 if it is legal, else its last legal action
        missed = ~hit.any(axis=1)
        if missed.any():
            last = ids[rows, legal.sum(axis=1) - 1]
            action[missed] = np.where(mask[missed, 0], 0, last[missed])
    return action.astype(np.int64), logp[rows, action], value_t.numpy()
