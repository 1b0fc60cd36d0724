"""Rommé's cards: physical ids, kinds, hands as kind counts, text, values.

Why two numberings. Rommé plays with two 52-card decks and up to 6 jokers, so a hand
can hold two identical cards, which no rule tells apart. The game deals and tracks
*physical* cards (each of the 110 has an id, so a deck order is a permutation), but
everything that judges a hand (melds, values, the solver) sees only *kinds*:

- physical id ``p`` in 0..103 is kind ``p % 52`` of deck ``p // 52``; ids 104..109 are
  the jokers (a pack with 4 jokers uses 104..107);
- kind ``k`` in 0..51 is the card ``suit * 13 + rank`` of ``rummy_env.core.cards`` (rank
  0 the ace .. 12 the king, suits clubs, diamonds, hearts, spades); kind 52 is ``JOKER``.

A hand is a length-53 ``uint8`` vector of kind counts: 0..2 for each of the 52 kinds,
0..6 jokers; batches are (N, 53) arrays. Text is that of ``rummy_env.core.cards``
(``AC 7D TH``, ``10H`` accepted) plus ``JK`` or ``*`` for a joker.

Values. ``card_value`` is a natural card's worth: ace 11, two to ten their number,
jack, queen and king 10. A meld's worth for coming out counts an ace that stands low in a
run (A-2-3) as 1 and a joker as the card it stands for (``rummy_env.romme.melds``). Cards
left in hand at the end of a hand are a penalty: ``penalty_values(rules)`` is
``card_value`` with the joker at ``rules.joker_penalty``.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Optional

import numpy as np

from rummy_env.core.cards import NUM_CARDS, NUM_RANKS, card_str, parse_card
from rummy_env.romme.rules import MAX_JOKERS, RommeRules

JOKER = 52  # the joker's kind
NUM_KINDS = 53
TWO_JOKERS = NUM_KINDS  # not a kind: what a solver question asks with ``need`` for two jokers in its melds
NUM_DECKS = 2
FIRST_JOKER = NUM_DECKS * NUM_CARDS  # physical id of the first joker (104)
MAX_PHYSICAL = FIRST_JOKER + MAX_JOKERS  # 110: physical ids are 0..109
JOKER_TEXTS = ("JK", "*")
MAX_COUNTS = np.array([NUM_DECKS] * NUM_CARDS + [MAX_JOKERS], dtype=np.uint8)  # the most of each kind a hand can hold


def num_physical(rules: Optional[RommeRules] = None) -> int:
    """Cards in the pack under ``rules`` (110 by default, 108 with 4 jokers)."""
    return FIRST_JOKER + (rules.jokers if rules is not None else MAX_JOKERS)


def physical_deck(rules: Optional[RommeRules] = None) -> np.ndarray:
    """The physical ids of the pack under ``rules``, in order (0..103, then the jokers)."""
    return np.arange(num_physical(rules), dtype=np.int64)


def kind_of(card: int) -> int:
    """The kind (0..51, or ``JOKER``) of physical card ``card`` (0..109)."""
    card = int(card)
    if not 0 <= card < MAX_PHYSICAL:
        raise ValueError(f"a physical card id is 0..{MAX_PHYSICAL - 1}, got {card}")
    return card % NUM_CARDS if card < FIRST_JOKER else JOKER


KINDS = tuple(c % NUM_CARDS if c < FIRST_JOKER else JOKER for c in range(MAX_PHYSICAL))  # ``kind_of`` as a table


def kinds_of(cards) -> np.ndarray:
    """``kind_of`` over an integer array of physical ids (any shape)."""
    c = np.asarray(cards, dtype=np.int64)
    if c.size and (c.min() < 0 or c.max() >= MAX_PHYSICAL):
        raise ValueError(f"physical card ids are 0..{MAX_PHYSICAL - 1}")
    return np.where(c < FIRST_JOKER, c % NUM_CARDS, JOKER)


def counts_of(cards) -> np.ndarray:
    """The kind counts (uint8) of physical cards: a 1-d sequence of ids gives a (53,)
    hand, an (N, k) array N hands. A physical id repeated within a hand is refused."""
    c = np.asarray(cards, dtype=np.int64)
    if c.ndim not in (1, 2):
        raise ValueError(f"physical cards must be a 1-d sequence or an (N, k) array, got shape {c.shape}")
    rows = c.reshape(1, -1) if c.ndim == 1 else c
    if rows.shape[1] > 1 and (np.diff(np.sort(rows, axis=1), axis=1) == 0).any():
        raise ValueError("a physical card is repeated in a hand")
    kinds = kinds_of(rows)
    out = np.zeros((rows.shape[0], NUM_KINDS), dtype=np.uint8)
    np.add.at(out, (np.repeat(np.arange(rows.shape[0]), rows.shape[1]), kinds.ravel()), 1)
    return out[0] if c.ndim == 1 else out


def counts_of_kinds(kinds: Iterable[int]) -> np.ndarray:
    """The (53,) kind counts of a sequence of kinds (0..52), checked against ``MAX_COUNTS``."""
    out = np.zeros(NUM_KINDS, dtype=np.int64)
    for k in kinds:
        k = int(k)
        if not 0 <= k < NUM_KINDS:
            raise ValueError(f"a kind is 0..52 (52 the joker), got {k}")
        out[k] += 1
    return check_counts(out)


def check_counts(counts) -> np.ndarray:
    """``counts`` as a uint8 array of shape (..., 53), refusing negative counts, more than
    two of a kind or more than 6 jokers."""
    c = np.asarray(counts)
    if c.dtype.kind not in "iub":
        raise TypeError(f"kind counts must be integers, got dtype {c.dtype}")
    if c.ndim == 0 or c.shape[-1] != NUM_KINDS:
        raise ValueError(f"kind counts have 53 entries (52 kinds and the jokers) on the last axis, got shape {c.shape}")
    if c.dtype != np.uint8:  # (counts of the solver's own dtype, as its callers pass them, need no conversion)
        c = c.astype(np.int64)
        if c.size and c.min() < 0:
            raise ValueError("kind counts must be 0..2 for each card and 0..6 jokers")
    if c.size and (c > MAX_COUNTS).any():
        raise ValueError("kind counts must be 0..2 for each card and 0..6 jokers")
    return c.astype(np.uint8)


def hand_size(counts) -> np.ndarray:
    """Cards in hands given as kind counts (shape (..., 53) -> (...))."""
    return np.asarray(counts, dtype=np.int64).sum(axis=-1)


def expand(counts) -> list[int]:
    """The kinds of one hand of counts, each as often as held, in kind order (jokers last)."""
    c = check_counts(counts)
    if c.ndim != 1:
        raise ValueError("expand takes one hand of 53 counts")
    return [k for k in range(NUM_KINDS) for _ in range(int(c[k]))]


# ----------------------------------------------------------------------------- text


def parse_kind(text: str) -> int:
    """One card's kind from text: ``'AC'``, ``'10H'``, ``'th'``; ``'JK'`` or ``'*'`` for a joker."""
    t = text.strip().upper()
    if t in JOKER_TEXTS:
        return JOKER
    try:
        return parse_card(t)
    except ValueError:
        raise ValueError(f"cannot parse card {text!r}: expected rank A23456789TJQK (or 10) then suit CDHS, "
                         "e.g. '7D', or 'JK' or '*' for a joker") from None


def parse_kinds(text: str) -> list[int]:
    """Kinds of space- or comma-separated cards; repeats are allowed (two decks)."""
    return [parse_kind(tok) for tok in text.replace(",", " ").split()]


def parse_hand(text: str) -> np.ndarray:
    """A hand's (53,) kind counts from text such as ``'AC AC 2C 3C JK'``."""
    return counts_of_kinds(parse_kinds(text))


def kind_str(kind: int, symbols: bool = False) -> str:
    """``'7D'`` for kind 20, ``'JK'`` for the joker."""
    kind = int(kind)
    if kind == JOKER:
        return "JK"
    return card_str(kind, symbols)


def card_text(card: int, symbols: bool = False) -> str:
    """The text of physical card ``card`` (its kind's text)."""
    return kind_str(kind_of(card), symbols)


def format_kinds(kinds: Iterable[int], symbols: bool = False) -> str:
    return " ".join(kind_str(k, symbols) for k in kinds)


def format_hand(counts, symbols: bool = False) -> str:
    """The cards of a hand of counts in kind order (suit then rank), jokers last:
    ``'AC AC 2C 7D JK'``."""
    return format_kinds(expand(counts), symbols)


# ----------------------------------------------------------------------------- values


def card_value(kind: int) -> int:
    """A natural card's value: ace 11, two to ten their number, jack, queen, king 10.

    (The ace counts 1 where it stands low in a run, in a meld's worth; see
    ``rummy_env.romme.melds.Meld.value``.) The joker has no value of its own."""
    kind = int(kind)
    if not 0 <= kind < NUM_CARDS:
        raise ValueError(f"card_value takes a natural card's kind 0..51, got {kind}")
    rank = kind % NUM_RANKS
    return 11 if rank == 0 else min(rank + 1, 10)


RANK_VALUES = tuple(card_value(r) for r in range(NUM_RANKS))  # by rank: (11, 2, 3, ..., 10, 10, 10, 10)


def penalty_values(rules: Optional[RommeRules] = None) -> np.ndarray:
    """(53,) int64: the penalty of each kind left in hand: ``card_value``, the joker
    ``rules.joker_penalty`` (20 by default). A read-only array, shared."""
    return _penalty_table(rules.joker_penalty if rules is not None else RommeRules().joker_penalty)


@functools.lru_cache(maxsize=None)
def _penalty_table(joker: int) -> np.ndarray:
    table = np.array([card_value(k) for k in range(NUM_CARDS)] + [joker], dtype=np.int64)
    table.flags.writeable = False
    return table


def penalty_value(kind: int, rules: Optional[RommeRules] = None) -> int:
    """The penalty of one card of ``kind`` left in hand."""
    kind = int(kind)
    if not 0 <= kind < NUM_KINDS:
        raise ValueError(f"a kind is 0..52 (52 the joker), got {kind}")
    return int(penalty_values(rules)[kind])


def hand_penalty(counts, rules: Optional[RommeRules] = None) -> np.ndarray:
    """The penalty of whole hands of counts (shape (..., 53) -> (...), int64)."""
    return check_counts(counts).astype(np.int64) @ penalty_values(rules)
