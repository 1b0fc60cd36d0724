"""``ppo``: a policy network trained by ``rummy train`` (masked PPO with self-play).

``make("ppo")`` loads the policy shipped with the package (``rummy_env/agents/gin/data/ppo_gin.pt``: PPO
from ``configs/ppo.yaml``, its knock decisions fine-tuned by ``rummy_env.train.knock_labels``, then PPO
again against the default heuristic, ``configs/ppo_estimate.yaml``; how it was made in
``rummy_env/agents/gin/data/README.md``, its results in docs/agents.md);
``make("ppo:path=runs/X/policy.pt")`` (or ``ppo:runs/X/policy.pt``) loads another policy
file or training checkpoint, such as the PPO-only ``rummy_env/agents/gin/data/ppo_gin_base.pt``.

The network reads the ``flat`` encoding of the player's information set, re-encoded
here from ``info`` (so it works whatever encoding the env was built with) and without
match scores: training plays single hands. Networks trained with ``advice`` also get
the heuristic's evaluation of the position (``rummy_env.agents.gin.heuristic_features``). It plays the
most probable legal action (``greedy=true``, the default) or samples from its
distribution (``greedy=false``, seeded). torch is imported only when a ``ppo`` agent is
made: the env never needs it.

One game at a time (``act``) and many at once (``batch_policy``: tournaments) the moves
are the same, because both go through ``policy_actions``. The network runs in float32,
whose rounding of a row depends on the batch it is in (about 1e-5): enough to reorder
actions of equal log-probability, such as the discards of two cards with the same
features. So a decision that close (the best two actions within ``CLOSE``, or a sample's
draw within ``CLOSE`` of a cumulative probability) is taken again in float64 (rounding
~1e-15), where actions within ``TIE`` of the best count as equal and the lowest id of
them is played. A sample is the first action whose cumulative probability exceeds a
counter-based draw (``rummy_env.agents.draws``) of the agent's key and decision index.
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any, Optional, Union

import numpy as np

from rummy_env.agents import draws
from rummy_env.agents.base import Agent, game_input, legal_actions
from rummy_env.agents.gin.heuristic_features import advice_of_infoset
from rummy_env.core.game import BatchPolicy
from rummy_env.gin.encoding import encode
from rummy_env.gin.game import NUM_ACTIONS

SHIPPED = Path(__file__).resolve().parent / "data" / "ppo_gin.pt"
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
    waits for every thread, and on the shared 2-core machine that wait cost far more than a
    second thread gave (measured 2026-12-03, tournaments of ppo against itself one game at
    a time: 5 hands/s with torch's 2 threads, 70 with 1). Larger batches, whose matrix
    products are worth splitting, run on the caller's torch threads (many hands at once:
    1,850 hands/s of play with 2 threads against 1,430 with 1, same run), except in a worker
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


class PPOAgent(Agent):
    name = "ppo"
    game = "gin"
    extra = "train"
    short_option = "path"  # ``ppo:PATH`` means ``ppo:path=PATH`` (``agents.registry``)
    file_options = ("path",)

    def __init__(self, seed: Optional[int] = None, path: Optional[Union[str, Path]] = None, greedy: bool = True) -> None:
        super().__init__(seed)
        try:
            import torch
        except ImportError:
            raise ImportError(
                "the ppo agent needs torch: pip install 'rummy-env[train]' (CPU build: pip install torch==2.13.0)"
            ) from None
        self._torch = torch
        self.path = Path(path) if path is not None else SHIPPED
        where = (str(self.path.resolve()), self.path.stat().st_mtime_ns if self.path.is_file() else 0)
        self.net, meta = _load(*where)
        self.nets = _networks(*where)
        self.trained_rules = meta.get("rules")
        if not isinstance(greedy, bool):
            raise ValueError(f"ppo option greedy must be true or false, got {greedy!r}")
        self.greedy = greedy

    @classmethod
    def from_net(cls, net: Any, greedy: bool = True) -> "PPOAgent":
        """An agent around a network in memory (training's evaluations), not a file."""
        import torch

        agent = cls.__new__(cls)
        Agent.__init__(agent, None)
        agent._torch, agent.net, agent.path, agent.trained_rules, agent.greedy = torch, net, None, None, greedy
        agent.nets = Networks(net)  # its float64 copy is made from the network as it is then
        return agent

    def inputs(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> np.ndarray:
        """The network's input for this decision: the ``flat`` encoding of the information
        set, then (advice networks) the advice features; what training feeds it too."""
        infoset, rules = game_input(self, observation, info)
        features = encode(infoset, rules, "flat")
        if self.net.advice:
            features = np.concatenate([features, advice_of_infoset(infoset, rules, legal_actions(observation))])
        return features

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        legal = legal_actions(observation)
        inputs = self.inputs(observation, info)
        mask = np.zeros((1, NUM_ACTIONS), dtype=bool)
        mask[0, legal] = True
        decision = self.next_decision()
        keys, decisions = np.array([self.key], dtype=np.uint64), np.array([decision])
        return int(policy_actions(self.nets, inputs[None], mask, self.greedy, keys, decisions)[0])

    def batch_policy(self) -> Optional[BatchPolicy]:
        from rummy_env.agents.gin.policies import PPOPolicy

        return PPOPolicy(self.nets, self.greedy)
