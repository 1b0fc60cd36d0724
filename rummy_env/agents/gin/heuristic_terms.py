"""The ``heuristic`` agent's scoring terms as array operations: the danger of feeding the
opponent a card, the deadwood expected after the next stock draw, the discard scores
that weigh the two, and the deadwood after taking the face-up card.

Why its own floor: the agent's array version (``rummy_env.agents.gin.heuristic_vector``)
scores its own discards with them, and the opponent model (``rummy_env.agents.gin.belief``,
and ``knock_vector``, the same over many games) scores the opponent's last discard with
the same numbers; ``heuristic_vector`` plays the knock estimate of ``knock_vector``, which
builds on ``belief``, so these terms sit below all three.

With numba installed, the heaviest two (the expected deadwood after the next draw, the
deadwood after taking the face-up card) run as compiled loops
(``rummy_env/agents/gin/heuristic_jit.py``) with the same numbers; the array versions here
are the fallback and the reference.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from rummy_env.agents.gin.heuristic_params import DEFAULTS
from rummy_env.core import melds
from rummy_env.core.cards import NUM_CARDS, NUM_RANKS, card_value
from rummy_env.core.compiled import Compiled

_ONE = np.uint64(1)
_BITS = _ONE << np.arange(NUM_CARDS, dtype=np.uint64)
_CARDS = np.arange(NUM_CARDS)
_RANK, _SUIT = _CARDS % NUM_RANKS, _CARDS // NUM_RANKS
# _RELATED[c]: the cards f whose sight with the opponent bears on the danger of discarding
# c (same rank, or same suit within two ranks; the rule of ``HeuristicAgent._danger``), as
# a 52-bit mask. The relation is symmetric.
_RELATED = np.array([
    sum(1 << f for f in range(NUM_CARDS)
        if _RANK[c] == _RANK[f] or (_SUIT[c] == _SUIT[f] and abs(int(_RANK[c]) - int(_RANK[f])) <= 2))
    for c in range(NUM_CARDS)
], dtype=np.uint64)
# the deadwood values a card can have and, per value, the 52-bit mask of the cards worth
# it; without and with five_under_ten
_VALUE_MASKS = []
for _f in (False, True):
    _value = np.array([card_value(c, _f) for c in range(NUM_CARDS)])
    _worth = np.unique(_value)
    _VALUE_MASKS.append((_worth.astype(np.float64), np.array([_BITS[_value == v].sum() for v in _worth], dtype=np.uint64)))


def _kernels_agree(jit) -> bool:
    """The compiled expected deadwood and take values equal the array versions on a few
    random 10-card hands, under two rule options."""
    rng = np.random.default_rng(0)
    order = np.argsort(rng.random((40, NUM_CARDS)), axis=1)
    hands = (_BITS[order[:, :10]]).sum(axis=1, dtype=np.uint64)
    unseen = (_BITS[order[:, 10:40]]).sum(axis=1, dtype=np.uint64)
    unseen[0] = 0
    top = order[:, 45].astype(np.intp)
    for aces_high, five_under_ten in ((False, False), (True, True)):
        opts = {"aces_high": aces_high, "five_under_ten": five_under_ten}
        whole = melds.min_deadwood(hands, **opts).astype(np.float64)
        completions = melds.meld_completions(hands, aces_high=aces_high)
        if not np.array_equal(jit.mean_over_unseen(hands, unseen, completions, whole, aces_high, five_under_ten),
                              _mean_over_unseen_numpy(hands, unseen, completions, whole, opts), equal_nan=True):
            return False
        got, want = jit.take_values(hands, top, aces_high, five_under_ten), _take_values_numpy(hands, top, opts)
        if not all(np.array_equal(g, w) and g.dtype == w.dtype for g, w in zip(got, want)):
            return False
    return True


def _check_kernels(jit) -> str:
    """'' when the compiled kernels agree with the array versions (``_kernels_agree``)."""
    return "" if _kernels_agree(jit) else "they disagree with the array operations"


def _load_kernels():
    from rummy_env.agents.gin import heuristic_jit

    return heuristic_jit


# the compiled kernels (``rummy_env.agents.gin.heuristic_jit``), used where the meld
# solver's are and these agree with the array versions; decided once per process
# (``rummy_env.core.compiled``)
KERNELS = Compiled("the heuristic's numba kernels", _load_kernels, _check_kernels,
                   "its terms run as numpy array operations", needs=melds.KERNELS)
_compiled = KERNELS.get  # rummy_env.agents.gin.heuristic_jit or None: what the terms read


def _set_bits(masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every card of (n,) uint64 card masks as (row, card) index arrays, in ``np.nonzero``'s
    order (by row, then card), read off the masks' bytes rather than an (n, 52) comparison."""
    (flat,) = np.unpackbits(np.ascontiguousarray(masks, dtype="<u8").view(np.uint8), bitorder="little").view(bool).nonzero()
    return flat >> 6, flat & 63


def danger(opponent_known: np.ndarray, opponent_thrown: np.ndarray, turn: np.ndarray, aces_high: bool) -> np.ndarray:
    """(n, 52) float: ``HeuristicAgent._danger`` of discarding each card, from public facts
    only: the cards the opponent took and still holds, those it threw or passed on
    (uint64 masks), and the turn."""
    known = np.asarray(opponent_known, dtype=np.uint64)
    thrown = np.asarray(opponent_thrown, dtype=np.uint64) & ~known  # a card it took and holds counts as held
    # raw[b, c]: 2 for each related card it holds, -1 for each it threw or passed on; bit
    # counts, not a float matrix product (BLAS would start threads that spin against torch's)
    held = np.bitwise_count(known[:, None] & _RELATED).astype(np.float64)  # (uint8 counts: no subtraction in uint8)
    raw = 2.0 * held - np.bitwise_count(thrown[:, None] & _RELATED)
    turn = np.minimum(np.asarray(turn), 20).astype(np.float64)
    risk = np.maximum(raw, 0.0) * (0.5 + turn / 20)[:, None]
    some = np.flatnonzero(known != 0)
    if some.size:
        feeds = melds.forms_meld_batch(
            np.repeat(known[some], NUM_CARDS), np.tile(_CARDS, some.size), aces_high=aces_high
        ).reshape(some.size, NUM_CARDS)
        risk[some] = np.where(feeds, 8.0, risk[some])
    return risk


def mean_over_unseen(base: np.ndarray, unseen: np.ndarray, opts: dict, whole: Optional[np.ndarray] = None) -> np.ndarray:
    """For each (n,) 10-card ``base`` hand: the mean over its ``unseen`` cards u of the
    least deadwood of base | u after the best discard (NaN where nothing is unseen).
    ``whole``: ``melds.min_deadwood(base)`` when the caller already has it.

    Only the u that make a meld with ``base`` go through the meld solver (a few of the
    thirty-odd): any other u is deadwood in every arrangement of base | u, so the best is
    to throw it (the deadwood of ``base``) or to keep it and throw base's best card
    (``best_discard_deadwood(base)`` plus u's value), exactly.
    """
    whole = (melds.min_deadwood(base, **opts) if whole is None else whole).astype(np.float64)
    completions = melds.meld_completions(base, aces_high=opts["aces_high"])
    if _compiled() is not None:
        return _compiled().mean_over_unseen(base, unseen, completions, whole, opts["aces_high"], opts["five_under_ten"])
    return _mean_over_unseen_numpy(base, unseen, completions, whole, opts)


def _mean_over_unseen_numpy(base: np.ndarray, unseen: np.ndarray, completions: np.ndarray, whole: np.ndarray,
                            opts: dict) -> np.ndarray:
    """``mean_over_unseen`` as numpy array operations (without numba; the reference the
    compiled kernel is tested against)."""
    pair, card = _set_bits(unseen & completions)
    # one solver call for both: base's best discard, and that of base | u for each completion u
    solved = melds.best_discard_deadwood(np.concatenate([base, base[pair] | _BITS[card]]), **opts)
    kept = solved[: base.size].astype(np.float64)
    # a plain u adds min(whole, kept + value(u)) = kept + min(whole - kept, value(u)): summed
    # per card value, one popcount per value (10, or 2 with five_under_ten) instead of a pass
    # over 52 cards (integers: exact)
    worth, worth_masks = _VALUE_MASKS[int(opts["five_under_ten"])]
    plain = unseen & ~completions
    by_value = np.bitwise_count(plain[:, None] & worth_masks[None, :])
    sums = kept * np.bitwise_count(plain) + (by_value * np.minimum((whole - kept)[:, None], worth[None, :])).sum(axis=1)
    sums += np.bincount(pair, weights=solved[base.size :], minlength=base.size)
    counts = np.bitwise_count(unseen)
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums / counts


def take_values(hands: np.ndarray, top: np.ndarray, opts: dict) -> tuple[np.ndarray, np.ndarray]:
    """For 10-card ``hands`` and the face-up card ``top``: the least deadwood after taking it
    (and discarding another card), and the hands' least deadwood now."""
    if _compiled() is not None:
        return _compiled().take_values(hands, top, opts["aces_high"], opts["five_under_ten"])
    return _take_values_numpy(hands, top, opts)


def _take_values_numpy(hands: np.ndarray, top: np.ndarray, opts: dict) -> tuple[np.ndarray, np.ndarray]:
    """``take_values`` as numpy array operations (without numba; the reference)."""
    after = melds.discard_deadwood(hands | _BITS[top], **opts).astype(np.float64)
    after[after < 0] = np.inf
    after[np.arange(top.size), top] = np.inf  # the card just taken cannot be discarded
    return after.min(axis=1), melds.min_deadwood(hands, **opts)



def discard_scores(expected: np.ndarray, risk: np.ndarray, danger_weight: float = DEFAULTS["danger_weight"]) -> np.ndarray:
    """(n, 52): the scripted agent's score of each discard (lower is better): the deadwood
    ``expected`` after the next draw (``expected_deadwood``; +inf for cards that cannot be
    discarded) plus ``danger_weight`` times ``risk`` (``danger``). The one place the two
    terms are weighed, for the agent (``analyse``) and for the opponent model (``rummy_env.agents.gin.belief``)."""
    return expected + danger_weight * risk


def expected_deadwood(hands: np.ndarray, legal: np.ndarray, after: np.ndarray, unseen: np.ndarray, opts: dict) -> np.ndarray:
    """(n, 52): for 11-card ``hands``, the deadwood expected after discarding each card and
    drawing one of the ``unseen`` cards (then discarding the best card): the scripted
    agent's meld-potential term. ``legal`` (n, 52) bool: the cards that may be discarded
    (+inf elsewhere); ``after``: ``melds.discard_deadwood`` of the hands (the deadwood
    of each hand without each card); ``opts``: the solver's rule options."""
    row, card, base, unseen_rows, whole = discard_bases(hands, legal, after, unseen)
    mean = mean_over_unseen(base, unseen_rows, opts, whole=whole)
    return discard_expected(legal.shape, row, card, unseen_rows, whole, mean)


def discard_bases(hands: np.ndarray, legal: np.ndarray, after: np.ndarray, unseen: np.ndarray):
    """The 10-card hands left by each legal discard: (row, card) of each, the hand, the
    unseen cards of its row and its least deadwood (``after``: no need to solve it again)."""
    row, card = np.nonzero(legal)
    return row, card, hands[row] & ~_BITS[card], unseen[row], after[row, card]


def discard_expected(shape: tuple, row: np.ndarray, card: np.ndarray, unseen: np.ndarray, whole: np.ndarray,
                      mean: np.ndarray) -> np.ndarray:
    """``expected_deadwood``'s (n, 52) table from ``mean_over_unseen`` of the ``discard_bases``
    (``whole`` where nothing is unseen; +inf for cards that may not be discarded)."""
    scores = np.full(shape, np.inf)
    scores[row, card] = np.where(unseen == 0, whole, mean)
    return scores

