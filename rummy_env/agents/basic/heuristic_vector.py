"""Basic Rummy's ``heuristic`` over many games at once: its array policy, move for move
the scripted agent's (``RummyHeuristicAgent.act``, ``rummy_env.agents.basic.agents``).

Why: tournaments and training play thousands of hands with it; one game at a time each
move costs a few hundred microseconds of Python. Here one call decides for every game
given, as array operations over the vector engine's arrays (``rummy_env.basic.vector``):

- draw: take the top discard when it makes a meld with the hand
  (``melds.meld_completions``) or fits the table and the player may lay off; else the
  first legal draw;
- play: the first legal meld of the hand's least-deadwood arrangement (compiled:
  ``rummy_env.agents.basic.heuristic_jit``; else ``melds.best_arrangement`` per hand),
  else the lay-off of the highest card value (lowest id on ties), else the discard of
  least score: deadwood left (``melds.discard_deadwood``, all hands at once) plus
  ``partial_weight`` per partial meld broken (at most 2) plus ``danger_weight`` if the
  card fits the table and again if it melds with cards known to be in another hand.

The tie-break is the agent's own: ``self.rng.choice`` over the equally scored discards,
its generator made from its seed for each game. A tournament makes the agent per game
with a seed whose 64-bit key (``rummy_env.agents.draws.key_of``) it passes the policy,
so the policy keeps, per engine, game row and seat, ``np.random.default_rng(key)`` made
anew at the seat's first decision of the hand (decision 0) and draws from it exactly
where the agent does: only at discards with more than one best card (a choice among one
draws nothing from a numpy generator), the index as ``integers(0, k)``, which is how
``Generator.choice`` draws it (tests hold both). It is the one stateful part, and asking
a row's decisions out of order is refused.

Without the compiled engine (numba missing or ``RUMMY_ENV_NO_NUMBA=1``) the batch
player runs the pure hands in a loop (``StatesEngine``); the policy then reads each
row's information set and makes the same moves through the same array code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, NamedTuple, Optional

import numpy as np

from rummy_env.agents.tie_breaks import SeatGenerators
from rummy_env.basic.game import DISCARD, LAYOFF, MAX_TABLE_MELDS, MELD, TAKE_DISCARD, Phase
from rummy_env.basic.rules import BasicRummyRules
from rummy_env.basic.vector import VectorBasicRummy
from rummy_env.core import melds
from rummy_env.core.cards import NUM_CARDS, NUM_RANKS, card_value
from rummy_env.core.compiled import Compiled
from rummy_env.core.meld_table import meld_table

__all__ = ["HeuristicPolicy", "Positions", "best_meld_ids", "heuristic_actions", "positions_of"]

MAX_MELDS = 4  # melds of a hand of at most 13 cards (the meld solver's limit), each of 3 cards or more
_ONE = np.uint64(1)
_BITS = _ONE << np.arange(NUM_CARDS, dtype=np.uint64)


def _partner_masks() -> np.ndarray:
    """(52,) uint64: per card c, the cards that make a partial meld with it (same rank, or
    same suit within two ranks: the agent's ``_partners``), c itself left out."""
    rank, suit = np.arange(NUM_CARDS) % NUM_RANKS, np.arange(NUM_CARDS) // NUM_RANKS
    same_rank = rank[:, None] == rank[None, :]
    near = (suit[:, None] == suit[None, :]) & (np.abs(rank[:, None] - rank[None, :]) <= 2)
    partners = (same_rank | near) & ~np.eye(NUM_CARDS, dtype=bool)
    return np.bitwise_or.reduce(np.where(partners, _BITS, np.uint64(0)), axis=1)


_PARTNERS = _partner_masks()
# per lay-off action (LAYOFF + 52 * slot + card): higher for a higher card value, then a lower id
_LAYOFF_ORDER = (np.array([card_value(c) for c in range(NUM_CARDS)] * MAX_TABLE_MELDS) * 4096
                 - np.arange(NUM_CARDS * MAX_TABLE_MELDS))


class Positions(NamedTuple):
    """What the heuristic reads of n positions, the player to move's side of each game:
    all of it known to that player."""

    phase: np.ndarray  # (n,) Phase values
    mask: np.ndarray  # (n, NUM_ACTIONS) legal actions, 0/1
    hand: np.ndarray  # (n,) uint64
    top: np.ndarray  # (n,) the discard pile's top card, -1 when empty
    has_melded: np.ndarray  # (n,) bool: the player to move has laid down a meld this hand
    targets: np.ndarray  # (n,) uint64 cards that could be laid off onto the table now
    others: np.ndarray  # (n,) uint64 cards known to be in the other players' hands


def positions_of(env: Any, rows: np.ndarray) -> Positions:
    """The positions of the players to move in games ``rows`` of a Basic Rummy vector
    engine: ``VectorBasicRummy``'s arrays, or the information sets of the pure hands of
    the engine without numba (``StatesEngine``)."""
    rows = np.asarray(rows, dtype=np.intp)
    mask = env.action_mask()
    if not (rows.size == env.num_envs and np.array_equal(rows, np.arange(rows.size))):  # every game: no copy
        mask = mask[rows]
    if isinstance(env, VectorBasicRummy):
        p = env.current[rows].astype(np.intp)
        length = env.pile_len[rows].astype(np.intp)
        top = np.where(length > 0, env.pile[rows, np.maximum(length - 1, 0)], -1)
        on_table = np.arange(MAX_TABLE_MELDS) < env.num_table[rows, None]
        targets = np.bitwise_or.reduce(np.where(on_table, env.table_ext[rows], np.uint64(0)), axis=1)
        known = env.known[rows]
        others = np.bitwise_or.reduce(np.where(np.arange(env.num_players) != p[:, None], known, np.uint64(0)), axis=1)
        return Positions(env.phase[rows], mask, env.hands[rows, p], top.astype(np.intp), env.has_melded[rows, p],
                         targets, others)
    infos = [env.states[g].information_set(env.states[g].current_player) for g in rows.tolist()]
    others = [0] * len(infos)
    for i, info in enumerate(infos):
        for seat, known in enumerate(info.known):
            if seat != info.player:
                others[i] |= known
    return Positions(np.array([int(i.phase) for i in infos], dtype=np.int8), mask,
                     np.array([i.hand for i in infos], dtype=np.uint64),
                     np.array([i.discard_pile[-1] if i.discard_pile else -1 for i in infos], dtype=np.intp),
                     np.array([i.has_melded[i.player] for i in infos], dtype=bool),
                     np.array([i.layoff_targets for i in infos], dtype=np.uint64), np.array(others, dtype=np.uint64))


def _best_meld_ids_python(hands: np.ndarray, aces_high: bool) -> np.ndarray:
    """``best_meld_ids`` one hand at a time through ``melds.best_arrangement``, as the agent
    computes it (the reference of the compiled kernel, and the path without it)."""
    index = meld_table(aces_high).index
    out = np.full((len(hands), MAX_MELDS), -1, dtype=np.int64)
    for i, hand in enumerate(hands.tolist()):
        ids = [index[m.cards] for m in melds.best_arrangement(hand, aces_high=aces_high).melds]
        out[i, : len(ids)] = ids
    return out


def best_meld_ids(hands: np.ndarray, aces_high: bool) -> np.ndarray:
    """(n, ``MAX_MELDS``) int64: the meld-table ids of the melds of each hand's least-deadwood
    arrangement (``melds.best_arrangement``), in its order, -1 after the last."""
    kernels = KERNELS.get()
    hands = np.asarray(hands, dtype=np.uint64)
    if kernels is None:
        return _best_meld_ids_python(hands, aces_high)
    return kernels.best_melds(hands, aces_high, np.full((hands.size, MAX_MELDS), -1, dtype=np.int64))


def heuristic_actions(env: Any, rows: np.ndarray, partial_weight: float, danger_weight: float,
                      choose: Callable[[int, list[int]], int]) -> np.ndarray:
    """The heuristic's move (int64) for the player to move in games ``rows`` of ``env``.
    ``choose(i, discards)`` breaks a tie among the equally scored discard actions (ids in
    increasing order, two or more) of ``rows[i]``: the agent's ``rng.choice``."""
    rows = np.asarray(rows, dtype=np.intp)
    rules: BasicRummyRules = env.rules
    pos = positions_of(env, rows)
    n = rows.size
    mask = pos.mask
    out = np.zeros(n, dtype=np.int64)
    draws = np.flatnonzero(pos.phase == Phase.DRAW)
    out[draws] = np.argmax(mask[draws, :MELD], axis=1)  # the first legal draw, unless the top is wanted
    draw = draws[mask[draws, TAKE_DISCARD] == 1]
    if draw.size:
        top_bit = _ONE << pos.top[draw].astype(np.uint64)
        completes = melds.meld_completions(pos.hand[draw], aces_high=rules.aces_high) & top_bit
        may_lay_off = pos.has_melded[draw] | (not rules.layoff_needs_own_meld)
        fits = may_lay_off & ((pos.targets[draw] & top_bit) != 0)
        out[draw[(completes != 0) | fits]] = TAKE_DISCARD
    play = pos.phase == Phase.PLAY
    decided = np.zeros(n, dtype=bool)
    meld = np.flatnonzero(play & mask[:, MELD:LAYOFF].any(axis=1))
    if meld.size:  # the first legal meld of the best arrangement
        wanted = best_meld_ids(pos.hand[meld], rules.aces_high)
        legal = (wanted >= 0) & (mask[meld[:, None], MELD + np.maximum(wanted, 0)] == 1)
        first = np.argmax(legal, axis=1)
        found = legal.any(axis=1)
        out[meld[found]] = MELD + wanted[found, first[found]]
        decided[meld[found]] = True
    lay = np.flatnonzero(play & ~decided & mask[:, LAYOFF:].any(axis=1))
    if lay.size:  # the highest card value, the lowest id on ties
        out[lay] = LAYOFF + np.argmax(np.where(mask[lay, LAYOFF:] == 1, _LAYOFF_ORDER, np.iinfo(np.int64).min), axis=1)
        decided[lay] = True
    d = np.flatnonzero(play & ~decided)
    if d.size:
        out[d] = _discards(pos, d, rules, partial_weight, danger_weight, choose)
    return out


def _discards(pos: Positions, d: np.ndarray, rules: BasicRummyRules, partial_weight: float, danger_weight: float,
              choose: Callable[[int, list[int]], int]) -> np.ndarray:
    """The discard of positions ``d``: the least score (module docstring), in the agent's
    arithmetic order so that equal scores come out equal."""
    hand = pos.hand[d]
    partners = np.minimum(np.bitwise_count(hand[:, None] & _PARTNERS), 2)  # the cards left that pair with each
    score = melds.discard_deadwood(hand, aces_high=rules.aces_high).astype(np.float64) + partial_weight * partners
    score = np.where((pos.targets[d, None] & _BITS) != 0, score + danger_weight, score)
    feeds = melds.meld_completions(pos.others[d], aces_high=rules.aces_high)
    score = np.where((feeds[:, None] & _BITS) != 0, score + danger_weight, score)
    legal = pos.mask[d, DISCARD:MELD] == 1
    score = np.where(legal, score, np.inf)
    ties = legal & (score <= score.min(axis=1, keepdims=True) + 1e-9)
    out = DISCARD + np.argmax(ties, axis=1)
    count = ties.sum(axis=1)
    tied = np.flatnonzero(count > 1)
    if tied.size:  # the candidates of each, as lists of ids in increasing order (one nonzero for all)
        cards = (DISCARD + np.nonzero(ties[tied])[1]).tolist()
        ends = np.cumsum(count[tied]).tolist()
        for i, start, end in zip(tied.tolist(), [0, *ends[:-1]], ends):
            out[i] = choose(int(d[i]), cards[start:end])
    return out


@dataclass(frozen=True)
class HeuristicPolicy:
    """``heuristic`` with its settings (``RummyHeuristicAgent``) over many games
    (``rummy_env.core.game.BatchPolicy``), its tie-breaks the agent's generator per game
    (module docstring). Equal when the settings are: the batch player asks it once a
    step for all its games, every seat's generators kept apart."""

    partial_weight: float
    danger_weight: float
    observation: ClassVar[Optional[str]] = None
    # the tie-breaks' generators per engine, row and seat (``rummy_env.agents.tie_breaks``)
    _tie_breaks: SeatGenerators = field(default_factory=SeatGenerators, init=False, compare=False, repr=False)

    def __call__(self, env: Any, rows: np.ndarray, keys: np.ndarray, decisions: np.ndarray) -> np.ndarray:
        seats = self._tie_breaks.ask(env, rows, keys, decisions)

        def choose(i: int, discards: list[int]) -> int:
            return seats[i].choice(discards)

        return heuristic_actions(env, rows, self.partial_weight, self.danger_weight, choose)


def _kernels_agree(module: Any) -> str:
    """'' when the compiled meld choice equals ``best_arrangement``'s on a few hundred hands
    of 3 to 13 cards under both ace rules (sets of four, many runs), else what differs."""
    rng = np.random.default_rng(0)
    hands = []
    for size in range(3, 14):
        for _ in range(30):
            hands.append(int(np.bitwise_or.reduce(_BITS[rng.choice(NUM_CARDS, size, replace=False)])))
            ranks = rng.choice(NUM_RANKS, 3, replace=False)  # sets and runs crossing: the choices of set cards
            crossing = sum(1 << (s * NUM_RANKS + int(r)) for r in ranks for s in range(4))
            hands.append(int(np.bitwise_or.reduce(_BITS[rng.choice(NUM_CARDS, 1)])) | crossing)
    array = np.array(hands, dtype=np.uint64)
    for aces_high in (False, True):
        got = module.best_melds(array, aces_high, np.full((array.size, MAX_MELDS), -1, dtype=np.int64))
        if not np.array_equal(got, _best_meld_ids_python(array, aces_high)):
            return "they disagree with melds.best_arrangement"
    return ""


def _load_kernels() -> Any:
    from rummy_env.agents.basic import heuristic_jit

    return heuristic_jit


# the compiled meld choice (``rummy_env.agents.basic.heuristic_jit``), used where the meld solver's
# kernels are and it agrees with ``best_arrangement``; decided once per process (``rummy_env.core.compiled``)
KERNELS = Compiled("Basic Rummy heuristic's numba kernel", _load_kernels, _kernels_agree,
                   "its meld choice runs melds.best_arrangement per hand", needs=melds.KERNELS)
