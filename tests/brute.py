"""Brute-force reference for the meld solver: enumerate every arrangement of disjoint melds.

Slow and obviously correct, so the fast solver is tested against it.
"""

from __future__ import annotations

import functools

from rummy_env.core.cards import NUM_RANKS, card_value, mask_to_cards


@functools.lru_cache(maxsize=None)
def all_melds(aces_high: bool = False) -> tuple[int, ...]:
    """Every set (65) and run (264) as a 52-bit mask."""
    melds = []
    for r in range(NUM_RANKS):
        rank_cards = [s * NUM_RANKS + r for s in range(4)]
        for leave_out in range(5):  # 4 three-card sets and the four-card set
            melds.append(sum(1 << c for i, c in enumerate(rank_cards) if i != leave_out))
    order = [(p + 1) % NUM_RANKS for p in range(NUM_RANKS)] if aces_high else list(range(NUM_RANKS))
    for s in range(4):
        for start in range(NUM_RANKS):
            for end in range(start + 3, NUM_RANKS + 1):
                melds.append(sum(1 << (s * NUM_RANKS + order[p]) for p in range(start, end)))
    return tuple(melds)


def brute_min_deadwood(hand: int, aces_high: bool = False, five_under_ten: bool = False) -> int:
    value = {c: card_value(c, five_under_ten) for c in range(52)}
    inside = [m for m in all_melds(aces_high) if m & hand == m]

    def mask_value(mask: int) -> int:
        return sum(value[c] for c in mask_to_cards(mask))

    @functools.lru_cache(maxsize=None)
    def best(rest: int, start: int) -> int:
        result = mask_value(rest)
        for i in range(start, len(inside)):
            m = inside[i]
            if m & rest == m:
                result = min(result, best(rest & ~m, i + 1))
        return result

    return best(hand, 0)


def brute_discard_deadwood(hand: int, aces_high: bool = False, five_under_ten: bool = False) -> list[int]:
    return [
        brute_min_deadwood(hand & ~(1 << c), aces_high, five_under_ten) if (hand >> c) & 1 else -1
        for c in range(52)
    ]
