"""The ``ppo`` agent's moves from its network, one game or many at once: loading a
policy file once per process (``_load``, ``Networks``) and ``policy_actions``.

Why its own floor: the agent's ``act`` (``rummy_env.agents.gin.ppo``) and its array
policy (``rummy_env.agents.gin.policies.PPOPolicy``: tournaments) both decide through
``policy_actions``, and the agent hands out that policy, so the decision sits below
both. torch is imported inside the functions that run a network (and the network module
only when a file is loaded), so importing this module stays light.

The network runs in float32, whose rounding of a row depends on the batch it is in (about
1e-5): enough to reorder actions of equal log-probability, such as the discards of two
cards with the same features. So a decision that close (the best two actions within
``CLOSE``, or a sample's draw within ``CLOSE`` of a cumulative probability) is taken again
in float64 (rounding ~1e-15), where actions within ``TIE`` of the best count as equal and
the lowest id of them is played. A sample is the first action whose cumulative
probability exceeds a counter-based draw (``rummy_env.agents.draws``) of the agent's key
and decision index.
"""

from __future__ import annotations

import copy
import functools
from typing import Any, Optional

import numpy as np

from rummy_env.agents import draws

CLOSE = 1e-3  # float32 decisions this close are taken again in float64 (float32 rounding is ~1e-5)
TIE = 1e-9  # float64 log-probabilities this close count as equal (float64 rounding is ~1e-15)


@functools.lru_cache(maxsize=8)
def _load(path: str, mtime_ns: int) -> tuple[Any, dict[str, Any]]:
    """Load a policy once per process (a tournament makes an agent per game)."""
    from rummy_env.agents.gin.network import load_policy

    return load_policy(path)


class Networks:
    """A policy network as trained (float32) and its float64 copy, made when a decision is
    first too close to call in float32 (``policy_actions``)."""

    def __init__(self, net: Any) -> None:
        self.net = net
        self._double: Any = None

    def double(self) -> Any:
        if self._double is None:
            self._double = copy.deepcopy(self.net).double().eval()
        return self._double


@functools.lru_cache(maxsize=8)
def _networks(path: str, mtime_ns: int) -> Networks:
    """The ``Networks`` of a policy file, once per process (shared by its agents)."""
    return Networks(_load(path, mtime_ns)[0])


def policy_actions(nets: Networks, inputs: np.ndarray, mask: np.ndarray, greedy: bool, keys: np.ndarray,
                   decisions: np.ndarray) -> np.ndarray:
    """The ``ppo`` agent's actions for (n, obs) ``inputs`` and bool (n, 108) legal ``mask``:
    the most probable legal action with ``greedy``, else a sample by the counter-based draws
    of ``keys``/``decisions``; decisions too close to call in float32 are taken in float64
    (the module docstring). ``act`` (n = 1) and the array policy both call it."""
    x = np.ascontiguousarray(inputs, dtype=np.float32)
    u = None if greedy else draws.uniforms(keys, decisions)
    action, close = _decide(_log_probs(nets.net, x, mask), mask, u, CLOSE)
    if close.any():
        rows = np.flatnonzero(close)
        exact = _log_probs(nets.double(), x[rows].astype(np.float64), mask[rows])
        action[rows], _ = _decide(exact, mask[rows], None if u is None else u[rows], 0.0)
    return action


def _log_probs(net: Any, inputs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The network's log-probabilities. Fewer than ``MANY_ROWS`` rows (one game at a time,
    or a small batch) run on one torch thread: each of the network's many small operations
    waits for every thread, and on a small machine that wait costs far more than a second
    thread gives (docs/benchmarks.md, "Tournament throughput", has the figures). Larger
    batches, whose matrix products are worth splitting, run on the caller's torch threads
    (many hands at once), except in a worker
    process of a tournament (``multiprocessing``), where the other workers hold the other
    cores. The caller's thread count is restored after."""
    import multiprocessing

    import torch

    threads = torch.get_num_threads()
    use = threads if len(inputs) >= MANY_ROWS and multiprocessing.parent_process() is None else 1
    if use != threads:
        torch.set_num_threads(use)
    try:
        with torch.no_grad():
            logp, _ = net(torch.from_numpy(inputs), torch.from_numpy(mask))
    finally:
        if use != threads:
            torch.set_num_threads(threads)
    return logp.numpy().astype(np.float64)


MANY_ROWS = 512  # rows from which ``_log_probs`` uses the caller's torch threads


def _decide(logp: np.ndarray, mask: np.ndarray, u: Optional[np.ndarray],
            margin: float) -> tuple[np.ndarray, np.ndarray]:
    """The actions from log-probabilities (greedy when ``u`` is None, else the first action
    whose cumulative probability exceeds ``u`` times the total) and which rows were closer
    than ``margin`` to another choice."""
    if u is None:
        x = np.where(mask, logp, -np.inf)
        best = x.max(axis=1)
        action = np.argmax(x >= (best - TIE)[:, None], axis=1)
        x[np.arange(len(x)), action] = -np.inf
        return action.astype(np.int64), best - x.max(axis=1) < margin
    cumulative = np.cumsum(np.where(mask, np.exp(logp), 0.0), axis=1)  # flat where illegal: never first to exceed
    threshold = u * cumulative[:, -1]
    action = np.argmax(cumulative > threshold[:, None], axis=1)
    distance = np.where(mask, np.abs(cumulative - threshold[:, None]), np.inf).min(axis=1)
    return action.astype(np.int64), distance < margin * cumulative[:, -1]
