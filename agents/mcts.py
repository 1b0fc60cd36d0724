"""``mcts``: information-set Monte Carlo tree search (single-observer IS-MCTS).

Plain MCTS on the true state would peek at the opponent's cards. Here every simulation
first samples a world consistent with the player's information set
(``GinRummyState.sample_from_information_set``: the opponent's unknown cards and the
stock order dealt at random from the unseen cards), then walks one shared tree of this
player's view: at each node only the actions legal in that world are candidates, chosen
by UCB1 with availability counts (Cowling, Powley & Whitehouse 2012), so the opponent's
moves, which depend on its hidden cards, are searched too. A new leaf is played out to
the end of the hand by a fast greedy policy (take a face-up card that melds, discard the
card leaving the least deadwood, knock as soon as legal) and the hand's points, divided
by 100, are backed up from each mover's side. The move is the most visited one.

Budget: ``simulations`` per move (reproducible with a seed), or ``time`` seconds per
move when given (then the result depends on the machine's speed).
"""

from __future__ import annotations

import math
import time as _time
from typing import Any, Optional

import numpy as np

from agents.base import Agent, information, legal_actions
from rummy_env import melds
from rummy_env.game import BIG_GIN, DISCARD, DRAW_STOCK, KNOCK, PASS, TAKE_DISCARD, GinRummyState, Phase


class _Node:
    __slots__ = ("children", "visits", "total", "avail")

    def __init__(self) -> None:
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.total = 0.0
        self.avail: dict[int, int] = {}


def greedy_action(state: GinRummyState, rng: np.random.Generator) -> int:
    """The rollout policy, on a full (sampled) state: cheap and sensible."""
    legal = state.legal_actions()
    p = state.current_player
    hand = state.hands[p]
    rules = state.rules
    if state.phase in (Phase.OFFER, Phase.DRAW):
        top = state.discard_pile[-1] if state.discard_pile else None
        if TAKE_DISCARD in legal and top is not None and melds.forms_meld(hand, top, aces_high=rules.aces_high):
            return TAKE_DISCARD
        return PASS if PASS in legal else DRAW_STOCK
    if BIG_GIN in legal:
        return BIG_GIN
    after = melds.discard_deadwood(hand, aces_high=rules.aces_high, five_under_ten=rules.five_under_ten)
    options = [(v, c) for c, v in enumerate(after) if v >= 0 and c != state.taken_card]
    best = min(v for v, _ in options)
    cards = [c for v, c in options if v == best]
    card = cards[int(rng.integers(len(cards)))]
    return KNOCK + card if KNOCK + card in legal else DISCARD + card


class MCTSAgent(Agent):
    name = "mcts"

    def __init__(
        self,
        seed: Optional[int] = None,
        simulations: int = 400,
        time: Optional[float] = None,
        exploration: float = 0.7,
    ) -> None:
        super().__init__(seed)
        if simulations < 1:
            raise ValueError(f"simulations must be >= 1, got {simulations}")
        if time is not None and time <= 0:
            raise ValueError(f"time must be > 0 seconds, got {time}")
        self.simulations = simulations
        self.time = time
        self.exploration = exploration

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        legal = legal_actions(observation)
        if legal.size == 1:
            return int(legal[0])
        infoset, rules = information(info)
        root = _Node()
        deadline = None if self.time is None else _time.perf_counter() + self.time
        done = 0
        while (done < self.simulations) if deadline is None else (_time.perf_counter() < deadline or done == 0):
            world = GinRummyState.sample_from_information_set(infoset, rules, self.rng)
            self._simulate(root, world)
            done += 1
        allowed = set(legal.tolist())
        return max((a for a in root.children if a in allowed), key=lambda a: root.children[a].visits)

    def _simulate(self, root: _Node, world: GinRummyState) -> None:
        node = root
        path: list[tuple[_Node, int]] = []  # (node entered, the seat that moved into it)
        while not world.is_over:
            actions = world.legal_actions()
            for a in actions:
                node.avail[a] = node.avail.get(a, 0) + 1
            untried = [a for a in actions if a not in node.children]
            mover = world.current_player
            if untried:
                a = untried[int(self.rng.integers(len(untried)))]
                child = node.children[a] = _Node()
                world.step(a)
                path.append((child, mover))
                break
            a = max(actions, key=lambda act: self._ucb(node.children[act], node.avail[act]))
            world.step(a)
            node = node.children[a]
            path.append((node, mover))
        while not world.is_over:
            world.step(greedy_action(world, self.rng))
        assert world.result is not None
        rewards = world.result.rewards
        for visited, mover in path:
            visited.visits += 1
            visited.total += rewards[mover] / 100.0

    def _ucb(self, child: _Node, available: int) -> float:
        return child.total / child.visits + self.exploration * math.sqrt(math.log(available) / child.visits)


class PIMCAgent(Agent):
    """Flat determinised search with common random numbers (experimental)."""

    name = "pimc"

    def __init__(self, seed: Optional[int] = None, simulations: int = 400, time: Optional[float] = None, candidates: int = 4) -> None:
        super().__init__(seed)
        from agents.heuristic import HeuristicAgent

        self.simulations = simulations
        self.time = time
        self.candidates = candidates
        self.guide = HeuristicAgent(seed)

    def act(self, observation, info):
        legal = legal_actions(observation)
        if legal.size == 1:
            return int(legal[0])
        infoset, rules = information(info)
        allowed = set(legal.tolist())
        if infoset.phase == Phase.DISCARD:
            if BIG_GIN in allowed:
                return BIG_GIN
            ranked = self.guide.ranked_discards(infoset, rules, allowed)[: self.candidates]
            after = melds.discard_deadwood(infoset.hand, aces_high=rules.aces_high, five_under_ten=rules.five_under_ten)
            knocks = [a for a in allowed if KNOCK <= a < BIG_GIN]
            if knocks:
                low = min(after[a - KNOCK] for a in knocks)
                knocks = [a for a in knocks if after[a - KNOCK] == low][:1]
            cands = ranked + knocks
        else:
            cands = sorted(allowed)
        if len(cands) == 1:
            return cands[0]
        me = infoset.player
        totals = np.zeros(len(cands))
        deadline = None if self.time is None else _time.perf_counter() + self.time
        worlds = 0
        budget = max(1, self.simulations // len(cands))
        while (worlds < budget) if deadline is None else (_time.perf_counter() < deadline or worlds == 0):
            world = GinRummyState.sample_from_information_set(infoset, rules, self.rng)
            seed = int(self.rng.integers(1 << 62))
            for i, a in enumerate(cands):
                w = world.clone()
                w.step(a)
                rng = np.random.default_rng(seed)
                while not w.is_over:
                    w.step(greedy_action(w, rng))
                totals[i] += w.result.rewards[me]
            worlds += 1
        return int(cands[int(np.argmax(totals))])
