"""The exact meld solver: least deadwood of hands, batch-first over 52-bit masks.

Why it can be exact and fast at once. Fix the cards a hand puts into sets (call them X).
Every other card can only be in a run, and within one suit any block of three or more
consecutive cards *is* a run, so the best use of the rest is to meld exactly the cards in
blocks of length >= 3. That part is a per-suit table lookup (13-bit suit field -> deadwood
of that suit: ``_Tables.dead``). The only search is over X, and X is built rank by rank:
a rank with three cards is either a set or not (2 choices); a rank with four cards is no
set, the 4-set, or one of four 3-sets (6 choices). Hands of up to 11 cards have at most
three such ranks, so at most 72 choices, and most hands have none.

The batch path groups hands by how many 4-card and 3-card ranks they hold, builds every
choice of X for a group at once as a broadcast array, and takes the minimum: no Python
loop per hand. Single hands given as Python ints take a scalar path over the same
tables, because numpy's per-call overhead dominates for one hand (the game engine calls
it once per move). Scalar results are memoised (an LRU cache keyed by the hand).

``best_discard_deadwood`` gives the least deadwood after the best discard (one more
table lookup per choice of X; see its docstring), the quantity a player's "expected
deadwood after the next draw" needs for many hands at once.

For an 11-card hand, ``discard_deadwood`` gives per card the least deadwood of the ten
left. Discarding a card that X puts in a set never needs its own case: removing it from
a 4-set is the 3-set choice that leaves it out, removing it from a 3-set breaks the set.
So per choice of X the answer for a card outside X is one more table lookup
(``_Tables.dead_minus``: a suit field's deadwood with one rank removed).

Rule options that change card values (``five_under_ten``) or runs (``aces_high``: A
above K, Q-K-A is a run, A-2-3 is not) select another set of tables, built on first use.

With numba installed, the batch functions, the scalar path and the showdown's lay-offs
run as compiled loops over the same tables (``rummy_env.core.melds_jit``; ``KERNELS`` says
when); the array operations and the Python scalar loops here are the fallback and the
reference the compiled ones are tested against.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from rummy_env.core.cards import (
    NUM_CARDS, NUM_RANKS, RANK_MASKS, SUIT_BITS, SUIT_CARDS, card_value, mask_to_cards, run_positions, run_ranks,
)
from rummy_env.core.compiled import Compiled, self_check

MAX_HAND_CARDS = 13
_CHUNK = 1 << 15
_ABSENT = 10_000  # dead_minus entry for a rank the field does not hold: never a minimum
_BIT_LISTS = SUIT_CARDS[0]  # the ranks of each 13-bit field
# (8192,): the lowest rank set in a 13-bit field (0 for the empty field)
_LOWEST_BIT = np.array([b[0] if b else 0 for b in _BIT_LISTS], dtype=np.intp)


def _run_cover(fields: np.ndarray, aces_high: bool) -> np.ndarray:
    """Bits of 13-bit suit fields lying in a block of >= 3 consecutive ranks."""
    p = run_positions(fields, aces_high)
    t = p & (p >> 1) & (p >> 2)
    return run_ranks((t | (t << 1) | (t << 2)) & SUIT_BITS, aces_high)


@dataclass(frozen=True, eq=False)
class _Tables:
    """Lookup tables for one choice of (aces_high, five_under_ten); hashed by identity."""

    values: np.ndarray  # (13,) deadwood value per rank
    dead: np.ndarray  # (8192,) int16: deadwood of a suit field after melding its runs
    dead_minus: np.ndarray  # (8192, 13) int16: the same with one rank removed (_ABSENT + x if not held)
    dead_minus_neg: np.ndarray  # the same with -_ABSENT + x if not held: clipping at -1 marks 'not held'
    opt4: np.ndarray  # (13, 6) uint64: set choices for a rank held 4 times
    opt3: np.ndarray  # (13, 2) uint64: set choices for a rank held 3 times
    gain: np.ndarray  # (8192,) int16: most deadwood one card of the field removes (-_ABSENT if empty)
    dead_list: list[int]
    dead_minus_list: list[list[int]]
    opt4_list: list[list[int]]


@functools.lru_cache(maxsize=None)
def _tables(aces_high: bool = False, five_under_ten: bool = False) -> _Tables:
    values = np.array([card_value(r, five_under_ten) for r in range(NUM_RANKS)], dtype=np.int64)
    fields = np.arange(1 << NUM_RANKS, dtype=np.int64)
    bits = (fields[:, None] >> np.arange(NUM_RANKS)) & 1  # (8192, 13)
    left = fields & ~_run_cover(fields, aces_high)
    dead = (((left[:, None] >> np.arange(NUM_RANKS)) & 1) * values).sum(1).astype(np.int16)
    minus = fields[:, None] & ~(1 << np.arange(NUM_RANKS))  # (8192, 13)
    dead_minus = np.where(bits == 1, dead[minus], _ABSENT + dead[minus]).astype(np.int16)
    dead_minus_neg = np.where(bits == 1, dead[minus], dead[minus] - _ABSENT).astype(np.int16)
    opt4 = np.zeros((NUM_RANKS, 6), dtype=np.uint64)
    opt3 = np.zeros((NUM_RANKS, 2), dtype=np.uint64)
    for r, rm in enumerate(RANK_MASKS):
        opt4[r, 1] = opt3[r, 1] = rm
        for s in range(4):
            opt4[r, 2 + s] = rm & ~(1 << (s * NUM_RANKS + r))
    gain = np.where(fields > 0, dead - np.where(bits == 1, dead[minus], _ABSENT).min(axis=1), -_ABSENT).astype(np.int16)
    return _Tables(
        values, dead, dead_minus, dead_minus_neg, opt4, opt3, gain, dead.tolist(), dead_minus.tolist(), opt4.tolist()
    )


# Default tables are built at import (a few milliseconds); others on first use.
_tables()


# the compiled single-hand loops over the same tables (``rummy_env.core.melds_jit``), used
# when numba is installed, not switched off (``RUMMY_ENV_NO_NUMBA=1``) and they compile and
# agree with the array operations on a few hands (``melds_jit.self_check``); else the batch
# functions run as numpy array operations. Decided on the first solver call
# (``rummy_env.core.compiled``): importing the solver does not import numba.
KERNELS = Compiled("the meld solver's numba kernels", "rummy_env.core.melds_jit", self_check,
                   "the meld solver runs as numpy array operations")
_kernels = KERNELS.get  # rummy_env.core.melds_jit or None: what the solver's functions read


def _fields(h: np.ndarray) -> list[np.ndarray]:
    """The four 13-bit suit fields of uint64 masks, as int64 (masks fit: bits 52+ are clear)."""
    v = h.view(np.int64)
    return [(v >> (13 * s)) & SUIT_BITS for s in range(4)]


def _as_hands(hands) -> np.ndarray:
    h = np.asarray(hands)
    if h.dtype.kind not in "iu":  # bool arrays too: a hand is a mask, not a flag
        raise TypeError(f"hands must be integer 52-bit masks, got dtype {h.dtype}")
    if h.dtype.kind == "i" and h.size and h.min() < 0:
        raise ValueError("hands must be non-negative 52-bit masks")
    h = h.astype(np.uint64)
    if h.size:
        if (h >> np.uint64(NUM_CARDS)).any():
            raise ValueError("hands must be 52-bit masks (bits 52..63 must be clear)")
        n = np.bitwise_count(h).max()
        if n > MAX_HAND_CARDS:
            raise ValueError(f"the meld solver takes hands of at most {MAX_HAND_CARDS} cards, got one of {n}")
    return h


def _check_scalar(hand: int) -> int:
    if isinstance(hand, bool):
        raise TypeError("a hand must be an integer 52-bit mask, not a bool")
    hand = int(hand)
    if not 0 <= hand < 1 << NUM_CARDS:
        raise ValueError(f"hand must be a 52-bit mask, got {hand}")
    if hand.bit_count() > MAX_HAND_CARDS:
        raise ValueError(f"the meld solver takes hands of at most {MAX_HAND_CARDS} cards, got {hand.bit_count()}")
    return hand


def _set_groups(h: np.ndarray, f: list[np.ndarray], t: _Tables):
    """Group the hands of a flat batch that hold a rank 3 or 4 times.

    Hands are grouped by how many ranks they hold 4 and 3 times. Yields ``(index, X)``
    where ``X`` (len(index), C) holds every choice of set cards for those hands.
    ``f`` are the batch's suit fields.
    """
    ab, cd = f[0] & f[1], f[2] & f[3]
    four = ab & cd
    three = (ab & (f[2] | f[3])) | (cd & (f[0] | f[1]))  # ranks held at least 3 times
    rest = np.flatnonzero(three)
    if rest.size == 0:
        return
    four, three = four[rest], three[rest] & ~four[rest]
    sig = np.bitwise_count(four) * 16 + np.bitwise_count(three)
    for g in np.flatnonzero(np.bincount(sig)):  # the signatures present, without a sort
        sel = np.flatnonzero(sig == g)
        k4, k3 = int(g) // 16, int(g) % 16
        hs = h[rest[sel]][:, None]
        x = np.zeros((sel.size, 1), dtype=np.uint64)
        for table, k, ranks in ((t.opt4, k4, four), (t.opt3, k3, three)):
            left = ranks[sel]
            for _ in range(k):  # the ranks one at a time, lowest first
                opts = table[_LOWEST_BIT[left]] & hs
                left = left & (left - 1)
                x = (x[:, :, None] | opts[:, None, :]).reshape(sel.size, -1)
        yield rest[sel], x


def min_deadwood(hands, *, aces_high: bool = False, five_under_ten: bool = False):
    """Least deadwood over all arrangements of disjoint melds, per hand.

    ``hands``: a Python or numpy integer (returns an int) or an integer array of 52-bit
    masks of any shape (returns an int16 array of that shape). Hands of up to 13 cards.
    """
    t = _tables(aces_high, five_under_ten)
    if isinstance(hands, (int, np.integer)):
        return _scalar_min_deadwood(_check_scalar(hands), t)
    h = _as_hands(hands)
    kernels = _kernels()
    if kernels is not None:
        return kernels.min_deadwood(h, aces_high, five_under_ten)
    return _min_deadwood_numpy(h, t)


def _min_deadwood_numpy(h: np.ndarray, t: _Tables) -> np.ndarray:
    """``min_deadwood`` of checked uint64 hands as array operations (the path without numba)."""
    flat = h.ravel()
    out = np.empty(flat.shape, dtype=np.int16)
    dead = t.dead
    for start in range(0, flat.size, _CHUNK):
        chunk = flat[start : start + _CHUNK]
        f = _fields(chunk)
        res = dead.take(f[0]) + dead.take(f[1]) + dead.take(f[2]) + dead.take(f[3])
        for idx, x in _set_groups(chunk, f, t):
            g = _fields(chunk[idx, None] & ~x)
            res[idx] = (dead.take(g[0]) + dead.take(g[1]) + dead.take(g[2]) + dead.take(g[3])).min(axis=1)
        out[start : start + _CHUNK] = res
    return out.reshape(h.shape)


def discard_deadwood(hands, *, aces_high: bool = False, five_under_ten: bool = False):
    """Per card held, the least deadwood of the hand without it; -1 where not held.

    ``hands``: a Python int (returns a tuple of 52 ints) or an integer array of 52-bit
    masks of shape S (returns an int16 array of shape S + (52,)). Meant for 11-card
    hands (which card to discard or knock with), correct for any hand of up to 13 cards.
    """
    t = _tables(aces_high, five_under_ten)
    if isinstance(hands, (int, np.integer)):
        return _scalar_discard_deadwood(_check_scalar(hands), t)
    h = _as_hands(hands)
    kernels = _kernels()
    if kernels is not None:
        return kernels.discard_deadwood(h, aces_high, five_under_ten)
    return _discard_deadwood_numpy(h, t)


def _discard_deadwood_numpy(h: np.ndarray, t: _Tables) -> np.ndarray:
    """``discard_deadwood`` of checked uint64 hands as array operations (the path without numba)."""
    flat = h.ravel()
    out = np.empty((flat.size, NUM_CARDS), dtype=np.int16)
    for start in range(0, flat.size, _CHUNK):
        chunk = flat[start : start + _CHUNK]
        res = out[start : start + _CHUNK]
        f = _fields(chunk)
        by_suit = res.reshape(-1, 4, NUM_RANKS)
        np.maximum(_per_card(f, t.dead_minus_neg, t.dead, by_suit), -1, out=by_suit)
        for idx, x in _set_groups(chunk, f, t):
            best = _per_card(_fields(chunk[idx, None] & ~x), t.dead_minus, t.dead).min(axis=1)
            res[idx] = np.where(best >= _ABSENT // 2, -1, best).reshape(-1, NUM_CARDS)
    return out.reshape(h.shape + (NUM_CARDS,))


def best_discard_deadwood(hands, *, aces_high: bool = False, five_under_ten: bool = False) -> np.ndarray:
    """Per hand, the least deadwood left after discarding its best card: the minimum over
    held cards of ``discard_deadwood``, at about the cost of ``min_deadwood``.

    ``hands``: a Python int (returns an int) or an integer array of 52-bit masks of shape
    S (returns an int16 array of shape S); non-empty hands of up to 13 cards. Why it is one lookup more than
    ``min_deadwood``: for a fixed choice X of set cards, removing one card outside X saves
    at most ``gain[field]`` in its suit (a table over the 8,192 suit fields), so the answer
    is the minimum over X of the run deadwood minus the best suit's gain; removing a card
    of X is covered by another choice of X, as in ``discard_deadwood``.
    """
    if isinstance(hands, (int, np.integer)):
        hand = _check_scalar(hands)
        return int(best_discard_deadwood(np.array([hand], dtype=np.uint64), aces_high=aces_high,
                                         five_under_ten=five_under_ten)[0])
    t = _tables(aces_high, five_under_ten)
    h = _as_hands(hands)
    if h.size and (np.bitwise_count(h) == 0).any():
        raise ValueError("best_discard_deadwood needs hands holding at least one card")
    kernels = _kernels()
    if kernels is not None:
        return kernels.best_discard_deadwood(h, aces_high, five_under_ten)
    return _best_discard_deadwood_numpy(h, t)


def _best_discard_deadwood_numpy(h: np.ndarray, t: _Tables) -> np.ndarray:
    """``best_discard_deadwood`` of checked non-empty uint64 hands as array operations
    (the path without numba)."""
    flat = h.ravel()
    out = np.empty(flat.shape, dtype=np.int16)
    dead, gain = t.dead, t.gain

    def best(g: list[np.ndarray]) -> np.ndarray:
        d = [dead.take(x) for x in g]
        top = np.maximum(np.maximum(gain.take(g[0]), gain.take(g[1])), np.maximum(gain.take(g[2]), gain.take(g[3])))
        return d[0] + d[1] + d[2] + d[3] - top

    for start in range(0, flat.size, _CHUNK):
        chunk = flat[start : start + _CHUNK]
        f = _fields(chunk)
        res = best(f)
        for idx, x in _set_groups(chunk, f, t):
            res[idx] = best(_fields(chunk[idx, None] & ~x)).min(axis=1)  # all cards in X: >= _ABSENT
        out[start : start + _CHUNK] = res
    return out.reshape(h.shape)


def _per_card(f: list[np.ndarray], minus: np.ndarray, dead: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Deadwood without each card, given suit fields of any shape S -> S + (4, 13).

    ``minus`` is ``dead_minus`` (cards not in the fields come out >= _ABSENT / 2, never a
    minimum) or ``dead_minus_neg`` (they come out negative).
    """
    d = [np.take(dead, fs) for fs in f]
    total = d[0] + d[1] + d[2] + d[3]
    if out is None:
        out = np.empty(f[0].shape + (4, NUM_RANKS), dtype=np.int16)
    for s in range(4):
        np.add(np.take(minus, f[s], axis=0), (total - d[s])[..., None], out=out[..., s, :])
    return out


def _reach(runs: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """Cards of ``allowed`` joined to ``runs`` by consecutive cards (run-order fields; the
    two broadcast against each other)."""
    reach = np.zeros(np.broadcast_shapes(runs.shape, allowed.shape), dtype=allowed.dtype)
    while True:
        grown = runs | reach
        new = ((grown << 1) | (grown >> 1)) & allowed & ~reach & SUIT_BITS
        if not new.any():
            return reach
        reach |= new


def _combine(fields: list[np.ndarray]) -> np.ndarray:
    out = np.zeros(fields[0].shape, dtype=np.uint64)
    for s, fs in enumerate(fields):
        out |= fs.astype(np.uint64) << np.uint64(13 * s)
    return out


def showdown_deadwood(knocker, defender, *, aces_high: bool = False, five_under_ten: bool = False):
    """Deadwood of both sides at a showdown, for batches of (knocker, defender) hands.

    Returns ``(K, D)`` int16 arrays: the knocker's least deadwood, and the defender's
    deadwood after their best lay-offs, against the least-deadwood layout of the knocker
    that leaves the defender the most. No lay-offs when ``K`` is 0 (Gin, Big Gin). The
    batch twin of ``arrangements`` + ``best_layoff`` as the game's showdown uses them.

    How: for each least-deadwood choice of the knocker's set cards, the cards the
    defender could lay off are those joined to a knocker run by consecutive defender
    cards, and the missing 4th card of each 3-card set. Every subset of them is tried
    that keeps each run card joined to a run through the subset (set cards need nothing),
    and the rest of the defender's hand is solved exactly.
    """
    t = _tables(aces_high, five_under_ten)
    k, d = _as_hands(knocker), _as_hands(defender)
    if k.shape != d.shape:
        raise ValueError(f"knocker and defender batches differ in shape: {k.shape} vs {d.shape}")
    shape = k.shape
    k, d = k.ravel(), d.ravel()
    if (k & d).any():
        raise ValueError("a card is in both the knocker's and the defender's hand")
    kd = min_deadwood(k, aces_high=aces_high, five_under_ten=five_under_ten)
    dd = min_deadwood(d, aces_high=aces_high, five_under_ten=five_under_ten)
    idx = np.flatnonzero(kd > 0)
    if idx.size:
        kernels = _kernels()
        if kernels is not None:
            dd[idx] = kernels.defender_after_layoffs(k[idx], d[idx], kd[idx], aces_high, five_under_ten)
        else:
            dd[idx] = _defender_after_layoffs(k[idx], d[idx], kd[idx], t, aces_high, five_under_ten)
    return kd.reshape(shape), dd.reshape(shape)


def _defender_after_layoffs(k, d, kd, t: _Tables, aces_high: bool, five_under_ten: bool) -> np.ndarray:
    """The lay-offs of ``showdown_deadwood`` as array operations (the path without numba)."""
    n = k.size
    games, choices = [np.arange(n)], [np.zeros(n, dtype=np.uint64)]
    for idx, x in _set_groups(k, _fields(k), t):
        games.append(np.repeat(idx, x.shape[1] - 1))
        choices.append(x[:, 1:].ravel())
    g, x = np.concatenate(games), np.concatenate(choices)
    rem = k[g] & ~x
    rf = _fields(rem)
    keep = (t.dead.take(rf[0]) + t.dead.take(rf[1]) + t.dead.take(rf[2]) + t.dead.take(rf[3])) == kd[g]
    g, x, rf = g[keep], x[keep], [f[keep] for f in rf]
    # the four suits stacked on a leading axis: one array operation for all four
    xf, df, rf = np.stack(_fields(x)), np.stack(_fields(d[g])), np.stack(rf)
    ab, cd = xf[0] & xf[1], xf[2] & xf[3]
    exactly3 = ((ab & (xf[2] | xf[3])) | (cd & (xf[0] | xf[1]))) & ~(ab & cd)
    set_cand = exactly3 & ~xf & df
    runs = run_positions(_run_cover(rf, aces_high), aces_high)
    run_cand = run_ranks(_reach(runs, run_positions(df, aces_high)), aces_high)
    cand = _combine(list(set_cand | run_cand))
    size = np.bitwise_count(cand)
    result = _min_deadwood_numpy(d[g], t)
    for m in np.unique(size[size > 0]):
        sel = np.flatnonzero(size == m)
        c = cand[sel].copy()
        lows = np.empty((sel.size, int(m)), dtype=np.uint64)
        for j in range(int(m)):
            lows[:, j] = c & (~c + np.uint64(1))
            c ^= lows[:, j]
        include = ((np.arange(1 << int(m))[:, None] >> np.arange(int(m))) & 1).astype(np.uint64)
        laid = (lows[:, None, :] * include[None]).sum(axis=-1, dtype=np.uint64)  # (n, 2^m) subsets
        lf = np.stack(_fields(laid))
        need = lf & ~set_cand[:, sel, None]
        joined = run_ranks(_reach(runs[:, sel, None], run_positions(lf, aces_high)), aces_high)
        valid = ((need & ~joined) == 0).all(axis=0)
        left = _min_deadwood_numpy(d[g][sel, None] & ~laid, t)
        result[sel] = np.where(valid, left, np.int16(32000)).min(axis=1)
    out = np.full(n, -1, dtype=np.int16)
    np.maximum.at(out, g, result)
    return out


def _scalar_set_choices(hand: int, t: _Tables) -> list[int]:
    """Every choice of set cards for one hand (the scalar twin of ``_set_groups``)."""
    f0, f1, f2, f3 = hand & SUIT_BITS, (hand >> 13) & SUIT_BITS, (hand >> 26) & SUIT_BITS, hand >> 39
    ab, cd = f0 & f1, f2 & f3
    three = (ab & (f2 | f3)) | (cd & (f0 | f1))
    if not three:
        return [0]
    four = ab & cd
    slots = [t.opt4_list[r] if (four >> r) & 1 else (0, RANK_MASKS[r] & hand) for r in _BIT_LISTS[three]]
    return [functools.reduce(int.__or__, combo) for combo in itertools.product(*slots)]


@functools.lru_cache(maxsize=1 << 14)
def _scalar_min_deadwood(hand: int, t: _Tables) -> int:
    """``min_deadwood`` of one checked hand: compiled when the kernels are in use, else Python."""
    kernels = _kernels()
    return _python_min_deadwood(hand, t) if kernels is None else kernels.min_deadwood_one(hand, t)


@functools.lru_cache(maxsize=1 << 14)
def _scalar_discard_deadwood(hand: int, t: _Tables) -> tuple[int, ...]:
    """``discard_deadwood`` of one checked hand: compiled when the kernels are in use, else Python."""
    kernels = _kernels()
    return _python_discard_deadwood(hand, t) if kernels is None else kernels.discard_deadwood_one(hand, t)


def _python_min_deadwood(hand: int, t: _Tables) -> int:
    """The scalar path without numba (and the compiled one's reference)."""
    dead = t.dead_list
    return min(
        dead[r & SUIT_BITS] + dead[(r >> 13) & SUIT_BITS] + dead[(r >> 26) & SUIT_BITS] + dead[r >> 39]
        for r in (hand & ~x for x in _scalar_set_choices(hand, t))
    )


def _python_discard_deadwood(hand: int, t: _Tables) -> tuple[int, ...]:
    """The scalar path without numba (and the compiled one's reference)."""
    dead, dead_minus = t.dead_list, t.dead_minus_list
    held = [(s, r) for s in range(4) for r in _BIT_LISTS[(hand >> (13 * s)) & SUIT_BITS]]
    best = [-1] * NUM_CARDS
    for x in _scalar_set_choices(hand, t):
        rem = hand & ~x
        f = (rem & SUIT_BITS, (rem >> 13) & SUIT_BITS, (rem >> 26) & SUIT_BITS, rem >> 39)
        d = [dead[fs] for fs in f]
        total = d[0] + d[1] + d[2] + d[3]
        for s, r in held:
            v = total - d[s] + dead_minus[f[s]][r]
            c = 13 * s + r
            if v < _ABSENT and (best[c] < 0 or v < best[c]):
                best[c] = v
    return tuple(best)


def forms_meld(hand: int, card: int, *, aces_high: bool = False) -> bool:
    """Whether ``card`` makes a set or a run with cards of ``hand`` (any meld, not the best).

    The test the EAAI competition's simple player uses to decide to take a face-up card.
    """
    rank, suit = card % NUM_RANKS, card // NUM_RANKS
    if (hand & RANK_MASKS[rank] & ~(1 << card)).bit_count() >= 2:
        return True
    field = run_positions((hand >> (13 * suit)) & SUIT_BITS, aces_high)
    p = _run_order(rank, aces_high)
    def has(q: int) -> bool:
        return 0 <= q < NUM_RANKS and (field >> q) & 1 == 1
    return (has(p - 2) and has(p - 1)) or (has(p - 1) and has(p + 1)) or (has(p + 1) and has(p + 2))


@functools.lru_cache(maxsize=2)
def _partner_table(aces_high: bool) -> np.ndarray:
    """(52, 6) uint64: for each card, the other two cards of each 3-card meld holding it.

    Three sets (pairs of the other suits) and three runs (the windows around the card);
    a window off the end of the suit is a mask no hand can hold (bit 63).
    """
    table = np.full((NUM_CARDS, 6), np.uint64(1) << np.uint64(63), dtype=np.uint64)
    for card in range(NUM_CARDS):
        rank, suit = card % NUM_RANKS, card // NUM_RANKS
        others = [s * NUM_RANKS + rank for s in range(4) if s != suit]
        pairs = [(others[0], others[1]), (others[0], others[2]), (others[1], others[2])]
        p = _run_order(rank, aces_high)
        for d in ((-2, -1), (-1, 1), (1, 2)):
            if all(0 <= p + x < NUM_RANKS for x in d):
                pairs.append(tuple(suit * NUM_RANKS + _order_rank(p + x, aces_high) for x in d))
        for k, (a, b) in enumerate(pairs):
            table[card, k] = np.uint64((1 << a) | (1 << b))
    return table


def forms_meld_batch(hands: np.ndarray, cards: np.ndarray, *, aces_high: bool = False) -> np.ndarray:
    """``forms_meld`` over arrays: (N,) uint64 hands and (N,) cards -> (N,) bool."""
    partners = _partner_table(aces_high)[np.asarray(cards, dtype=np.intp)]
    hands = np.asarray(hands, dtype=np.uint64)[:, None]
    return ((hands & partners) == partners).any(axis=1)


def meld_completions(hands: np.ndarray, *, aces_high: bool = False) -> np.ndarray:
    """(N,) uint64 hands -> (N,) uint64: the cards outside each hand that would make a meld
    with it (``forms_meld`` for every card at once, as bit operations on the suit fields).

    A card that makes no meld with a hand is deadwood in every arrangement of the hand
    with it, which lets callers skip the solver for it.
    """
    h = np.asarray(hands, dtype=np.uint64)
    suit_bits = np.uint64(SUIT_BITS)
    f = [(h >> np.uint64(NUM_RANKS * s)) & suit_bits for s in range(4)]
    two = (f[0] & f[1]) | (f[0] & f[2]) | (f[0] & f[3]) | (f[1] & f[2]) | (f[1] & f[3]) | (f[2] & f[3])
    out = two * np.uint64(sum(1 << (NUM_RANKS * s) for s in range(4)))  # ranks held twice: the set's others
    one, twelve = np.uint64(1), np.uint64(NUM_RANKS - 1)
    for s in range(4):
        g = ((f[s] >> one) | ((f[s] & one) << twelve)) if aces_high else f[s]  # run order: A above K
        ends = ((g >> one) & (g >> np.uint64(2))) | ((g << one) & (g >> one)) | ((g << one) & (g << np.uint64(2)))
        ends &= suit_bits
        if aces_high:
            ends = ((ends << one) & suit_bits) | (ends >> twelve)
        out |= ends << np.uint64(NUM_RANKS * s)
    return out & ~h & np.uint64((1 << NUM_CARDS) - 1)


# ---------------------------------------------------------------------------------------
# Single-hand arrangements and lay-offs, for the showdown (not a hot path).


class Meld(NamedTuple):
    """A meld laid on the table: ``kind`` is 'set' or 'run'; ``cards`` a 52-bit mask."""

    kind: str
    cards: int


class Arrangement(NamedTuple):
    """Melds plus the deadwood cards left over, and the deadwood value."""

    melds: tuple[Meld, ...]
    deadwood_cards: int
    deadwood: int


def _run_order(rank: int, aces_high: bool) -> int:
    return (rank - 1) % NUM_RANKS if aces_high else rank


def _order_rank(pos: int, aces_high: bool) -> int:
    return (pos + 1) % NUM_RANKS if aces_high else pos


def _mask_value(mask: int, t: _Tables) -> int:
    return int(sum(t.values[c % NUM_RANKS] for c in mask_to_cards(mask)))


def arrangements(hand: int, *, aces_high: bool = False, five_under_ten: bool = False) -> list[Arrangement]:
    """Every least-deadwood arrangement of one hand (distinct by which cards form sets).

    Runs are laid as whole blocks of consecutive cards; splitting a block into shorter
    runs changes neither the deadwood nor what can be laid off on it.
    """
    return list(_arrangements(_check_scalar(int(hand)), aces_high, five_under_ten))


@functools.lru_cache(maxsize=1 << 12)
def _arrangements(hand: int, aces_high: bool, five_under_ten: bool) -> tuple[Arrangement, ...]:
    t = _tables(aces_high, five_under_ten)
    found: dict[int, Arrangement] = {}
    best = _scalar_min_deadwood(hand, t)
    dead_of = t.dead_list
    for x in _scalar_set_choices(hand, t):
        rem = hand & ~x
        if x in found or (dead_of[rem & SUIT_BITS] + dead_of[(rem >> 13) & SUIT_BITS] + dead_of[(rem >> 26) & SUIT_BITS]
                          + dead_of[rem >> 39]) != best:
            continue  # not a least-deadwood choice (the table's deadwood, cheap): nothing to lay out
        melds: list[Meld] = []
        for r in range(NUM_RANKS):
            cards = x & RANK_MASKS[r]
            if cards:
                melds.append(Meld("set", cards))
        covered = 0
        for s in range(4):
            field = (rem >> (13 * s)) & SUIT_BITS
            cover = _run_cover(field, aces_high)
            covered |= cover << (13 * s)
            positions = sorted(_run_order(r, aces_high) for r in range(NUM_RANKS) if (cover >> r) & 1)
            block: list[int] = []
            for p in positions + [None]:
                if block and (p is None or p != block[-1] + 1):
                    melds.append(Meld("run", sum(1 << (13 * s + _order_rank(q, aces_high)) for q in block)))
                    block = []
                if p is not None:
                    block.append(p)
        dead = rem & ~covered
        value = _mask_value(dead, t)
        if value == best and x not in found:
            found[x] = Arrangement(tuple(melds), dead, value)
    return tuple(found.values())


def best_arrangement(hand: int, *, aces_high: bool = False, five_under_ten: bool = False) -> Arrangement:
    """One least-deadwood arrangement (the first of ``arrangements``)."""
    return arrangements(hand, aces_high=aces_high, five_under_ten=five_under_ten)[0]


class LayoffResult(NamedTuple):
    """The defender's best answer to a knock: cards laid off and their own arrangement."""

    laid_off: tuple[tuple[int, int], ...]  # (card, index of the knocker's meld it goes on)
    arrangement: Arrangement


def _layoff_options(meld: Meld, defender: int, aces_high: bool) -> list[list[int]]:
    """Ways to lay off onto one meld: lists of cards (each a valid sequence)."""
    cards = mask_to_cards(meld.cards)
    if meld.kind == "set":
        if len(cards) != 3:
            return [[]]
        rank = cards[0] % NUM_RANKS
        missing = RANK_MASKS[rank] & ~meld.cards
        return [[]] + ([[missing.bit_length() - 1]] if defender & missing else [])
    suit = cards[0] // NUM_RANKS
    pos = sorted(_run_order(c % NUM_RANKS, aces_high) for c in cards)

    def chain(start: int, step: int) -> list[int]:
        out = []
        p = start
        while 0 <= p < NUM_RANKS:
            c = suit * NUM_RANKS + _order_rank(p, aces_high)
            if not (defender >> c) & 1:
                break
            out.append(c)
            p += step
        return out

    low, high = chain(pos[0] - 1, -1), chain(pos[-1] + 1, +1)
    return [low[:i] + high[:j] for i in range(len(low) + 1) for j in range(len(high) + 1)]


def best_layoff(
    knocker_melds: tuple[Meld, ...], defender: int, *, aces_high: bool = False, five_under_ten: bool = False
) -> LayoffResult:
    """The lay-offs and arrangement that minimise the defender's deadwood.

    Lay-offs and the defender's own melds are chosen together: every combination of
    lay-offs (a 4th card on a 3-card set; runs extended card by card at either end) is
    tried, and the rest of the hand is arranged optimally. Ties prefer fewer lay-offs.
    """
    defender = _check_scalar(int(defender))
    t = _tables(aces_high, five_under_ten)
    options = [_layoff_options(m, defender, aces_high) for m in knocker_melds]
    best: tuple[tuple[int, ...], int] | None = None  # (combination, the cards left) of the best so far
    best_key = None
    for combo in itertools.product(*options):
        used = [c for cards in combo for c in cards]
        if len(set(used)) != len(used):
            continue
        rest = defender & ~sum(1 << c for c in used)
        dw = _scalar_min_deadwood(rest, t)
        key = (dw, len(used))
        if best_key is None or key < best_key:
            best_key, best = key, (combo, rest)
    assert best is not None  # the empty combination always exists
    combo, rest = best  # arranged once, for the winner only
    laid = tuple((c, i) for i, cards in enumerate(combo) for c in cards)
    return LayoffResult(laid, arrangements(rest, aces_high=aces_high, five_under_ten=five_under_ten)[0])
