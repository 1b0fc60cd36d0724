"""``mcts``: Monte Carlo search over determinised information sets (PIMC).

Plain Monte Carlo search on the true state would peek at the opponent's cards. Here each
simulation samples a world consistent with the player's information set
(``GinRummyState.sample_from_information_set``: the opponent's unknown cards and the
stock order dealt at random from the unseen cards), plays each candidate move in that
world and then plays the hand out with a fast greedy policy for both sides (take a
face-up card that melds, discard the card leaving the least deadwood, knock as soon as
legal). The move with the most points summed over the worlds is played.

Choices that make it strong for its cost:
- common random numbers: every candidate is tried in the same worlds with the same
  rollout randomness, so the comparison between moves is far less noisy than the
  points themselves;
- candidates: when discarding, the ``heuristic`` agent's ``candidates`` best discards,
  plus the knock with the least deadwood and Big Gin; drawing, both draws (or take/pass);
- a knock is scored exactly in each world (the showdown needs no rollout).

Budget: ``simulations`` rollouts per move (reproducible with a seed), or ``time``
seconds per move when given (then the result depends on the machine's speed). This is
perfect-information Monte Carlo (PIMC): it averages over worlds instead of building one
tree over information sets (IS-MCTS); we tried single-observer IS-MCTS with the same
rollouts first, and at equal cost it lost to the ``heuristic`` agent while this wins
(README, agent strength).
"""

from __future__ import annotations

import time as _time
from typing import Any, Optional

import numpy as np

from agents.base import Agent, information, legal_actions
from agents.heuristic import HeuristicAgent
from agents.simple import least_deadwood_discards
from rummy_env import melds
from rummy_env.game import BIG_GIN, DISCARD, DRAW_STOCK, KNOCK, PASS, TAKE_DISCARD, GinRummyState, Phase


def greedy_action(state: GinRummyState, rng: np.random.Generator) -> int:
    """The rollout policy, on a full (sampled) state: cheap and sensible."""
    legal = state.legal_actions()
    hand = state.hands[state.current_player]
    rules = state.rules
    if state.phase in (Phase.OFFER, Phase.DRAW):
        top = state.discard_pile[-1] if state.discard_pile else None
        if TAKE_DISCARD in legal and top is not None and melds.forms_meld(hand, top, aces_high=rules.aces_high):
            return TAKE_DISCARD
        return PASS if PASS in legal else DRAW_STOCK
    if BIG_GIN in legal:
        return BIG_GIN
    cards, _ = least_deadwood_discards(hand, state.taken_card, rules)
    card = cards[int(rng.integers(len(cards)))]
    return KNOCK + card if KNOCK + card in legal else DISCARD + card


class MCTSAgent(Agent):
    name = "mcts"

    def __init__(
        self,
        seed: Optional[int] = None,
        simulations: int = 1200,
        time: Optional[float] = None,
        candidates: int = 4,
    ) -> None:
        super().__init__(seed)
        if simulations < 1:
            raise ValueError(f"simulations must be >= 1, got {simulations}")
        if time is not None and time <= 0:
            raise ValueError(f"time must be > 0 seconds, got {time}")
        if candidates < 1:
            raise ValueError(f"candidates must be >= 1, got {candidates}")
        self.simulations = simulations
        self.time = time
        self.candidates = candidates
        self.guide = HeuristicAgent(seed)

    def reset(self, seed: Optional[int] = None) -> None:
        super().reset(seed)
        self.guide.reset(seed)

    def _moves(self, legal: set[int], infoset, rules) -> list[int]:
        if infoset.phase != Phase.DISCARD:
            return sorted(legal)
        if BIG_GIN in legal:
            return [BIG_GIN]
        moves = self.guide.ranked_discards(infoset, rules, legal)[: self.candidates]
        knocks = [a for a in legal if KNOCK <= a < BIG_GIN]
        if knocks:
            after = melds.discard_deadwood(infoset.hand, aces_high=rules.aces_high, five_under_ten=rules.five_under_ten)
            moves.append(min(knocks, key=lambda a: (after[a - KNOCK], a)))
        return moves

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        legal = legal_actions(observation)
        if legal.size == 1:
            return int(legal[0])
        infoset, rules = information(info)
        moves = self._moves(set(legal.tolist()), infoset, rules)
        if len(moves) == 1:
            return moves[0]
        me = infoset.player
        totals = np.zeros(len(moves))
        deadline = None if self.time is None else _time.perf_counter() + self.time
        budget = max(1, self.simulations // len(moves))
        worlds = 0
        while (worlds < budget) if deadline is None else (_time.perf_counter() < deadline or worlds == 0):
            world = GinRummyState.sample_from_information_set(infoset, rules, self.rng)
            seed = int(self.rng.integers(1 << 62))
            for i, move in enumerate(moves):
                w = world.clone()
                w.step(move)
                rng = np.random.default_rng(seed)  # the same rollout randomness for every move
                while not w.is_over:
                    w.step(greedy_action(w, rng))
                assert w.result is not None
                totals[i] += w.result.rewards[me]
            worlds += 1
        return int(moves[int(np.argmax(totals))])
