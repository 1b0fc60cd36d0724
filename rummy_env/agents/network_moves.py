"""How a policy network picks its moves, for every game's network: one function shared by
the agents that play a trained network and by training, so both pick moves the same way.

torch is imported only when the function runs: importing this module (as the agents'
modules do) never needs it.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np


def network_actions(net: Any, inputs: np.ndarray, mask: np.ndarray, greedy: bool,
                    rng: Optional[np.random.Generator] = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The moves of ``net`` (``net(obs, mask) -> (log-probabilities, values)``) for (n, inputs)
    ``inputs`` and bool (n, actions) legal ``mask``: the most probable legal action
    (``greedy``), else a sample drawn with ``rng``; returns the actions, their
    log-probabilities and the values. Runs on the caller's torch threads."""
    import torch

    with torch.no_grad():
        logp_t, value_t = net(torch.from_numpy(np.ascontiguousarray(inputs, dtype=np.float32)),
                              torch.from_numpy(mask))
    logp = logp_t.numpy()
    if greedy:
        action = np.argmax(np.where(mask, logp, -np.inf), axis=1)
    else:
        assert rng is not None, "sampling needs a generator"
        cumulative = np.cumsum(np.where(mask, np.exp(logp.astype(np.float64)), 0.0), axis=1)
        u = rng.random(len(inputs)) * cumulative[:, -1]
        action = np.minimum(np.argmax(cumulative > u[:, None], axis=1), mask.shape[1] - 1)
        # a row whose draw lands past the last legal entry (float rounding): its last legal action
        bad = ~mask[np.arange(len(action)), action]
        if bad.any():
            action[bad] = [int(np.flatnonzero(m)[-1]) for m in mask[bad]]
    return action.astype(np.int64), logp[np.arange(len(action)), action], value_t.numpy()
