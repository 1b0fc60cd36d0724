"""Rommé agents (``rummy_env.romme_v0``): ``random`` and ``heuristic``.

Same interface as the other games' agents (``act(observation, info) -> action``, taking
exactly what ``romme_v0``'s ``last()`` returns). Each checks that it was given Rommé input
and otherwise raises a ``TypeError`` naming what it got: an action id means nothing in
another game's layout.

``heuristic`` (scripted; it reads only its own information set) plans each step of
its turn again from the position, with the exact solver (``rummy_env.romme.melds``), so
it never needs to remember a plan between calls:

- Drawing: take the top discard when it lets the player come out now (the default rule
  allows taking it before coming out only then), when it joins a meld with cards in hand
  (the least penalty of the hand grows by less than the card's own), when it is a joker,
  or, once out, when it can be laid off on the table; otherwise draw from the stock.
- Coming out: as soon as it can, with its best arrangement (the least penalty left among
  arrangements worth the points, ``melds.come_out``), meld by meld, card by card.
- Once out: first swap a natural card for a joker on the table when the joker then joins
  a meld and the hand's least penalty falls; lay down the melds of the least-penalty
  arrangement (keeping a card to discard); lay off every card left that fits the table,
  highest penalty first (a joker only when at most ``joker_hold`` cards are left, or when
  a joker taken by a swap must be played).
- Discarding: the card that leaves the least penalty after melding, plus
  ``partial_weight`` for each card it would part from (a card of its rank, or of its suit
  at most two ranks away: half a meld), plus ``danger_weight`` if the next player may want
  it: it fits a table meld and they are out, or it is of a rank or near a card of a suit
  they took from the pile; minus half that if they let a card of its kind go by (drew
  from the stock with it on top). Never a joker while another card can go. Ties broken at
  random (seeded).

Whatever the plan, only legal actions are played: if a planned step is not in the mask
(edge cases the mask's family of plans does not cover), it falls back to the best legal
discard, then to a random legal action (every masked-in Rommé action can be completed).

Both have array versions (``batch_policy``) that make the same moves over many hands at
once on Rommé's vector engine: tournaments play them batched and the generic search its
playouts (``heuristic``'s: ``rummy_env.agents.romme.heuristic_vector``, which reads the
engine's arrays into the same inputs, ``Position``, and decides by the same ``decide``, or,
with numba, by its compiled twin ``heuristic_jit``, checked against ``decide`` before use).
"""

from __future__ import annotations

import functools
from typing import Any, Optional

import numpy as np

from rummy_env.agents.base import Agent, game_input, legal_actions
from rummy_env.agents.romme.position import Position, passed_kinds, position_of  # noqa: F401 (passed_kinds: its old home)
from rummy_env.agents.random_policy import RandomAgentBase
from rummy_env.agents.tie_breaks import KeyedTieBreaks
from rummy_env.core.cards import NUM_CARDS, NUM_RANKS, NUM_SUITS
from rummy_env.romme import melds as M
from rummy_env.core.game import BatchPolicy
from rummy_env.romme.cards import JOKER, NUM_KINDS, penalty_values
from rummy_env.romme.game import (
    COMMIT, DISCARD, DRAW_STOCK, JOKER_AS, LAYOFF, LAYOFF_JOKER, PICK, SWAP, TAKE_DISCARD, Phase,
)
from rummy_env.romme.rules import RommeRules

GAME = "romme"


class RommeRandomAgent(RandomAgentBase):
    """``random``: a uniformly random legal action, the ``floor(u * k)``-th of the k legal
    actions with ``u`` the counter-based draw of its key and decision index
    (``rummy_env.agents.draws``), so that its array policy picks the same in tournaments
    played many hands at once on the vector engine (``rummy_env.agents.random_policy``).
    Every masked-in Rommé action can be completed, so random play always finishes its turns.
    It reads the mask alone (an engine's rows have no information sets)."""

    game = GAME
    needs_information = False


# ----------------------------------------------------------------------------- helpers


@functools.lru_cache(maxsize=1024)
def _query(rules: RommeRules, points: int, need_run: bool) -> RommeRules:
    """The rules with another threshold: what is left to reach this turn."""
    return rules.replace(come_out_points=max(0, int(points)), come_out_needs_run=bool(need_run))


_EVERY_KIND = np.ones(NUM_KINDS, dtype=np.uint8)


@functools.lru_cache(maxsize=1 << 14)
def _accepts(meld: M.Meld, rules: RommeRules) -> frozenset:
    """The natural kinds a table meld takes as a lay-off."""
    return frozenset(k for k, _ in M.layoffs(meld, _EVERY_KIND, rules) if k != JOKER)


def _arrange(hand: np.ndarray, rules: RommeRules, points: int, need_run: bool, need: Optional[int],
             keep: int) -> Optional[M.Arrangement]:
    """The least-penalty arrangement of ``hand`` worth ``points`` (a run among them if
    ``need_run``), using a card of kind ``need``, leaving ``keep`` cards; None if none."""
    if need is not None and hand[need] == 0:
        return None
    return M.come_out(hand, _query(rules, points, need_run), need_card=need, keep=keep)


def _near(hand: np.ndarray, kind: int) -> int:
    """How many cards of ``hand`` make half a meld with a natural card of ``kind``: the
    same rank in another suit, or the same suit at most two ranks away."""
    if kind == JOKER:
        return 0
    suit, rank = divmod(kind, NUM_RANKS)
    count = sum(1 for s in range(NUM_SUITS) if s != suit and hand[s * NUM_RANKS + rank])
    for d in (-2, -1, 1, 2):
        if 0 <= rank + d < NUM_RANKS and hand[suit * NUM_RANKS + rank + d]:
            count += 1
    return count


# ----------------------------------------------------------------------------- the heuristic


class RommeHeuristicAgent(KeyedTieBreaks, Agent):
    """``heuristic``: scripted play (see the module docstring)."""

    name = "heuristic"
    game = GAME

    def __init__(self, seed: Optional[int] = None, partial_weight: float = 3.0, danger_weight: float = 5.0,
                 joker_hold: int = 3) -> None:
        super().__init__(seed)
        for key, value in (("partial_weight", partial_weight), ("danger_weight", danger_weight),
                           ("joker_hold", joker_hold)):
            if not value >= 0:
                raise ValueError(f"{key} must be >= 0, got {value}")
        self.partial_weight = float(partial_weight)
        self.danger_weight = float(danger_weight)
        self.joker_hold = int(joker_hold)

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        infoset, rules = game_input(self, observation, info)
        legal = legal_actions(observation).tolist()
        if len(legal) == 1:
            return legal[0]
        return self.decide(position_of(infoset, rules), infoset.phase, rules, legal, self.rng)

    def batch_policy(self) -> Optional[BatchPolicy]:
        """The array version (``rummy_env.agents.romme.heuristic_vector``), with this agent's
        settings and, per game, the tie-breaks of its generator seeded as the game seeds it."""
        from rummy_env.agents.romme.heuristic_vector import HeuristicPolicy

        twin = RommeHeuristicAgent(0, self.partial_weight, self.danger_weight, self.joker_hold)
        return HeuristicPolicy(self.partial_weight, self.danger_weight, self.joker_hold, twin.decide)

    def decide(self, pos: Position, phase: Phase, rules: RommeRules, legal: list[int], rng: Any) -> int:
        """The move at ``pos`` (in ``phase``) among ``legal`` (two or more, increasing), ties
        broken by ``rng.choice``: what ``act`` plays, and the array policy per game."""
        if phase == Phase.DRAW:
            if TAKE_DISCARD in legal and self._wants_top(pos, rules):
                return TAKE_DISCARD
            return DRAW_STOCK if DRAW_STOCK in legal else legal[0]
        legal_set = set(legal)
        planned = self._plan(pos, rules, legal_set)
        if planned is not None and planned in legal_set:
            return planned
        discards = [a for a in legal if DISCARD <= a < PICK]
        if discards:
            return self._discard(pos, rules, discards, rng)
        return int(rng.choice(legal))

    # ------------------------------------------------------------------ drawing

    def _wants_top(self, info: Position, rules: RommeRules) -> bool:
        top = info.top
        if top == JOKER:
            return True
        out = info.came_out[info.player]
        if not out and rules.take_discard_before_out == "meld":
            return True  # legal only if the hand can come out with it now
        hand = info.hand
        more = hand.copy()
        more[top] += 1
        if not out and M.can_come_out(more, rules, need_card=top):
            return True
        before, after = M.least_penalty(np.stack([hand, more]), rules).tolist()
        if after < before + int(penalty_values(rules)[top]):
            return True  # it joins a meld
        return out and any(top in _accepts(m, rules) for m in info.table)

    # ------------------------------------------------------------------ the turn's plan

    def _plan(self, info: Position, rules: RommeRules, legal: set[int]) -> Optional[int]:
        """The next step of the best plan for the rest of the turn (None: discard now)."""
        p = info.player
        hand = info.hand
        keep = 0 if rules.go_out_without_discard else 1
        out = info.came_out[p]
        taken = info.taken
        need = taken if info.must_meld_taken else None
        debt = info.joker_debt
        points = 0 if out else rules.come_out_points - info.turn_points
        need_run = not out and rules.come_out_needs_run and not info.turn_run
        if info.pending:
            return self._continue_meld(info, rules, hand, points, need_run, need, keep)
        if out and not debt:
            swap = self._swap(info, rules, hand, keep, legal)
            if swap is not None:
                return swap
        arrangement = _arrange(hand, rules, points, need_run, need, keep)
        if arrangement is None:
            return None
        if arrangement.melds:
            meld = arrangement.melds[0]
            return PICK + meld.naturals[0]
        if not out:
            return None
        left = arrangement.left_counts()
        layoffs = [a for a in legal if LAYOFF <= a < LAYOFF_JOKER and left[(a - LAYOFF) % NUM_CARDS]]
        if layoffs:
            pen = penalty_values(rules)
            return max(layoffs, key=lambda a: (int(pen[(a - LAYOFF) % NUM_CARDS]), -a))
        if debt or (left[JOKER] and int(hand.sum()) <= self.joker_hold):
            jokers = sorted(a for a in legal if LAYOFF_JOKER <= a < SWAP)
            if jokers:
                return jokers[0]
        return None

    def _continue_meld(self, info: Position, rules: RommeRules, hand: np.ndarray, points: int,
                       need_run: bool, need: Optional[int], keep: int) -> Optional[int]:
        """The next card of the meld being built (or commit it): the completion after
        which the rest of the hand is left with the least penalty."""
        nat = tuple(sorted(k for c, k in info.pending if c != JOKER))
        jok = tuple(sorted(k for c, k in info.pending if c == JOKER))
        best, best_key = None, None
        for c in M.completions(nat, jok, hand, rules):
            rest = hand.copy()
            for k in c.extra:
                rest[k] -= 1
            rest[JOKER] -= c.extra_jokers
            used = need is None or need in nat or need in c.extra or (need == JOKER and (jok or c.extra_jokers))
            arrangement = _arrange(rest, rules, points - c.value, need_run and not c.run, None if used else need, keep)
            if arrangement is None:
                continue
            key = (arrangement.penalty, -(arrangement.value + c.value))
            if best_key is None or key < best_key:
                best, best_key = c, key
        if best is None:
            return None
        if best.extra:
            return PICK + best.extra[0]
        if best.extra_jokers:
            meld = best.meld()
            if meld.kind == "set":
                held = {k // NUM_RANKS for k in nat + jok}
                stands = [s * NUM_RANKS + meld.rank for s in range(NUM_SUITS) if s not in held]
            else:
                stands = [k for k in meld.stands_for if k not in jok]
            return JOKER_AS + stands[0]
        return COMMIT

    def _swap(self, info: Position, rules: RommeRules, hand: np.ndarray, keep: int,
              legal: set[int]) -> Optional[int]:
        """A swap after which the joker joins a meld and the hand's least penalty falls."""
        swaps = sorted(a for a in legal if a >= SWAP)
        if not swaps:
            return None
        now = _arrange(hand, rules, 0, False, None, keep)
        best, best_pen = None, now.penalty if now is not None else 1 << 30
        for a in swaps:
            k = (a - SWAP) % NUM_CARDS
            after = hand.copy()
            after[k] -= 1
            after[JOKER] += 1
            arrangement = _arrange(after, rules, 0, False, None, keep)
            if arrangement is None or JOKER in arrangement.left:
                continue
            if arrangement.penalty < best_pen:
                best, best_pen = a, arrangement.penalty
        return best

    # ------------------------------------------------------------------ discarding

    def _discard(self, info: Position, rules: RommeRules, discards: list[int], rng: Any) -> int:
        hand = info.hand
        kinds = [a - DISCARD for a in discards]
        rests = np.repeat(hand[None, :], len(kinds), axis=0)
        rests[np.arange(len(kinds)), kinds] -= 1
        left = M.least_penalty(rests, rules).astype(float)
        nxt = (info.player + 1) % info.num_players
        table = set().union(*(_accepts(m, rules) for m in info.table)) if info.table else set()
        known = info.known_next
        passed = info.passed_next() if self.danger_weight else set()
        costs = []
        for i, k in enumerate(kinds):
            cost = left[i] + self.partial_weight * min(_near(rests[i], k), 2)
            if k == JOKER:
                cost += 1000.0
            elif self.danger_weight:
                wanted = (info.came_out[nxt] and k in table) or _near(known, k) > 0
                cost += self.danger_weight * (float(wanted) - (0.5 if k in passed else 0.0))
            costs.append(cost)
        costs_arr = np.array(costs)
        best = np.flatnonzero(costs_arr <= costs_arr.min() + 1e-9)
        return discards[int(rng.choice(best))]
