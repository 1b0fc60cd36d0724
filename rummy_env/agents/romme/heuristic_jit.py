"""Rommé's ``heuristic`` compiled (numba): its decisions for many games of the vector engine
in one call, move for move ``RommeHeuristicAgent.decide``.

Why: the agent plans each step from the position with the exact solver, and in Python a
decision costs about 150 µs of the interpreter around the solver's compiled searches (the
arrangement rebuilt as objects, questions checked, hashed and cached, the costs of a
discard listed). Its array policy (``heuristic_vector``) plays tournaments, the search's
playouts (so Rommé's ``expert``) and the training's opponents, where that cost is most of
the time. Here the same plans are loops over the engine's arrays that call the solver's
own compiled search (``melds_jit._hand`` and ``_walk``, the meld being built's
``legal_jit._completions``) in the order the agent asks its questions, so the arrangement
chosen among equals is the same one.

What stays in Python is the tie-breaks, which draw from each game's seat generator
(``rummy_env.agents.tie_breaks``): a decision is a move, or the moves tied for the best
discard (``TIES``), or "any legal move" (``ANY``, the agent's last resort), and the
caller draws where the agent draws. ``self_check`` (run once per process, before the
kernel is used: ``heuristic_vector.HEURISTIC_KERNEL``) plays a few hundred decisions at 2
to 6 players under several rules and compares every one with the agent's ``decide``;
tests do the same over thousands.

Scratch: the game's mask kernels' thread scratch (``legal_jit.thread_scratch``), used as
they use it (each search stamps the state map afresh; the completions' rows are
temporary), so the two never need clearing between calls.
"""

from __future__ import annotations

import sys
from typing import Any, Sequence

import numba
import numpy as np

from rummy_env.core.cards import NUM_CARDS, NUM_RANKS, NUM_SUITS
from rummy_env.core.compiled import refresh_cache
from rummy_env.romme import legal_jit as L
from rummy_env.romme import melds_jit as K
from rummy_env.romme.melds_jit import _b, _i
from rummy_env.romme.cards import JOKER, NUM_KINDS
from rummy_env.romme.game import (
    COMMIT, DISCARD, DRAW_STOCK, JOKER_AS, LAYOFF, LAYOFF_JOKER, PICK, SWAP, TAKE_DISCARD, Phase,
)
from rummy_env.romme.vector_jit import (
    CUR, DEBT, HELD, JOKM, MUST, NATM, NUM_TABLE, PASSED_UPCARD, PHASE, PILE_LEN, POINTS, RUN, TAKEN, UP_STAYS,
)

# what a decision is besides a move (``decide_rows``' ``moves``)
TIES = -2  # a draw among the moves in ``ties`` (the discards tied for the least cost)
ANY = -3  # a draw among every legal move (no plan and no discard: the agent's last resort)
MAX_TIES = NUM_KINDS  # at most one discard per kind

_NO_ARRANGEMENT = np.int64(-1)
_DRAW = int(Phase.DRAW)


@numba.njit(cache=True)
def _search(counts, target, need_run, need, keep, by_value, flags, pen, scratch):
    """The solver's search of one hand (``melds_jit._hand``) with the scratch's state map
    stamped afresh (or a map of its own for a hand of more states): its results and the
    state map it used (``_walk`` reads it)."""
    scratch[L.STAMP_AT] += 1
    sid = scratch[L.STAMP_AT]
    smap = scratch[L.SMAP_AT:L.TAB_AT].reshape((L._TAB_ROWS, 2))
    space = K._space(counts)
    if space > smap.shape[0]:
        smap = np.zeros((space, 2), np.int64)
        sid = 1
    got = K._hand(counts, flags[L.C_WRAP] != 0, flags[L.C_ADJACENT] != 0, flags[L.C_MORE] != 0, pen, target,
                  need_run, need, keep, by_value, sid, smap,
                  scratch[L.TAB_AT:L.RESTS_AT].reshape((L._TAB_ROWS, L._MAX_CONTEXTS, 4)),
                  scratch[L.WHERE_AT:L.ROWS_AT])
    return got, smap


@numba.njit(cache=True)
def _least_penalty(counts, flags, pen, scratch):
    """``melds.least_penalty`` of one hand."""
    got, smap = _search(counts, _i(0), _b(False), _i(-1), _i(0), _b(False), flags, pen, scratch)
    top, full, tab = got[0], got[1], got[2]
    return tab[top, full, K.T_PEN]


@numba.njit(cache=True)
def _can_come_out(counts, need, keep, flags, pen, scratch):
    """``melds.can_come_out`` of one hand under the rules' own threshold and run."""
    points = flags[L.C_POINTS]
    got, smap = _search(counts, points, flags[L.C_NEEDS_RUN] != 0, need, keep, _b(True), flags, pen, scratch)
    top, full, tab = got[0], got[1], got[2]
    return tab[top, full, K.T_CHOICE] != K.NONE and tab[top, full, K.T_VAL] >= points


@numba.njit(cache=True)
def _arrangement(counts, target, need_run, need, keep, flags, pen, scratch, left):
    """``melds_jit._arrangement``: the best arrangement meeting the conditions, as (penalty,
    value, the first natural kind of its first meld, -1 for no meld); penalty -1 if there
    is none. ``left`` gets the kind counts of the cards it leaves in hand."""
    got, smap = _search(counts, target, need_run, need, keep, _b(False), flags, pen, scratch)
    top, full, tab, hs, cand, code, kinds, run, root = got
    if tab[top, full, K.T_CHOICE] == K.NONE:
        return _NO_ARRANGEMENT, _NO_ARRANGEMENT, _NO_ARRANGEMENT
    melded, rest = K._walk(top, full, tab, hs, cand, smap, root)
    first = np.int64(-1)
    if melded.shape[0]:
        ci = melded[0]
        a, b, c, d = code[ci, 0], code[ci, 1], code[ci, 2], code[ci, 3]
        if run[ci]:  # a run's naturals in run order
            for t in range(c):
                if not (d >> t) & 1:
                    first = a * NUM_RANKS + (b + t) % NUM_RANKS
                    break
        else:  # a set's in suit order
            for s in range(NUM_SUITS):
                if (b >> s) & 1:
                    first = s * NUM_RANKS + a
                    break
    for k in range(NUM_KINDS):
        left[k] = 0
    for x in rest:
        left[JOKER if x < 0 else kinds[x]] += 1
    return tab[top, full, K.T_PEN], tab[top, full, K.T_VAL], first


@numba.njit(cache=True)
def _come_out(counts, target, need_run, need, keep, flags, pen, scratch, left):
    """The agent's ``_arrange``: ``melds.come_out`` under a threshold of ``target`` points
    (a run among the melds if ``need_run``) using a card of kind ``need`` (-1: none),
    leaving ``keep`` cards, as ``_arrangement`` gives it. The same three searches as
    ``melds_jit.come_out``, asked in an order that skips those whose answer is known: an
    arrangement that meets the other conditions and reaches the points is the answer
    (so the threshold is feasible); none meeting them means none at all."""
    if need >= 0 and counts[need] == 0:
        return _NO_ARRANGEMENT, _NO_ARRANGEMENT, _NO_ARRANGEMENT
    penalty, value, first = _arrangement(counts, _i(0), need_run, need, keep, flags, pen, scratch, left)
    if penalty < 0 or value >= target:
        return penalty, value, first
    got, smap = _search(counts, target, need_run, need, keep, _b(True), flags, pen, scratch)
    top, full, tab = got[0], got[1], got[2]
    if tab[top, full, K.T_CHOICE] == K.NONE or tab[top, full, K.T_VAL] < target:
        return _NO_ARRANGEMENT, _NO_ARRANGEMENT, _NO_ARRANGEMENT
    return _arrangement(counts, target, need_run, need, keep, flags, pen, scratch, left)


@numba.njit(cache=True)
def _near(counts, kind):
    """The agent's ``_near``: the cards of ``counts`` that make half a meld with a natural
    card of ``kind`` (its rank in another suit, its suit at most two ranks away)."""
    if kind == JOKER:
        return 0
    suit, rank = kind // NUM_RANKS, kind % NUM_RANKS
    count = 0
    for s in range(NUM_SUITS):
        if s != suit and counts[s * NUM_RANKS + rank]:
            count += 1
    for d in (-2, -1, 1, 2):
        if 0 <= rank + d < NUM_RANKS and counts[suit * NUM_RANKS + rank + d]:
            count += 1
    return count


@numba.njit(cache=True)
def _table_takes(codes, slots, flags):
    """The natural kinds any table meld takes as a lay-off (the agent's ``_accepts``), as a mask."""
    takes = np.int64(0)
    for slot in range(slots):
        takes |= K.table_meld_accepts(codes[slot, 0], codes[slot, 1], codes[slot, 2], codes[slot, 3], codes[slot, 4],
                                      flags[L.C_WRAP] != 0, flags[L.C_ADJACENT] != 0, flags[L.C_MORE] != 0)[0]
    return takes


@numba.njit(cache=True)
def _extra_less(x, y):
    """Whether the kinds of mask ``x``, as an increasing tuple, sort before those of ``y``."""
    while True:
        if x == 0:
            return y != 0
        if y == 0:
            return False
        lx, ly = L._lowest(x), L._lowest(y)
        if lx != ly:
            return lx < ly
        x &= x - 1
        y &= y - 1


@numba.njit(cache=True)
def _wants_top(hand, top, out, take_meld, keep, codes, slots, flags, pen, scratch):
    """The agent's ``_wants_top``: take the discard pile's top card?"""
    if top == JOKER:
        return True
    if not out and take_meld:
        return True  # legal only if the hand can come out with it now
    more = hand.copy()
    more[top] += 1
    if not out and _can_come_out(more, top, keep, flags, pen, scratch):
        return True
    if _least_penalty(more, flags, pen, scratch) < _least_penalty(hand, flags, pen, scratch) + pen[top]:
        return True  # it joins a meld
    return out and (_table_takes(codes, slots, flags) >> top) & 1 != 0


@numba.njit(cache=True)
def _continue_meld(hand, natm, jokm, points, need_run, need, keep, flags, pen, scratch, left):
    """The agent's ``_continue_meld``: the next card of the meld being built, or commit it
    (-1: no completion leaves a way to finish the turn)."""
    nn, nj = K._popcount(natm), K._popcount(jokm)
    rows, kept = L._completions(natm, jokm, nn, nj, hand, flags, scratch)
    m = kept.shape[0]
    order = np.empty(m, np.int64)  # ``melds.completions``' order: by (extra kinds, extra jokers, run)
    for i in range(m):
        r = kept[i]
        j = i
        while j > 0:
            q = order[j - 1]
            if not (_extra_less(rows[r, 1], rows[q, 1]) or (rows[r, 1] == rows[q, 1] and (
                    rows[r, 2] < rows[q, 2] or (rows[r, 2] == rows[q, 2] and rows[r, 0] < rows[q, 0])))):
                break
            order[j] = q
            j -= 1
        order[j] = r
    rest = np.empty(NUM_KINDS, np.int64)
    best = -1
    best_pen = best_val = np.int64(0)
    for i in range(m):
        r = order[i]
        run, extra, extra_jokers, value = rows[r, 0], rows[r, 1], rows[r, 2], rows[r, 3]
        for k in range(NUM_KINDS):
            rest[k] = hand[k]
        for k in range(NUM_CARDS):
            if (extra >> k) & 1:
                rest[k] -= 1
        rest[JOKER] -= extra_jokers
        used = need < 0 or (need < NUM_CARDS and ((natm >> need) & 1 or (extra >> need) & 1)) or (
            need == JOKER and (nj > 0 or extra_jokers > 0))
        penalty, total, first = _come_out(rest, max(0, points - value), need_run and run == 0, -1 if used else need,
                                          keep, flags, pen, scratch, left)
        if penalty < 0:
            continue
        total = -(total + value)
        if best < 0 or penalty < best_pen or (penalty == best_pen and total < best_val):
            best, best_pen, best_val = r, penalty, total
    if best < 0:
        return -1
    if rows[best, 1]:
        return PICK + L._lowest(rows[best, 1])
    if rows[best, 2]:
        if rows[best, 0] == 0:  # a set: the first suit the meld's cards leave missing
            held = 0
            for k in range(NUM_CARDS):
                if ((natm | jokm) >> k) & 1:
                    held |= 1 << (k // NUM_RANKS)
            for s in range(NUM_SUITS):
                if not (held >> s) & 1:
                    return JOKER_AS + s * NUM_RANKS + rows[best, 4]
        else:  # a run: the first place a joker stands that no joker of the meld stands for yet
            suit, start, length, places = rows[best, 4], rows[best, 5], rows[best, 6], rows[best, 7]
            for t in range(length):
                if (places >> t) & 1:
                    kind = suit * NUM_RANKS + (start + t) % NUM_RANKS
                    if not (jokm >> kind) & 1:
                        return JOKER_AS + kind
        return -1
    return COMMIT


@numba.njit(cache=True)
def _swap(hand, keep, mask, slots, flags, pen, scratch, left):
    """The agent's ``_swap``: the first legal swap after which the joker joins a meld and
    the hand's least penalty falls most (-1: none)."""
    best = -1
    best_pen = np.int64(-1)
    after = np.empty(NUM_KINDS, np.int64)
    for a in range(SWAP, SWAP + NUM_CARDS * slots):
        if not mask[a]:
            continue
        if best_pen < 0:  # the first legal swap: the hand's penalty now
            penalty = _come_out(hand, _i(0), _b(False), _i(-1), keep, flags, pen, scratch, left)[0]
            best_pen = penalty if penalty >= 0 else np.int64(1) << 30
        k = (a - SWAP) % NUM_CARDS
        for x in range(NUM_KINDS):
            after[x] = hand[x]
        after[k] -= 1
        after[JOKER] += 1
        penalty = _come_out(after, _i(0), _b(False), _i(-1), keep, flags, pen, scratch, left)[0]
        if penalty < 0 or left[JOKER] > 0:
            continue
        if penalty < best_pen:
            best, best_pen = a, penalty
    return best


@numba.njit(cache=True)
def _plan(hand, out, taken, must, debt, turn_points, turn_run, natm, jokm, joker_hold, mask, slots, flags, pen,
          scratch, left):
    """The agent's ``_plan``: the next step of the best plan for the rest of the turn (-1:
    discard now)."""
    keep = 0 if flags[L.C_NO_DISCARD] else 1
    need = taken if must else -1
    points = 0 if out else flags[L.C_POINTS] - turn_points
    need_run = not out and flags[L.C_NEEDS_RUN] != 0 and not turn_run
    if natm or jokm:
        return _continue_meld(hand, natm, jokm, points, need_run, need, keep, flags, pen, scratch, left)
    if out and not debt:
        swap = _swap(hand, keep, mask, slots, flags, pen, scratch, left)
        if swap >= 0:
            return swap
    penalty, value, first = _come_out(hand, max(0, points), need_run, need, keep, flags, pen, scratch, left)
    if penalty < 0:
        return -1
    if first >= 0:
        return PICK + first
    if not out:
        return -1
    best, best_pen = -1, np.int64(-1)
    for a in range(LAYOFF, LAYOFF + NUM_CARDS * slots):  # the highest penalty, then the lowest id
        k = (a - LAYOFF) % NUM_CARDS
        if mask[a] and left[k] and pen[k] > best_pen:
            best, best_pen = a, pen[k]
    if best >= 0:
        return best
    size = 0
    for k in range(NUM_KINDS):
        size += hand[k]
    if debt or (left[JOKER] and size <= joker_hold):
        for a in range(LAYOFF_JOKER, LAYOFF_JOKER + NUM_CARDS * slots):
            if mask[a]:
                return a
    return -1


@numba.njit(cache=True)
def _discard(hand, mask, nxt_out, table, known, passed, partial_weight, danger_weight, flags, pen, scratch, ties):
    """The agent's ``_discard``: the discards of least cost into ``ties`` (increasing);
    returns how many (0: no discard is legal)."""
    costs = np.empty(MAX_TIES, np.float64)
    kinds = np.empty(MAX_TIES, np.int64)
    rest = np.empty(NUM_KINDS, np.int64)
    n = 0
    for k in range(NUM_KINDS):
        if not mask[DISCARD + k]:
            continue
        for x in range(NUM_KINDS):
            rest[x] = hand[x]
        rest[k] -= 1
        cost = float(_least_penalty(rest, flags, pen, scratch)) + partial_weight * min(_near(rest, k), 2)
        if k == JOKER:
            cost += 1000.0
        elif danger_weight:
            wanted = (nxt_out and (table >> k) & 1 != 0) or _near(known, k) > 0
            cost += danger_weight * ((1.0 if wanted else 0.0) - (0.5 if (passed >> k) & 1 else 0.0))
        costs[n] = cost
        kinds[n] = k
        n += 1
    if n == 0:
        return 0
    low = costs[0]
    for i in range(1, n):
        low = min(low, costs[i])
    m = 0
    for i in range(n):
        if costs[i] <= low + 1e-9:
            ties[m] = DISCARD + kinds[i]
            m += 1
    return m


@numba.njit(cache=True)
def decide_rows(rows, st, hands, came_out, pile, codes, known, passed, mask, num_legal, legal_ids, num_players,
                take_meld, partial_weight, danger_weight, joker_hold, flags, pen, scratch, moves, ties, num_ties):
    """The agent's decision in each game ``rows[i]`` of the engine's arrays (``VectorRomme``:
    ``st``, ``hands``, ... and its mask, legal counts and ids) into ``moves[i]``: a move,
    or ``TIES`` with the tied discards in ``ties[i, :num_ties[i]]``, or ``ANY``."""
    hand = np.empty(NUM_KINDS, np.int64)
    left = np.empty(NUM_KINDS, np.int64)
    keep = 0 if flags[L.C_NO_DISCARD] else 1
    for i in range(rows.shape[0]):
        g = rows[i]
        num_ties[i] = 0
        if num_legal[g] == 1:
            moves[i] = legal_ids[g, 0]
            continue
        p = st[g, CUR]
        row = mask[g]
        for k in range(NUM_KINDS):
            hand[k] = hands[g, p, k]
        out = came_out[g, p] != 0
        slots = st[g, NUM_TABLE]
        table = codes[g]
        if st[g, PHASE] == _DRAW:
            top = np.int64(pile[g, st[g, PILE_LEN] - 1]) if st[g, PILE_LEN] else np.int64(-1)
            if row[TAKE_DISCARD] and _wants_top(hand, top, out, take_meld, keep, table, slots, flags, pen, scratch):
                moves[i] = TAKE_DISCARD
            else:
                moves[i] = DRAW_STOCK if row[DRAW_STOCK] else TAKE_DISCARD
            continue
        taken = st[g, TAKEN] if st[g, HELD] else np.int64(-1)
        planned = _plan(hand, out, taken, st[g, MUST] != 0, st[g, DEBT] != 0, st[g, POINTS], st[g, RUN] != 0,
                        st[g, NATM], st[g, JOKM], joker_hold, row, slots, flags, pen, scratch, left)
        if planned >= 0 and row[planned]:
            moves[i] = planned
            continue
        nxt = (p + 1) % num_players
        bits = passed[g, nxt]
        if danger_weight == 0:
            bits = 0
        elif (bits >> PASSED_UPCARD) & 1 and st[g, UP_STAYS] and st[g, PILE_LEN]:
            bits |= np.int64(1) << np.int64(pile[g, 0])  # the upcard let go by, while it lies at the bottom of the pile
        m = _discard(hand, row, came_out[g, nxt] != 0, _table_takes(table, slots, flags), known[g, nxt],
                     bits & ((np.int64(1) << NUM_KINDS) - 1), partial_weight, danger_weight, flags, pen, scratch,
                     ties[i])
        if m == 0:
            moves[i] = ANY
        elif m == 1:
            moves[i] = ties[i, 0]
        else:
            moves[i] = TIES
            num_ties[i] = m


def self_check() -> str:
    """'' when the kernel decides as ``RommeHeuristicAgent.decide`` at every decision of a
    few hundred moves at 2, 4 and 6 players under rules that reach its branches; else
    what differs."""
    return disagreement(sys.modules[__name__], moves=120)


class _Last:
    """A chooser that takes the last option and counts them where there are two or more
    (the self-check's tie-breaks: a choice among one draws nothing)."""

    def __init__(self) -> None:
        self.sizes: list[int] = []

    def choice(self, options: Sequence[Any]) -> Any:
        if len(options) > 1:
            self.sizes.append(len(options))
        return options[len(options) - 1]


def disagreement(kernel: Any, moves: int = 120, games: int = 8, players: Sequence[int] = (2, 4, 6),
                 seed: int = 0) -> str:
    """'' when ``kernel`` (``heuristic_jit``) decides as the agent's ``decide`` in every
    game of compiled engines at each table size for ``moves`` steps, under the rules that
    reach the engine's branches (``vector._CHECK_RULES``) with the default settings and
    with the discard's weights off, the tie-breaks choosing the last option (so the tied
    moves must be the same, in the same order); the games move by the heuristic, or one
    time in four by a random legal move (positions the heuristic would not reach); else
    the first difference."""
    from rummy_env.agents.romme.agents import RommeHeuristicAgent
    from rummy_env.agents.romme.heuristic_vector import choose
    from rummy_env.romme.vector import _CHECK_RULES, VectorRomme

    for case, n in enumerate(players):
        rules = _CHECK_RULES[case % len(_CHECK_RULES)]
        weights = (3.0, 5.0, 3) if case % 2 == 0 else (0.0, 0.0, 14)
        policy = RommeHeuristicAgent(0, *weights).batch_policy()
        env = VectorRomme(games, n, rules=rules, encoding=None, seed=seed + n)
        env.reset()
        rng = np.random.default_rng(seed + n)
        rows = np.arange(games)
        for step in range(moves):
            ours, theirs = [_Last() for _ in rows], [_Last() for _ in rows]
            got = choose(policy, env, rows, ours, kernel)
            want = choose(policy, env, rows, theirs, None)
            for g in np.flatnonzero((got != want) | np.array([a.sizes != b.sizes for a, b in zip(ours, theirs)])):
                return (f"at {n} players, step {step}, game {g}: the compiled heuristic plays {got[g]} "
                        f"(ties {ours[g].sizes}), the agent {want[g]} (ties {theirs[g].sizes})")
            actions = np.where(rng.random(games) < 0.25, env.random_actions(rng), want)
            env.step(actions)
    return ""


refresh_cache(__name__)  # numba's cache checks only this file: kernels built from an edited import are dropped
