"""Every meld of one 52-card deck as a table: the 65 sets and 264 runs, indexed by meld id.

Why a table: games whose actions name melds (Basic Rummy lays down "meld m") need a
fixed, documented id for each meld and fast answers to "which melds are in this hand"
and "which cards extend this meld on the table". Built by code at import, checked by
tests (the counts 65 and 264, every mask a legal meld).

Meld ids: ``5 * rank + s`` is the three-card set of ``rank`` without suit s,
``5 * rank + 4`` the four-card set; ``65 + 66 * suit + k`` is the k-th run of ``suit``
in the order (start position 0..10, then length 3..13 - start), positions being ranks
in run order (A = 0 with aces low; 2 = 0 and A = 12 with aces high). Runs never wrap.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from rummy_env.core.cards import NUM_RANKS, RANK_MASKS, SUIT_BITS, run_positions, run_ranks

NUM_SETS = 65
NUM_RUNS = 264
NUM_MELDS = NUM_SETS + NUM_RUNS
# (start position, length) of every run within a suit, in meld-id order
RUN_SHAPES = tuple((start, length) for start in range(NUM_RANKS - 2) for length in range(3, NUM_RANKS - start + 1))

@functools.lru_cache(maxsize=1 << 13)
def _runs_in_field(positions: int) -> tuple[int, ...]:
    """Offsets (into ``RUN_SHAPES``) of every run contained in a run-order suit field."""
    out = []
    for k, (start, length) in enumerate(RUN_SHAPES):
        block = ((1 << length) - 1) << start
        if positions & block == block:
            out.append(k)
    return tuple(out)


@dataclass(frozen=True, eq=False)
class MeldTable:
    """Every set and run as a 52-bit mask, indexed by meld id (see the module docstring)."""

    aces_high: bool
    masks: tuple[int, ...]
    index: dict[int, int]

    def is_run(self, meld_id: int) -> bool:
        return meld_id >= NUM_SETS


@functools.lru_cache(maxsize=None)
def meld_table(aces_high: bool = False) -> MeldTable:
    """The meld table for one ``aces`` option (built once)."""
    masks = []
    for r in range(NUM_RANKS):
        for s in range(4):
            masks.append(RANK_MASKS[r] & ~(1 << (s * NUM_RANKS + r)))
        masks.append(RANK_MASKS[r])
    for suit in range(4):
        for start, length in RUN_SHAPES:
            masks.append(run_ranks(((1 << length) - 1) << start, aces_high) << (suit * NUM_RANKS))
    return MeldTable(aces_high, tuple(masks), {m: i for i, m in enumerate(masks)})


meld_table(False)


def melds_in_hand(hand: int, aces_high: bool = False) -> list[int]:
    """Ids of every meld (set or run) made of cards of ``hand``, in increasing order."""
    f0, f1, f2, f3 = hand & SUIT_BITS, (hand >> 13) & SUIT_BITS, (hand >> 26) & SUIT_BITS, hand >> 39
    ab, cd = f0 & f1, f2 & f3
    three = (ab & (f2 | f3)) | (cd & (f0 | f1))
    out = []
    if three:
        four = ab & cd
        while three:  # each rank held in 3 or 4 suits
            low = three & -three
            three ^= low
            r = low.bit_length() - 1
            if four & low:
                out.extend(range(5 * r, 5 * r + 5))
            else:
                held = hand & RANK_MASKS[r]
                missing = next(s for s in range(4) if not (held >> (s * NUM_RANKS + r)) & 1)
                out.append(5 * r + missing)
    for suit, f in enumerate((f0, f1, f2, f3)):
        pos = run_positions(f, aces_high)
        if pos & (pos >> 1) & (pos >> 2):  # three adjacent positions: some run
            base = NUM_SETS + len(RUN_SHAPES) * suit
            out.extend([base + k for k in _runs_in_field(pos)])
    return out


def extension(cards: int, is_run: bool, aces_high: bool = False) -> int:
    """Cards that can be laid off onto a table meld of ``cards`` (a set or a run)."""
    low = (cards & -cards).bit_length() - 1
    if not is_run:
        return RANK_MASKS[low % NUM_RANKS] & ~cards
    suit = low // NUM_RANKS
    pos = run_positions((cards >> (suit * NUM_RANKS)) & SUIT_BITS, aces_high)
    first, last = (pos & -pos).bit_length() - 1, pos.bit_length() - 1
    ext = (1 << (first - 1) if first > 0 else 0) | (1 << (last + 1) if last < NUM_RANKS - 1 else 0)
    return run_ranks(ext, aces_high) << (suit * NUM_RANKS)
