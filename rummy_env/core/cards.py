"""Cards: ids, values, 52-bit hand masks, parsing and printing.

Card id ``c = suit * 13 + rank`` with rank 0 = ace ... 12 = king and suits in bridge
order (clubs 0, diamonds 1, hearts 2, spades 3). A hand is a 52-bit integer mask with
bit ``c`` set when card ``c`` is held; the batch code uses ``numpy.uint64`` arrays of
the same masks. Text form is rank then suit (``AC 7D TH KS``); parsers also accept
``10H`` and lower case.
"""

from __future__ import annotations

import functools
import re

from collections.abc import Iterable

import numpy as np

NUM_RANKS = 13
NUM_SUITS = 4
NUM_CARDS = 52
FULL_DECK = (1 << NUM_CARDS) - 1
SUIT_BITS = (1 << NUM_RANKS) - 1  # one suit's 13-bit field of a hand mask
RANK_MASKS = tuple(sum(1 << (s * NUM_RANKS + r) for s in range(NUM_SUITS)) for r in range(NUM_RANKS))

RANK_CHARS = "A23456789TJQK"
SUIT_CHARS = "CDHS"
SUIT_SYMBOLS = "\u2663\u2666\u2665\u2660"


def card_id(rank: int, suit: int) -> int:
    """Card id of ``rank`` (0 = ace .. 12 = king) in ``suit`` (0 = clubs .. 3 = spades)."""
    if not (0 <= rank < NUM_RANKS and 0 <= suit < NUM_SUITS):
        raise ValueError(f"rank must be 0..12 and suit 0..3, got rank={rank}, suit={suit}")
    return suit * NUM_RANKS + rank


def rank_of(card: int) -> int:
    return card % NUM_RANKS


def suit_of(card: int) -> int:
    return card // NUM_RANKS


def card_value(card: int, five_under_ten: bool = False) -> int:
    """Deadwood value: ace 1, 2-9 face value, T J Q K 10 (A-9 are 5 with ``five_under_ten``)."""
    rank = card % NUM_RANKS
    if rank >= 9:
        return 10
    return 5 if five_under_ten else rank + 1


def rank_values(five_under_ten: bool = False) -> np.ndarray:
    """Deadwood value of each rank, shape (13,)."""
    return np.array([card_value(r, five_under_ten) for r in range(NUM_RANKS)], dtype=np.int64)


def card_str(card: int, symbols: bool = False) -> str:
    """``'7D'`` for card 20; with ``symbols`` the suit is printed as a symbol."""
    if not 0 <= card < NUM_CARDS:
        raise ValueError(f"card id must be 0..51, got {card}")
    suits = SUIT_SYMBOLS if symbols else SUIT_CHARS
    return RANK_CHARS[card % NUM_RANKS] + suits[card // NUM_RANKS]


def parse_card(text: str) -> int:
    """Parse one card such as ``'7D'``, ``'10h'`` or ``'TS'``."""
    t = text.strip().upper()
    if len(t) == 3 and t.startswith("10"):
        t = "T" + t[2]
    if len(t) != 2 or t[0] not in RANK_CHARS or t[1] not in SUIT_CHARS:
        raise ValueError(
            f"cannot parse card {text!r}: expected rank A23456789TJQK (or 10) then suit CDHS, e.g. '7D'"
        )
    return card_id(RANK_CHARS.index(t[0]), SUIT_CHARS.index(t[1]))


def parse_cards(text: str) -> list[int]:
    """Parse space- or comma-separated cards (``'AC 2C 3C'``) into ids, refusing repeats."""
    cards = [parse_card(tok) for tok in text.replace(",", " ").split()]
    if len(set(cards)) != len(cards):
        raise ValueError(f"card repeated in {text!r}")
    return cards


def parse_hand(text: str) -> int:
    """Parse cards into a 52-bit hand mask."""
    return cards_to_mask(parse_cards(text))


CARD_BITS = tuple(1 << c for c in range(NUM_CARDS))  # CARD_BITS[c] == 1 << c


def distinct_cards_mask(cards: Iterable[int]) -> int:
    """The mask of card ids the caller knows are valid and distinct (a pile, a stock):
    ``cards_to_mask`` without its checks, summed in C, for per-step information sets."""
    return sum(map(CARD_BITS.__getitem__, cards))


def cards_to_mask(cards: Iterable[int]) -> int:
    mask = 0
    for c in cards:
        if not 0 <= c < NUM_CARDS:
            raise ValueError(f"card id must be 0..51, got {c}")
        mask |= 1 << c
    return mask


# SUIT_CARDS[s][field]: the card ids of suit s whose ranks are the bits of the 13-bit field,
# in increasing order (SUIT_CARDS[0][field] are the ranks themselves). Built once (about
# 20 ms): mask_to_cards runs on every observation and legal-action list, and four lookups
# are five times faster than walking the bits.
SUIT_CARDS = tuple(
    [[s * NUM_RANKS + r for r in range(NUM_RANKS) if (m >> r) & 1] for m in range(1 << NUM_RANKS)]
    for s in range(NUM_SUITS)
)


def mask_to_cards(mask: int) -> list[int]:
    """Card ids held in ``mask`` (a 52-bit mask), in increasing id order."""
    mask = int(mask)
    if not 0 <= mask < 1 << NUM_CARDS:
        raise ValueError(f"a card mask holds 52 bits, got {mask}")
    clubs, diamonds, hearts, spades = SUIT_CARDS
    return (clubs[mask & SUIT_BITS] + diamonds[(mask >> 13) & SUIT_BITS] + hearts[(mask >> 26) & SUIT_BITS]
            + spades[mask >> 39])


def format_cards(cards: Iterable[int], symbols: bool = False) -> str:
    return " ".join(card_str(c, symbols) for c in cards)


def format_hand(mask: int, symbols: bool = False) -> str:
    """Cards of a mask sorted by suit then rank, e.g. ``'AC 2C 3C 7D'``. Texts are cached,
    whole and per suit (records of thousands of hands format their melds and hands many times)."""
    mask = int(mask)
    if not 0 <= mask < 1 << NUM_CARDS:
        raise ValueError(f"a card mask holds 52 bits, got {mask}")
    return _hand_text(mask, symbols)


@functools.lru_cache(maxsize=1 << 14)
def _hand_text(mask: int, symbols: bool) -> str:
    """``format_hand`` of a checked mask; memoised whole too, since the 329 possible melds
    come back in every record."""
    parts = [_suit_text(s, (mask >> (NUM_RANKS * s)) & SUIT_BITS, symbols) for s in range(NUM_SUITS)]
    return " ".join(part for part in parts if part)


@functools.lru_cache(maxsize=None)
def _suit_text(suit: int, field: int, symbols: bool) -> str:
    """``format_cards`` of the cards of one suit held in ``field`` (13 bits)."""
    return format_cards(SUIT_CARDS[suit][field], symbols)


_CARD_WORD = re.compile(rf"\b([{RANK_CHARS}])([{SUIT_CHARS}])\b")  # a card in letters, e.g. 7D


def with_suit_symbols(text: str) -> str:
    """``text`` with every card written with its suit symbol (``'discard 7D'`` ->
    ``'discard 7\u2666'``), for a person's screen: the action names write cards with
    letters (as records and logs do), the hands are drawn with symbols, and one screen
    should write a card one way."""
    return _CARD_WORD.sub(lambda m: m[1] + SUIT_SYMBOLS[SUIT_CHARS.index(m[2])], text)


def card_count(n: int) -> str:
    """``'1 card'``, ``'7 cards'``: a number of cards in words, for people's screens."""
    return f"{n} card{'' if n == 1 else 's'}"


def popcount(mask: int) -> int:
    return int(mask).bit_count()


def run_positions(fields, aces_high: bool):
    """13-bit suit fields (bit = rank; ints or integer arrays) in run order (bit = the
    card's position in a run): the same with aces low, the ace moved above the king with
    aces high. Runs are blocks of 3 or more adjacent positions."""
    return ((fields >> 1) | ((fields & 1) << 12)) if aces_high else fields


def run_ranks(positions, aces_high: bool):
    """The inverse of ``run_positions``."""
    return (((positions << 1) & SUIT_BITS) | (positions >> 12)) if aces_high else positions
