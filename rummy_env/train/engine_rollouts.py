"""The rollout source of the one trainer on a game's vector engine: an update's hands played as arrays.

Why: the in-process source (``rummy_env.train.hands``) steps every hand once a round in
Python, and a profile of a Basic Rummy update found 60% of it in network forwards of a
few rows each (every round asks the learner and each pool snapshot for the moves of the
few hands where it is to move), the rest in stepping, masks, encodings, information
sets and the scripted opponents, one hand at a time. Here the same hands are dealt into
the game's vector engine (``rummy_env.core.vector``, one engine per table size) and
played in steps: first every move no network makes (a seat with one legal move, and the
scripted opponents' moves, asked of their array versions, ``Agent.batch_policy``) until
every unfinished hand waits on a network, then one forward of the learner over all the
hands it is to move in and one of the pool's snapshots over all theirs (``Stacked``: their
weights stacked, so ten snapshots cost one call, not ten), the observations written by
the engine. So the forwards are two a step, each over every hand its networks move in,
and none of the stepping is Python per hand.

The update is the in-process source's in every other respect (``HandsWorker``, whose
pool, snapshots, generator and batch this worker shares): the hands drawn as it draws
them (a table size from ``players``, the learner in a random seat, an opponent kind per
hand from ``opponents``, a pool snapshot), the learner's decisions with more than one
legal move recorded, the reward at the hand's end (``reward``, ``win_bonus``), GAE per
(hand, seat), and a worker's state between updates its generator alone. What differs:
the scripted opponents' random choices come from keys drawn for each hand and seat (the
counter-based draws of ``rummy_env.agents.draws``, as in tournaments), not from one
agent per update, so the same seed plays other hands than the in-process source.

A game's rollouts run here when ``TrainingAdapter.engine_rollouts`` finds nothing
missing: its compiled engine is in use, every scripted opponent of the config has an
array version, and the network's input is an encoding the engine writes
(``TrainingAdapter.engine_encoding``) and what the adapter adds from the engine
(``TrainingAdapter.engine_inputs``: Rommé's heuristic advice, by the heuristic's array
version); ``rollouts`` (``auto``, ``engine``, ``hands``) chooses (``rummy_env.train.config``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np

from rummy_env.agents.network_moves import network_actions
from rummy_env.train.hands import Hand, HandsWorker, Played
from rummy_env.train.rewards import SELF


@dataclass
class EnginePlayed(Played):
    """``Played`` with each hand's every action in order (``moves``, to replay it on the
    pure game) and the keys its scripted seats played with (``keys``: (hands, seats))."""

    moves: list = field(default_factory=list)
    keys: Optional[np.ndarray] = None


class _Table:
    """The hands of one table size in one engine: who plays each seat (``who``: a network
    index >= 0, or -1 - the index of a scripted policy), which seats are recorded, each
    seat's key and decisions asked so far, and which hands are still being played."""

    def __init__(self, engine: Any, hands: np.ndarray, who: np.ndarray, record: np.ndarray, keys: np.ndarray) -> None:
        self.engine, self.hands, self.who, self.record, self.keys = engine, hands, who, record, keys
        n = len(hands)
        self.decisions = np.zeros(who.shape, dtype=np.int64)
        self.live = np.ones(n, dtype=bool)
        self.moves = np.zeros((n, 64), dtype=np.int16)
        self.length = np.zeros(n, dtype=np.int64)
        self.rows = np.arange(n)


class Stacked:
    """The pool snapshots of an update as one network: ``(obs, mask)`` of ``len(nets) x rows``
    rows, snapshot-major (``rows`` of each), to their log-probabilities and values in one
    call (``torch.func.vmap`` over the snapshots' stacked weights), so that the snapshots'
    moves of a step cost one forward, not one each. Each row is what its own network gives
    (to float rounding: the stacked product sums in another order)."""

    def __init__(self, nets: list[Any]) -> None:
        import copy

        from torch.func import functional_call, stack_module_state, vmap

        params, buffers = stack_module_state(nets)
        self._weights = ({k: v.detach() for k, v in params.items()}, buffers)
        base = copy.deepcopy(nets[0]).to("meta")
        self.count = len(nets)
        self._forward = vmap(lambda p, b, x, m: functional_call(base, (p, b), (x, m)))

    def __call__(self, obs: Any, mask: Any) -> tuple[Any, Any]:
        k = self.count
        logp, value = self._forward(*self._weights, obs.view(k, -1, *obs.shape[1:]), mask.view(k, -1, *mask.shape[1:]))
        return logp.reshape(obs.shape[0], -1), value.reshape(obs.shape[0])


class EngineWorker(HandsWorker):
    """Plays ``hands`` hands per ``rollout`` on the game's vector engine (module docstring);
    the interface of every rollout worker (``train.workers``, ``train.ray_rollouts``)."""

    def __init__(self, config: Any, index: int, hands: int, net: Any, adapter: Any) -> None:
        from rummy_env import agents

        super().__init__(config, index, hands, net, adapter)
        kinds = sorted({k for k in config.opponents if k not in ("self", "pool")}
                       | ({adapter.pool_stand_in} if "pool" in config.opponents else set()))
        self._scripted_kinds = [k for k in kinds if k != SELF]
        self._policies = [agents.make(k, game=adapter.game.name).batch_policy() for k in self._scripted_kinds]
        self._encoding = adapter.game.encoding(adapter.engine_encoding)

    def rollout(self) -> dict[str, Any]:
        start = time.perf_counter()
        hands, nets = self._draw_hands()
        keys = self.rng.integers(0, 2**63, size=(len(hands), max(h.size for h in hands)), dtype=np.uint64)
        self.net.eval()
        played = self.play(hands, nets, keys)
        return self._batch(played, hands, start)

    def play(self, hands: list[Hand], nets: list[Any], keys: np.ndarray) -> EnginePlayed:
        """Play ``hands`` to their ends, seat ``s`` of hand ``i`` keyed ``keys[i, s]`` where a
        scripted opponent plays it; network moves drawn from the worker's generator."""
        out = EnginePlayed(keys=keys)
        tables = self._tables(hands, keys)
        rows_of: dict[int, list[tuple[int, int]]] = {}  # hand -> (table, row), for the results' order
        for t, table in enumerate(tables):
            for r, i in enumerate(table.hands.tolist()):
                rows_of[i] = (t, r)
        results: list[Any] = [None] * len(hands)
        pool = Stacked(nets[1:]) if len(nets) > 1 else None
        while any(t.live.any() for t in tables):
            for table in tables:
                self._scripted_moves(table, results, out)
            self._network_moves(tables, nets, pool, results, out)
        out.results = results
        out.moves = [tables[t].moves[r, : tables[t].length[r]].tolist()
                     for t, r in (rows_of[i] for i in range(len(hands)))]
        return out

    def _tables(self, hands: list[Hand], keys: np.ndarray) -> list[_Table]:
        """One engine per table size, its rows the hands of that size in the order drawn."""
        game, rules = self.adapter.game, self.dealer.rules
        tables = []
        for size in sorted({h.size for h in hands}):
            index = np.array([i for i, h in enumerate(hands) if h.size == size], dtype=np.intp)
            engine = game.vector(len(index), size, rules=rules, encoding=None, seed=0)
            engine.reset(decks=np.stack([hands[i].deck for i in index]),
                         dealers=np.array([hands[i].dealer for i in index], dtype=np.int64))
            who = np.empty((len(index), size), dtype=np.int64)
            record = np.zeros((len(index), size), dtype=bool)
            for r, i in enumerate(index.tolist()):
                h = hands[i]
                who[r] = h.net if h.net >= 0 else -1 - self._scripted_kinds.index(h.kind)
                who[r, h.learner] = 0
                record[r] = h.kind == SELF
                record[r, h.learner] = True
            tables.append(_Table(engine, index, who, record, keys[index, :size]))
        return tables

    def _step(self, table: _Table, actions: np.ndarray, rows: np.ndarray, results: list, out: EnginePlayed) -> None:
        """Play ``actions`` (one per engine row) in ``rows``; a hand that ends leaves the table."""
        active = np.zeros(len(table.hands), dtype=bool)
        active[rows] = True
        if table.length.max() >= table.moves.shape[1]:
            table.moves = np.concatenate([table.moves, np.zeros_like(table.moves)], axis=1)
        table.moves[rows, table.length[rows]] = actions[rows]
        table.length[rows] += 1
        out.steps += rows.size
        step = table.engine.step(actions, active=active)
        for r in np.flatnonzero(step.terminated & active).tolist():
            results[int(table.hands[r])] = step.results[r]
            table.live[r] = False

    def _scripted_moves(self, table: _Table, results: list, out: EnginePlayed) -> None:
        """Every move of ``table`` no network makes, until each live hand waits on a network."""
        while True:
            rows = table.rows[table.live]
            if rows.size == 0:
                return
            engine = table.engine
            mask = engine.action_mask()
            mover = engine.current.astype(np.intp)
            who = table.who[rows, mover[rows]]
            forced = mask[rows].sum(axis=1) == 1
            moving = rows[forced | (who < 0)]
            if moving.size == 0:
                return
            actions = np.zeros(len(table.hands), dtype=np.int64)
            actions[rows[forced]] = np.argmax(mask[rows[forced]], axis=1)
            for q, policy in enumerate(self._policies):
                mine = rows[~forced & (who == -1 - q)]
                if mine.size:
                    seats = mover[mine]
                    actions[mine] = policy(engine, mine, table.keys[mine, seats], table.decisions[mine, seats])
                    table.decisions[mine, seats] += 1
            self._step(table, actions, moving, results, out)

    def _network_moves(self, tables: list[_Table], nets: list[Any], pool: Optional[Stacked], results: list,
                       out: EnginePlayed) -> None:
        """One forward of the learner over every hand of every table where it is to move (its
        moves recorded: the learner's seat, every seat of ``self`` hands), and one of the pool
        snapshots (``pool``, stacked) over every hand where one of them is."""
        waiting = []  # per table: its live rows, their movers, networks, masks and observations
        for table in tables:
            rows = table.rows[table.live]
            if rows.size == 0:
                waiting.append(None)
                continue
            engine = table.engine
            mover = engine.current.astype(np.intp)[rows]
            obs = self.adapter.engine_inputs(engine, rows, self._encoding.encode_batch(engine)[rows])
            waiting.append((rows, mover, table.who[rows, mover], engine.action_mask()[rows] != 0, obs))
        actions = [np.zeros(len(t.hands), dtype=np.int64) for t in tables]
        parts = [[(t, w[0][w[2] == k], w[1][w[2] == k], w[3][w[2] == k], w[4][w[2] == k])
                  for t, w in enumerate(waiting) if w is not None and (w[2] == k).any()] for k in range(len(nets))]
        if parts[0]:  # the learner
            x = np.concatenate([p[4] for p in parts[0]])
            m = np.concatenate([p[3] for p in parts[0]])
            act, logp, values = network_actions(nets[0], x, m, False, self.rng)
            start = 0
            for t, rows, movers, _, _ in parts[0]:
                end = start + rows.size
                actions[t][rows] = act[start:end]
                kept = tables[t].record[rows, movers]
                if kept.any():
                    at = np.arange(start, end)[kept]
                    out.obs.extend(x[at])
                    out.mask.extend(m[at])
                    out.act.extend(act[at].tolist())
                    out.logp.extend(logp[at].tolist())
                    out.val.extend(values[at].tolist())
                    out.hand.extend(zip(tables[t].hands[rows[kept]].tolist(), movers[kept].tolist()))
                start = end
        counts = [sum(p[1].size for p in group) for group in parts[1:]]
        if pool is not None and any(counts):  # every snapshot's rows padded to the most any has, with a real row
            width = max(counts)
            first = next(group[0] for group in parts[1:] if group)
            x = np.repeat(first[4][:1], pool.count * width, axis=0)
            m = np.repeat(first[3][:1], pool.count * width, axis=0)
            at = []
            for j, group in enumerate(parts[1:]):
                if group:
                    x[j * width: j * width + counts[j]] = np.concatenate([p[4] for p in group])
                    m[j * width: j * width + counts[j]] = np.concatenate([p[3] for p in group])
                    at.append((j * width, group))
            act = network_actions(pool, x, m, False, self.rng)[0]
            for start, group in at:
                for t, rows, _, _, _ in group:
                    actions[t][rows] = act[start:start + rows.size]
                    start += rows.size
        for t, w in enumerate(waiting):
            if w is not None:
                self._step(tables[t], actions[t], w[0], results, out)
