"""The in-process rollout source for any game: many hands played together over the ``GameState`` protocol.

Why: a game whose hands cannot be played on its vector engine (a game without a compiled
engine, whose opponents have no array versions, or whose network reads what its engine
cannot give: ``TrainingAdapter.engine_rollouts``; or any game with ``rollouts: hands``) is
trained by stepping many ordinary hands at once in this process. Each round every
unfinished hand makes one move: scripted seats one by one, and every network seat of all
the hands in one forward pass (the learner's, and each pool snapshot's). Only the game
interface is used: ``Game.deal`` from a deck order, ``legal_actions``, ``step``,
``information_set``, the hand's ``result`` (its ``rewards``, ``winner``, ``outcome``), and
the training adapter's network input (``rummy_env.train.adapter``).

One update of a ``HandsWorker``: its share of ``hands_per_update`` hands is dealt (a table
size drawn from ``players``, the learner in a random seat, every other seat one opponent
kind drawn from ``opponents``: an agent of the game, the learner itself (``self``, every
seat recorded) or a pool snapshot) and played to the end; the learner's decisions with more
than one legal move are its trajectory. The reward (``reward``, ``win_bonus``) comes at the
hand's end; advantages by GAE within each hand: a hand always finishes inside its update,
so nothing is bootstrapped and a worker's state between updates is its generator alone.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass, field
from typing import Any, Optional

import numpy as np

from rummy_env.agents.network_moves import network_actions
from rummy_env.train.rewards import POOL, SELF, hand_reward


@dataclass
class Seat:
    """Who plays a seat: a scripted agent (``agent``) or network ``net`` of the batch's list;
    ``record``: its decisions are kept."""

    agent: Any = None
    net: int = -1
    record: bool = False


@dataclass(frozen=True)
class Hand:
    """One hand of an update as drawn (``HandsWorker._draw_hands``): its table size, deck
    order and dealer, the learner's seat, the opponent kind of every other seat and who
    plays them: a network of the update's list (``net`` >= 0: 0 the learner itself, a pool
    snapshot after it) or the kind's scripted agent (-1)."""

    size: int
    deck: np.ndarray
    dealer: int
    learner: int
    kind: str
    net: int


@dataclass
class Played:
    """The recorded decisions of a batch of hands (``record`` seats only) and the results."""

    obs: list = field(default_factory=list)
    mask: list = field(default_factory=list)
    act: list = field(default_factory=list)
    logp: list = field(default_factory=list)
    val: list = field(default_factory=list)
    hand: list = field(default_factory=list)  # (game, seat) of each decision, in order
    results: list = field(default_factory=list)  # per game: its HandResult
    steps: int = 0  # every move played, recorded or not


def play_hands(states: list[Any], seats: list[list[Seat]], nets: list[Any], adapter: Any, rules: Any,
               rng: np.random.Generator, greedy: bool = False) -> Played:
    """Play every hand of ``states`` to its end; ``seats[g][s]`` says who plays seat s of
    game g. Each round every unfinished hand makes one move: scripted seats in game order,
    then each network's moves of all the hands in one forward pass (actions drawn from
    ``rng`` in game order unless ``greedy``). Network inputs are ``adapter.inputs`` of the
    mover's information set only. Decisions with a single legal move are played, not recorded."""
    out = Played()
    num_actions = adapter.game.num_actions
    live = [g for g, s in enumerate(states) if not s.is_over]
    while live:
        waiting: dict[int, list[tuple[int, np.ndarray, np.ndarray, bool]]] = {}
        for g in live:
            state = states[g]
            p = state.current_player
            seat = seats[g][p]
            legal = state.legal_actions()
            out.steps += 1
            if len(legal) == 1:  # nothing to decide
                state.step(int(legal[0]))
                continue
            info = state.information_set(p)
            if seat.agent is not None:  # scripted: they read the mask and the information set
                mask = np.zeros(num_actions, dtype=np.int8)
                mask[legal] = 1
                action = int(seat.agent.act({"action_mask": mask}, {"information_set": info, "rules": rules}))
                if seat.record:  # the imitation teacher
                    _record(out, adapter.inputs(None, info, rules, legal), mask.astype(bool), action, 0.0, 0.0, g, p)
                state.step(action)
                continue
            mask = np.zeros(num_actions, dtype=bool)
            mask[legal] = True
            waiting.setdefault(seat.net, []).append((g, adapter.inputs(nets[seat.net], info, rules, legal), mask,
                                                     seat.record))
        for k in sorted(waiting):
            rows = waiting[k]
            x = np.stack([r[1] for r in rows])
            m = np.stack([r[2] for r in rows])
            actions, logp, values = network_actions(nets[k], x, m, greedy, rng)
            for (g, obs, mask, record), a, lp, v in zip(rows, actions, logp, values):
                if record:
                    _record(out, obs, mask, int(a), float(lp), float(v), g, states[g].current_player)
                states[g].step(int(a))
        live = [g for g in live if not states[g].is_over]
    out.results = [s.result for s in states]
    return out


def _record(out: Played, obs: np.ndarray, mask: np.ndarray, action: int, logp: float, value: float, g: int, p: int) -> None:
    out.obs.append(obs)
    out.mask.append(mask)
    out.act.append(action)
    out.logp.append(logp)
    out.val.append(value)
    out.hand.append((g, p))


def returns_and_advantages(played: Played, reward: str, win_bonus: float, gamma: float, lam: float
                           ) -> tuple[np.ndarray, np.ndarray]:
    """Per recorded decision: the return (the seat's hand reward, ``rewards.hand_reward``, at
    the hand's last decision, discounted by ``gamma``) and the GAE(``lam``) advantage over
    the recorded values. Each (game, seat)'s decisions are one trajectory that ends with the hand."""
    n = len(played.act)
    adv = np.zeros(n, dtype=np.float32)
    ret = np.zeros(n, dtype=np.float32)
    by_hand: dict[tuple[int, int], list[int]] = {}
    for i, key in enumerate(played.hand):
        by_hand.setdefault(key, []).append(i)
    values = np.asarray(played.val, dtype=np.float64)
    for (g, p), idx in by_hand.items():
        final = float(hand_reward(played.results[g].rewards[p], reward, win_bonus))
        next_value, gae = 0.0, 0.0
        for step, i in enumerate(reversed(idx)):
            r = final if step == 0 else 0.0
            delta = r + gamma * next_value - values[i]
            gae = delta + gamma * lam * gae
            adv[i] = gae
            ret[i] = gae + values[i]
            next_value = values[i]
    return ret, adv


class Dealer:
    """Deals training hands for a config: a table size drawn by ``players``' weights, a random
    deck order and dealer, and the learner's seat."""

    def __init__(self, config: Any, adapter: Any) -> None:
        self.game = adapter.game
        self.rules = self.game.load_rules(config.rules)
        sizes = config.table_sizes
        self.sizes = np.array(sorted(sizes), dtype=np.int64)
        w = np.array([sizes[k] for k in sorted(sizes)], dtype=np.float64)
        self.weights = w / w.sum()
        self.deck_size = self.game.deck_size_of(self.rules)

    def draw(self, rng: np.random.Generator) -> tuple[int, np.ndarray, int, int]:
        """A hand's table size, deck order, dealer and learner's seat, drawn in that order."""
        n = int(rng.choice(self.sizes, p=self.weights))
        deck = rng.permutation(self.deck_size)
        dealer = int(rng.integers(n))
        return n, deck, dealer, int(rng.integers(n))

    def deal(self, rng: np.random.Generator) -> tuple[Any, int]:
        """A hand dealt as ``draw`` says (the game's state), and the learner's seat."""
        n, deck, dealer, learner = self.draw(rng)
        return self.game.deal(self.rules, n, deck=deck.tolist(), dealer=dealer), learner


def worker_rng(seed: int, index: int) -> np.random.Generator:
    """Worker ``index``'s generator: deals, opponent draws, sampling. Worker 0's is the one the
    single-process trainer always used."""
    return np.random.default_rng([seed, 2] if index == 0 else [seed, 2, index])


class HandsWorker:
    """Plays ``hands`` hands to the end per ``rollout`` call (module docstring); the same
    interface as Gin's vector worker, so ``train.workers`` and ``train.ray_rollouts`` run either."""

    def __init__(self, config: Any, index: int, hands: int, net: Any, adapter: Any) -> None:
        from rummy_env import agents

        self.config, self.index, self.hands, self.net, self.adapter = config, index, hands, net, adapter
        self.rng = worker_rng(config.seed, index)
        self.dealer = Dealer(config, adapter)
        self._kinds = sorted(config.opponents)
        w = np.array([float(config.opponents[k]) for k in self._kinds], dtype=np.float64)
        self._kind_weights = w / w.sum()
        self._scripted = adapter.scripted_kinds(config)
        self._make_agent = lambda spec, seed: agents.make(spec, seed=seed, game=adapter.game.name)
        self.pool: list[dict[str, Any]] = []
        self._snapshots: list[Optional[Any]] = []  # pool[k]'s network once built, kept until the pool changes

    # ------------------------------------------------------------------ what the driver sends

    def load_weights(self, net_state: dict[str, Any], critic_state: Optional[dict[str, Any]]) -> None:
        self.net.load_state_dict(net_state)

    def set_pool(self, pool: list[dict[str, Any]]) -> None:
        """The snapshots a ``pool`` hand draws from; the networks of those already held (the
        same weights object) are kept, the others built when first drawn (``_snapshot``)."""
        held = {id(w): net for w, net in zip(self.pool, self._snapshots)}
        self.pool = list(pool)
        self._snapshots = [held.get(id(w)) for w in self.pool]

    def _snapshot(self, k: int) -> Any:
        """The network of ``pool[k]``: a copy of the learner's network with its weights, built
        once (not a fresh ``make_net`` every update: its initialisation costs more than a
        hand, and draws from torch's generator for nothing)."""
        if self._snapshots[k] is None:
            snapshot = copy.deepcopy(self.net)
            snapshot.load_state_dict(self.pool[k])
            snapshot.eval()
            self._snapshots[k] = snapshot
        return self._snapshots[k]

    def reassign(self) -> None:
        """Nothing to redraw: every update deals its hands afresh."""

    def state(self) -> dict[str, Any]:
        return {"rng": self.rng.bit_generator.state}

    def restore(self, state: dict[str, Any]) -> None:
        self.rng.bit_generator.state = state["rng"]

    # ------------------------------------------------------------------ one rollout

    def rollout(self) -> dict[str, Any]:
        """This update's hands played to the end: the learner's moves with their masks,
        log-probabilities, values, advantages and returns, and the hands' results."""
        start = time.perf_counter()
        rng = self.rng
        scripted = {k: self._make_agent(k, int(rng.integers(2**31))) for k in self._scripted}
        hands, nets = self._draw_hands()
        states, seats = [], []
        for hand in hands:
            state = self.adapter.game.deal(self.dealer.rules, hand.size, deck=hand.deck.tolist(), dealer=hand.dealer)
            other = Seat(agent=scripted[hand.kind]) if hand.net < 0 else Seat(net=hand.net, record=hand.kind == SELF)
            states.append(state)
            seats.append([Seat(net=0, record=True) if s == hand.learner else other for s in range(hand.size)])
        self.net.eval()
        played = play_hands(states, seats, nets, self.adapter, self.dealer.rules, rng)
        return self._batch(played, hands, start)

    def _draw_hands(self) -> tuple[list["Hand"], list[Any]]:
        """This update's hands (``Hand``, each drawn as ``Dealer.draw`` then its opponent kind,
        then for ``pool`` the snapshot) and the networks they seat: the learner's, then each
        pool snapshot drawn, in the order first drawn."""
        rng = self.rng
        nets: list[Any] = [self.net]
        pool_nets: dict[int, int] = {}
        hands = []
        for _ in range(self.hands):
            size, deck, dealer, learner = self.dealer.draw(rng)
            kind = self._kinds[int(rng.choice(len(self._kinds), p=self._kind_weights))]
            if kind == POOL and not self.pool:
                kind = self.adapter.pool_stand_in  # nothing in the pool yet
            net = -1  # a scripted opponent
            if kind == POOL:
                k = int(rng.integers(len(self.pool)))
                if k not in pool_nets:
                    pool_nets[k] = len(nets)
                    nets.append(self._snapshot(k))
                net = pool_nets[k]
            elif kind == SELF:
                net = 0
            hands.append(Hand(size, deck, dealer, learner, kind, net))
        return hands, nets

    def _batch(self, played: Played, hands: list["Hand"], start: float) -> dict[str, Any]:
        """The update's batch (``train.workers.BATCH_ARRAYS`` and the hands' counts) from the
        learner's recorded decisions of ``hands`` and their results."""
        c = self.config
        ret, adv = returns_and_advantages(played, c.reward, c.win_bonus, c.gamma, c.gae_lambda)
        returns: dict[str, list[float]] = {}
        outcomes = np.zeros(len(self.adapter.game.outcomes), dtype=np.int64)
        for result, hand in zip(played.results, hands):
            outcomes[self.adapter.game.outcomes.index(result.outcome)] += 1
            if hand.kind != SELF:
                returns.setdefault(f"{hand.kind}_{hand.size}p", []).append(
                    float(hand_reward(result.rewards[hand.learner], c.reward, 0.0)))
        m = len(played.act)
        size = int(np.prod(self.net.obs_size)) if hasattr(self.net, "obs_size") else 0
        return {
            "obs": np.array(played.obs, dtype=np.float32).reshape(m, -1) if m else np.zeros((0, size), np.float32),
            "mask": np.array(played.mask, dtype=bool).reshape(m, -1) if m else np.zeros((0, self.adapter.game.num_actions), bool),
            "act": np.array(played.act, dtype=np.int64),
            "logp": np.array(played.logp, dtype=np.float32),
            "val": np.array(played.val, dtype=np.float32),
            "adv": adv,
            "ret": ret,
            "priv": np.zeros((m, 0), dtype=np.float32),
            "returns": returns,
            "outcomes": outcomes,
            "episodes": len(hands),
            "steps": played.steps,
            "seconds": time.perf_counter() - start,
        }

