"""Backend ``ray`` of ``rummy train``: rollout workers as Ray actors, learning in the driver.

Each actor holds a rollout worker of the game trained (made by its training adapter,
``rummy_env.train.adapter``: Gin Rummy's vector worker, ``rummy_env.train.rollout``; the
hands of another game on its vector engine, ``rummy_env.train.engine_rollouts``, or
in-process, ``rummy_env.train.hands``: its share of the games,
their opponents, a copy of the policy and critic). Every update the driver puts the
current weights in Ray's object store once, every actor loads them and plays its
rollout, and the driver concatenates the batches in worker order. The pool's snapshots
travel only when the pool changes (a version number says whether an actor's copy is
current). The actors return their state (games, generators) with each batch, so the
driver always holds every worker's state as of the end of the last update: that state is
what a checkpoint saves, and what a replacement actor starts from.

A dead actor (``ray.exceptions.RayActorError``: its process or node died, or ``ray.kill``)
is replaced by a new actor restored to the dead one's state before the lost rollout, and
that rollout is played again with the same weights: the redone batch is the one the dead
actor would have returned, draw for draw, and the rollout it was playing is discarded,
never counted. After ``MAX_RESTARTS`` replacements of one worker in one update the run
stops with an error (something kills it every time).

Ray is started as the tournaments start it (``rummy_env.eval.tournament``): joined at
``ray_address`` if given, else a Ray instance on this machine; a Ray already initialised
by the caller is used as it is (and not shut down).
"""

from __future__ import annotations

import copy
import logging
from typing import Any, Optional

import torch

from rummy_env.train.adapter import adapter_for
from rummy_env.train.config import PPOConfig, make_config
from rummy_env.train.workers import BATCH_ARRAYS, check_states, merge_batches, split_games

MAX_RESTARTS = 3
_log = logging.getLogger(__name__)


class RolloutActor:
    """What runs inside each Ray actor: a rollout worker with its own modules and generator.

    One torch thread: an actor is given one CPU (``num_cpus=1``), so N actors fill N cores.
    """

    def __init__(self, config: dict[str, Any], index: int, num_games: int) -> None:
        c = make_config(config)
        torch.set_num_threads(1)
        adapter = adapter_for(c.game)
        net = adapter.make_net(c)
        self.worker = adapter.make_worker(c, index, num_games, net, adapter.make_critic(c, net), None)
        self.pool_version = -1

    def rollout(self, weights: tuple[dict[str, torch.Tensor], Optional[dict[str, torch.Tensor]]], pool_version: int,
                pool_ref: list[Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """Load ``weights`` (and the pool, fetched only if its version changed), play one
        rollout; returns the batch and the worker's state after it."""
        import ray

        self.worker.load_weights(*weights)
        if pool_version != self.pool_version:
            self.worker.set_pool(ray.get(pool_ref[0]))
            self.pool_version = pool_version
        return self.worker.rollout(), self.worker.state()

    def restore(self, state: dict[str, Any]) -> None:
        """Continue from a state the driver holds. A copy: Ray hands arguments over as read-only arrays."""
        self.worker.restore(copy.deepcopy(state))

    def reassign(self) -> dict[str, Any]:
        self.worker.reassign()
        return self.worker.state()

    def state(self) -> dict[str, Any]:
        return self.worker.state()


class RayRollouts:
    """The driver's side: ``config.rollout_workers`` actors and each one's latest state."""

    def __init__(self, config: PPOConfig, net: Any, critic: Optional[Any]) -> None:
        try:
            import ray
        except ImportError:
            raise RuntimeError('backend "ray" needs Ray: pip install -e ".[ray]"') from None
        self._ray = ray
        self.config = config
        self.net, self.critic = net, critic
        self._started = not ray.is_initialized()
        if self._started:
            ray.init(address=config.ray_address, ignore_reinit_error=True, include_dashboard=False,
                     log_to_driver=False)
        self._remote = ray.remote(num_cpus=1)(RolloutActor)
        self.sizes = split_games(adapter_for(config.game).work(config), config.rollout_workers)
        self.actors = [self._new_actor(i) for i in range(len(self.sizes))]
        try:
            self._states = ray.get([a.state.remote() for a in self.actors])
        except ray.exceptions.RayError as exc:
            self.close()
            raise RuntimeError(f"the rollout actors could not start ({type(exc).__name__}): every node of the Ray "
                               f"cluster needs the same rummy-env with its train extra; the cause:\n{exc}") from None
        self._pool: list[dict[str, torch.Tensor]] = []
        self._pool_version = 0
        self._pool_ref = ray.put(self._pool)
        self.restarts = 0
        """Actors replaced so far (by this driver process)."""

    def _new_actor(self, index: int) -> Any:
        return self._remote.remote(self.config.to_dict(), index, self.sizes[index])

    def collect(self) -> dict[str, Any]:
        """One update's batch: every actor's rollout with the current weights, in worker order."""
        ray = self._ray
        weights = ray.put(({k: v.detach() for k, v in self.net.state_dict().items()},
                           None if self.critic is None else self.critic.state_dict()))
        refs = [a.rollout.remote(weights, self._pool_version, [self._pool_ref]) for a in self.actors]
        batches = []
        for i, ref in enumerate(refs):
            batch, state = self._get_or_redo(i, ref, weights)
            batches.append(batch)
            self._states[i] = state
        if len(batches) == 1:  # Ray hands arrays over read-only; torch wants to own writable ones
            batches[0] = {k: (v.copy() if k in BATCH_ARRAYS else v) for k, v in batches[0].items()}
        return merge_batches(batches)

    def _get_or_redo(self, index: int, ref: Any, weights: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        """Worker ``index``'s result; if its actor died, a new actor from its last state plays the rollout again."""
        ray = self._ray
        for attempt in range(MAX_RESTARTS + 1):
            try:
                return ray.get(ref)
            except ray.exceptions.RayActorError as exc:
                if attempt == MAX_RESTARTS:
                    raise RuntimeError(f"rollout worker {index} died {MAX_RESTARTS + 1} times in one update; "
                                       f"last error: {exc}") from exc
                _log.warning("rollout worker %d died (%s): replaced, its rollout redone from its state before it",
                             index, type(exc).__name__)
                self.restarts += 1
                try:
                    ray.kill(self.actors[index], no_restart=True)
                except Exception:  # already gone
                    pass
                actor = self._new_actor(index)
                ray.get(actor.restore.remote(self._states[index]))
                self.actors[index] = actor
                ref = actor.rollout.remote(weights, self._pool_version, [self._pool_ref])
        raise AssertionError("unreachable")

    def set_pool(self, pool: list[dict[str, torch.Tensor]]) -> None:
        """The pool's new snapshots: put in the object store once, fetched by each actor at its next rollout."""
        self._pool = list(pool)
        self._pool_version += 1
        self._pool_ref = self._ray.put(self._pool)

    def reassign(self) -> None:
        self._states = self._ray.get([a.reassign.remote() for a in self.actors])

    def states(self) -> list[dict[str, Any]]:
        """Each worker's state as of the end of the last rollout (what a checkpoint saves)."""
        return list(self._states)

    def restore(self, states: list[dict[str, Any]]) -> None:
        check_states(states, len(self.actors))
        self._ray.get([a.restore.remote(s) for a, s in zip(self.actors, states)])
        self._states = self._ray.get([a.state.remote() for a in self.actors])

    def close(self) -> None:
        """Stop the actors (and Ray, if this run started it)."""
        for a in self.actors:
            try:
                self._ray.kill(a, no_restart=True)
            except Exception:
                pass
        self.actors = []
        if self._started:
            self._ray.shutdown()
            self._started = False
