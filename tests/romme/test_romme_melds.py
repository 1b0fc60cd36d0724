"""Rommé's meld solver against brute force.

Everything here is written from the rule text (docs/games/romme/rules.md), not from the
solver: ``naive_readings`` says whether a list of cards is a meld by trying every card
the jokers could stand for and every order; ``partitions`` enumerates every way to split
a hand's physical cards into melds and cards left; ``frontier`` is a smarter search for
bigger meld-rich hands (melds listed from ``naive_readings`` over the hand's same-rank
and same-suit sub-multisets, outcomes kept as Pareto sets). Each solver function is
checked against them on random and meld-rich hands under every rule option that changes
melds, and on scripted hands worked out by hand.
"""

from __future__ import annotations

import builtins
import functools
import itertools

import numpy as np
import pytest

from romme_backends import BACKENDS, use_backend
from rummy_env.romme import melds
from rummy_env.romme.cards import JOKER, TWO_JOKERS, parse_hand, parse_kind
from rummy_env.romme.melds import (
    Meld, best_arrangement, can_come_out, come_out, is_meld, joker_swaps, layoffs, least_penalty, melds_of,
    parse_meld,
)
from rummy_env.romme.rules import RommeRules

DEFAULT = RommeRules()
HANDS = {"small": 400, "big": 40, "random": 60}  # hands per rule variant and backend in each brute-force test
VARIANTS = {
    "default": DEFAULT,
    "corner": RommeRules(aces_around_the_corner=True),
    "adjacent": RommeRules(adjacent_jokers=True),
    "more_natural": RommeRules(naturals_per_meld="more_than_jokers"),
    "loose": RommeRules(aces_around_the_corner=True, adjacent_jokers=True, come_out_points=40,
                        go_out_without_discard=True),
    "run40": RommeRules(come_out_points=40, come_out_needs_run=True),
    "four_jokers": RommeRules(jokers=4, joker_penalty=25, come_out_needs_run=True, aces_around_the_corner=True,
                              naturals_per_meld="more_than_jokers"),
}


# ----------------------------------------------------------------------------- the rule text


def card_worth(rank: int) -> int:
    return 11 if rank == 0 else min(rank + 1, 10)


def penalty(kind: int, rules: RommeRules) -> int:
    return rules.joker_penalty if kind == JOKER else card_worth(kind % 13)


def enough_naturals(naturals: int, jokers: int, rules: RommeRules) -> bool:
    return naturals >= 2 if rules.naturals_per_meld == "at_least_two" else naturals > jokers


def naive_readings(kinds, rules: RommeRules) -> set:
    """Every reading of exactly these cards (kinds, 52 a joker) as one meld:
    ``('set', rank, natural suits, jokers, worth)`` or ``('run', suit, ((rank, joker?), ...)
    in run order, worth)``."""
    naturals = sorted(k for k in kinds if k != JOKER)
    jokers = len(kinds) - len(naturals)
    out = set()
    if len(kinds) < 3 or not enough_naturals(len(naturals), jokers, rules) or len(set(naturals)) < len(naturals):
        return out
    ranks, suits = {k % 13 for k in naturals}, {k // 13 for k in naturals}
    if len(ranks) == 1 and len(kinds) <= 4:  # naturals of distinct suits (checked above), jokers the missing ones
        rank = ranks.pop()
        out.add(("set", rank, tuple(sorted(k // 13 for k in naturals)), jokers, card_worth(rank) * len(kinds)))
    if len(suits) == 1:
        suit = suits.pop()
        own = [k % 13 for k in naturals]
        for stand in itertools.combinations([r for r in range(13) if r not in own], jokers):
            every = set(own) | set(stand)
            for first in every:
                order = [(first + i) % 13 for i in range(len(kinds))]
                if set(order) != every:
                    continue
                turns = [i for i in range(len(order) - 1) if order[i] == 12]  # K followed by A
                if not rules.aces_around_the_corner and (turns and turns != [len(order) - 2]):
                    continue  # only Q-K-A may follow the king, and the ace then ends the run
                flags = [r in stand for r in order]
                if not rules.adjacent_jokers and any(a and b for a, b in zip(flags, flags[1:])):
                    continue
                worth = sum((1 if i == 0 else 11) if r == 0 else card_worth(r) for i, r in enumerate(order))
                out.add(("run", suit, tuple(zip(order, flags)), worth))
    return out


def reading(meld: Meld) -> tuple:
    if meld.kind == "set":
        return ("set", meld.rank, meld.suits, meld.num_jokers, meld.value)
    return ("run", meld.suit, tuple((k % 13, j) for k, j in zip(meld.represented, meld.is_joker)), meld.value)


def kinds_of_counts(counts) -> list[int]:
    return [k for k in range(53) for _ in range(int(counts[k]))]


def counts_of_kinds(kinds) -> np.ndarray:
    out = np.zeros(53, dtype=np.uint8)
    for k in kinds:
        out[k] += 1
    return out


# ----------------------------------------------------------------------------- hands


def random_hand(rng, size: int, rules: RommeRules) -> np.ndarray:
    """``size`` physical cards of the pack, as kind counts."""
    pack = list(range(104 + rules.jokers))
    cards = rng.choice(pack, size, replace=False)
    return counts_of_kinds([c % 52 if c < 104 else JOKER for c in cards])


def rich_hand(rng, size: int, rules: RommeRules, jokers: int) -> np.ndarray:
    """``size`` cards from few ranks and one or two suits (both decks), ``jokers`` of them jokers."""
    ranks = rng.choice(13, int(rng.integers(1, 4)), replace=False)
    suits = rng.choice(4, int(rng.integers(1, 3)), replace=False)
    low = int(rng.integers(0, 13))
    span = int(rng.integers(3, 8))
    pool = sorted({s * 13 + r for s in range(4) for r in ranks}
                  | {s * 13 + (low + i) % 13 for s in suits for i in range(span)})
    physical = [k for k in pool for _ in range(2)]
    jokers = min(jokers, rules.jokers, size)
    naturals = rng.choice(physical, min(size - jokers, len(physical)), replace=False)
    return counts_of_kinds(list(naturals) + [JOKER] * (size - len(naturals)))


def near_meld(rng, rules: RommeRules) -> np.ndarray:
    """A set or run shape with some cards dropped, some jokers, now and then a stray card."""
    jokers = int(rng.integers(0, min(4, rules.jokers) + 1))
    if rng.random() < 0.4:
        rank = int(rng.integers(13))
        kinds = [s * 13 + rank for s in rng.choice(4, int(rng.integers(1, 5)), replace=False)]
    else:
        suit, start, length = int(rng.integers(4)), int(rng.integers(13)), int(rng.integers(2, 10))
        kinds = [suit * 13 + (start + i) % 13 for i in range(length) if rng.random() < 0.75]
    if rng.random() < 0.15:
        kinds.append(int(rng.integers(52)))
    return counts_of_kinds(kinds + [JOKER] * jokers)


# ----------------------------------------------------------------------------- brute force


@functools.lru_cache(maxsize=None)
def best_reading(kinds: tuple, rules: RommeRules):
    """(worth, is a run) of the most valuable reading of these cards, or None."""
    found = naive_readings(kinds, rules)
    if not found:
        return None
    worth = max(r[-1] for r in found)
    return worth, next(iter(found))[0] == "run"


def partitions(kinds: list[int], rules: RommeRules, need: int | None):
    """Every split of the physical cards into melds and cards left: yields (penalty left,
    worth, has a run, need used, cards left)."""
    n = len(kinds)

    def go(rest: tuple[int, ...], pen: int, worth: int, run: bool, used: bool, left: int):
        if not rest:
            yield pen, worth, run, used, left
            return
        first, others = rest[0], rest[1:]
        yield from go(others, pen + penalty(kinds[first], rules), worth, run, used, left + 1)
        for size in range(2, min(len(others), 12) + 1):
            for group in itertools.combinations(others, size):
                cards = tuple(sorted(kinds[i] for i in (first,) + group))
                got = best_reading(cards, rules)
                if got is None:
                    continue
                rest2 = tuple(i for i in others if i not in group)
                yield from go(rest2, pen, worth + got[0], run or got[1], used or need in cards, left)

    yield from go(tuple(range(n)), 0, 0, False, False, 0)


def candidate_melds(counts, rules: RommeRules) -> list[tuple[tuple[int, ...], int, bool]]:
    """Every (cards, best worth, is a run) usable as a meld: sub-multisets of one rank or one
    suit (each kind at most once) plus jokers that ``naive_readings`` accepts."""
    jokers = int(counts[JOKER])
    held = [k for k in range(52) if counts[k]]
    groups = [[k for k in held if k % 13 == r] for r in range(13)] + [[k for k in held if k // 13 == s] for s in range(4)]
    out = {}
    for group in groups:
        for size in range(2, len(group) + 1):
            for nat in itertools.combinations(group, size):
                for j in range(jokers + 1):
                    if size + j < 3:
                        continue
                    cards = tuple(sorted(nat)) + (JOKER,) * j
                    got = best_reading(cards, rules)
                    if got is not None:
                        out[cards] = got
    return [(cards, worth, run) for cards, (worth, run) in out.items()]


def frontier(counts, rules: RommeRules, need: int | None):
    """Outcomes (penalty, worth, has a run, need used, min(cards left, 2)) of every split of
    the hand into melds and cards left, Pareto-pruned (least penalty, most worth) per
    (run, need, left): a search over the remaining cards, lowest natural card first."""
    cands = candidate_melds(counts, rules)

    @functools.lru_cache(maxsize=None)
    def go(rest: tuple[int, ...]):
        low = next((k for k in range(52) if rest[k]), None)
        if low is None:
            j = rest[JOKER]
            return frozenset({(j * rules.joker_penalty, 0, False, False, min(j, 2))})
        found = set()
        after = list(rest)
        after[low] -= 1
        for pen, worth, run, used, left in go(tuple(after)):
            found.add((pen + penalty(low, rules), worth, run, used, min(left + 1, 2)))
        for cards, worth, run in cands:
            if low not in cards:
                continue
            after = list(rest)
            ok = True
            for k in cards:
                after[k] -= 1
                ok &= after[k] >= 0
            if not ok:
                continue
            for pen, w, r, used, left in go(tuple(after)):
                found.add((pen, w + worth, r or run, used or need in cards, left))
        best = {}
        for o in found:  # per (run, used, left): keep outcomes no other beats on both penalty and worth
            best.setdefault(o[2:], []).append(o)
        kept = set()
        for group in best.values():
            for o in group:
                if not any(p[0] <= o[0] and p[1] >= o[1] and p[:2] != o[:2] for p in group):
                    kept.add(o)
        return frozenset(kept)

    return go(tuple(int(c) for c in counts))


def expected(outcomes, rules: RommeRules, keep: int, need: int | None):
    """(least penalty, come-out (penalty, worth) or None) from brute-force outcomes."""
    outcomes = list(outcomes)
    least = min(o[0] for o in outcomes)
    ok = [o for o in outcomes if o[1] >= rules.come_out_points and (o[2] or not rules.come_out_needs_run)
          and (o[3] or need is None) and o[4] >= keep]
    best = min(((o[0], -o[1]) for o in ok), default=None)
    return least, None if best is None else (best[0], -best[1])


def check_arrangement(arr, hand, rules: RommeRules) -> None:
    """An arrangement's melds are legal, disjoint and from the hand; its numbers add up."""
    total = np.zeros(53, dtype=np.int64)
    for m in arr.melds:
        assert m.is_legal(rules), m
        assert reading(m) in naive_readings(tuple(sorted(kinds_of_counts(m.cards()))), rules), m
        total += m.cards()
    total += arr.left_counts()
    assert np.array_equal(total, np.asarray(hand, dtype=np.int64))
    assert arr.penalty == sum(penalty(k, rules) for k in arr.left)
    assert arr.value == sum(m.value for m in arr.melds)


def check_hand(hand, rules: RommeRules, outcomes, need: int | None = None, keep: int | None = None) -> None:
    """Every solver function on one hand against brute-force outcomes (with cards left
    capped at 2, so ``keep`` is 0..2; None: the rules' own)."""
    kept = (0 if rules.go_out_without_discard else 1) if keep is None else keep
    least, want = expected(outcomes, rules, kept, need)
    if need is None:
        assert least_penalty(hand, rules) == least
        arr = best_arrangement(hand, rules)
        check_arrangement(arr, hand, rules)
        assert arr.penalty == least
    got = come_out(hand, rules, need_card=need, keep=keep)
    assert bool(can_come_out(hand, rules, need_card=-1 if need is None else need, keep=keep)) == (want is not None)
    # the search with the value in its context, whatever come_out's shortcuts
    full = melds._Search(np.asarray(hand), rules, rules.come_out_points, rules.come_out_needs_run, need, kept).best()
    assert full == want
    if want is None:
        assert got is None
    else:
        assert got is not None and (got.penalty, got.value) == want, (got, want)
        check_arrangement(got, hand, rules)
        assert got.value >= rules.come_out_points and len(got.left) >= kept
        assert got.has_run or not rules.come_out_needs_run
        assert need is None or any(m.cards()[need] for m in got.melds)


@pytest.fixture(params=BACKENDS)
def backend(request, monkeypatch):
    """Run a test with the solver's compiled kernels (skipped without numba) and with its
    Python search."""
    return use_backend(request, monkeypatch, melds._python_least_penalty)


# ----------------------------------------------------------------------------- tests: readings


@pytest.mark.parametrize("name", list(VARIANTS))
def test_melds_of_equals_the_rule_text(name, rng):
    rules = VARIANTS[name]
    checked = found = 0
    for _ in range(300):
        hand = near_meld(rng, rules)
        kinds = kinds_of_counts(hand)
        want = naive_readings(tuple(kinds), rules)
        got = melds_of(hand, rules=rules)
        assert {reading(m) for m in got} == want, kinds
        assert len(got) == len(want) and all(m.is_legal(rules) for m in got)
        assert is_meld(hand, rules=rules) == bool(want)
        for m in got:
            assert np.array_equal(m.cards(), hand) and parse_meld(m.text(), rules) == m
        checked += 1
        found += bool(want)
    assert found > 60  # the shapes are close enough to melds


def test_scripted_meld_values_and_readings():
    assert parse_meld("AH 2H 3H").value == 6
    assert parse_meld("QH KH AH").value == 31
    assert parse_meld("5H [6H] 7H").value == 18 and parse_meld("KC KD [KH]").value == 30
    assert parse_meld("AC AD [AS]").value == 33  # the ace in a set is 11
    assert parse_meld("[AH] 2H 3H").value == 6  # a joker standing for the low ace is 1
    assert str(parse_meld("5D [5H] 5C")) == "5C 5D [5H]"  # a set's joker names the lowest missing suit
    two_places = melds_of("4H 5H JK")
    assert [str(m) for m in two_places] == ["[3H] 4H 5H", "4H 5H [6H]"]
    assert [m.value for m in two_places] == [12, 15]
    assert [str(m) for m in melds_of("AH 2H JK")] == ["AH 2H [3H]"]
    assert [str(m) for m in melds_of("AH KH JK")] == ["[QH] KH AH"]
    assert [str(m) for m in melds_of("AH KH JK", rules={"aces_around_the_corner": True})] == ["[QH] KH AH", "KH AH [2H]"]
    assert parse_meld("KH AH 2H", rules={"aces_around_the_corner": True}).value == 23
    # two jokers side by side: refused by default, at the ends and inside
    assert melds_of("5H JK JK 8H") == [] and [str(m) for m in melds_of("5H 6H JK JK")] == ["[4H] 5H 6H [7H]"]
    assert [str(m) for m in melds_of("5H JK JK 8H", rules={"adjacent_jokers": True})] == ["5H [6H] [7H] 8H"]
    assert [str(m) for m in melds_of("5H JK 7H JK")] == ["[4H] 5H [6H] 7H", "5H [6H] 7H [8H]"]
    # natural cards: two at least, or more than the jokers
    assert [str(m) for m in melds_of("5C 5D JK JK")] == ["5C 5D [5H] [5S]"]
    assert melds_of("5C 5D JK JK", rules={"naturals_per_meld": "more_than_jokers"}) == []
    assert melds_of("5C JK JK") == [] and melds_of("5C 5C 5D") == [] and melds_of("5C 5D 6D") == []
    assert melds_of("AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH") == []  # never both aces in one run
    with pytest.raises(ValueError, match="side by side"):
        parse_meld("4H [5H] [6H] 7H")
    with pytest.raises(ValueError, match="corner"):
        parse_meld("KH AH 2H")


# ----------------------------------------------------------------------------- tests: the solver


@pytest.mark.parametrize("name", list(VARIANTS))
def test_solver_equals_every_partition_of_small_hands(name, backend, rng):
    """Hands of 3..10 cards: every split of the physical cards into melds and cards left."""
    rules = VARIANTS[name]
    hands = []
    for i in range(HANDS["small"]):
        size = int(rng.integers(3, 11))
        hands.append(rich_hand(rng, size, rules, int(rng.integers(0, 6))) if i % 3 else random_hand(rng, size, rules))
    batch = np.array(hands)
    for hand in hands:
        kinds = kinds_of_counts(hand)
        need = int(rng.choice(kinds)) if rng.random() < 0.4 else None
        keep = [None, 0, 1, 2][int(rng.integers(4))]
        outcomes = {(p, w, r, u, min(left, 2)) for p, w, r, u, left in partitions(kinds, rules, need)}
        check_hand(hand, rules, outcomes, need, keep)
    assert np.array_equal(least_penalty(batch, rules), [least_penalty(h, rules) for h in hands])


@pytest.mark.parametrize("name", ["default", "corner", "more_natural", "loose", "run40", "four_jokers"])
def test_solver_equals_the_search_on_big_meld_rich_hands(name, backend, rng):
    """Hands of 13..15 cards with duplicates and several jokers, from few ranks and suits."""
    rules = VARIANTS[name]
    for i in range(HANDS["big"]):
        size = int(rng.integers(13, 16))
        hand = rich_hand(rng, size, rules, 1 + i % 4)
        kinds = kinds_of_counts(hand)
        need = int(rng.choice(kinds)) if i % 2 else None
        check_hand(hand, rules, frontier(hand, rules, need), need, keep=i % 3)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_two_jokers_asked_equal_every_partition_of_small_hands(name, backend, rng):
    """``TWO_JOKERS`` as the need (two jokers in the melds: what the legal mask asks of a
    player who owes a swap's joker and must not keep the joker taken from the pile), on
    hands of 3..9 cards with two or three jokers: every split into melds and cards left."""
    rules = VARIANTS[name]
    asked = found = 0
    for _ in range(HANDS["small"] // 4):
        size = int(rng.integers(3, 10))
        hand = rich_hand(rng, size, rules, int(rng.integers(2, 4)))
        if hand[JOKER] < 2:
            continue
        kinds = kinds_of_counts(hand)
        keep, target, need_run = int(rng.integers(0, 3)), int(rng.choice([0, 20, 40])), bool(rng.random() < 0.3)
        want = any(w >= target and (r or not need_run) and jokers >= 2 and left >= keep
                   for w, r, jokers, left in joker_partitions(kinds, rules))
        got = melds.rest_can_come_out(hand, target, need_run, TWO_JOKERS, keep, rules)
        assert got == want, (kinds, keep, target, need_run)
        by_value = melds._Search(hand, rules, target, need_run, TWO_JOKERS, keep, by_value=True).best()
        assert (by_value is not None and by_value[1] >= target) == want
        asked += 1
        found += want
    assert asked >= 40 and 0 < found < asked  # both answers met


def joker_partitions(kinds: list[int], rules: RommeRules):
    """Every split of the cards into melds and cards left: (worth, has a run, jokers in the
    melds, cards left)."""
    def go(rest: tuple[int, ...], worth: int, run: bool, jokers: int, left: int):
        if not rest:
            yield worth, run, jokers, left
            return
        first, others = rest[0], rest[1:]
        yield from go(others, worth, run, jokers, left + 1)
        for size in range(2, min(len(others), 12) + 1):
            for group in itertools.combinations(others, size):
                cards = tuple(sorted(kinds[i] for i in (first,) + group))
                got = best_reading(cards, rules)
                if got is not None:
                    rest2 = tuple(i for i in others if i not in group)
                    yield from go(rest2, worth + got[0], run or got[1], jokers + cards.count(JOKER), left)

    yield from go(tuple(range(len(kinds))), 0, False, 0, 0)


def test_solver_equals_the_search_on_random_hands(backend, rng):
    for name in ("default", "loose", "four_jokers"):
        rules = VARIANTS[name]
        for _ in range(HANDS["random"]):
            hand = random_hand(rng, int(rng.integers(13, 15)), rules)
            check_hand(hand, rules, frontier(hand, rules, None))


def test_scripted_coming_out(backend):
    rules = RommeRules()
    # exactly 30: 10C 10D 10S; 29 is not enough: 9C 9D 9S (27) + nothing else
    assert come_out("TC TD TS 4D 9H", rules).value == 30
    assert come_out("9C 9D 9S 2H 4D", rules) is None
    assert come_out("9H TH JH 2C 5D", rules) is None and parse_meld("9H TH JH").value == 29  # 29 is not enough
    assert come_out("TH JH QH 2C 5D", rules).value == 30
    assert come_out("9C 9D 9S AH 2H 3H 5D", rules).value == 33  # 27 + 6
    assert come_out("9C 9D JK 2H", rules) is None  # 9C 9D [9H] is worth 27
    assert come_out("9C 9D JK 2H", {"come_out_points": 27}).value == 27
    assert come_out("9C 9D JK 2H", {"come_out_points": 28}) is None
    # a joker in a run counts as the card it stands for: 8H 9H [10H] + 9C 9D [9S] = 27 + 27
    arr = come_out("8H 9H JK 9C 9D JK 4S", rules)
    assert arr.value == 54 and arr.left == (parse_kind("4S"),)
    # the least penalty that comes out is not always the least penalty: 6C 6D 6S with
    # AH [2H] 3H 4H is worth 28 and leaves TS (10); 30 needs 3H 4H [5H] and leaves AH TS (21)
    arr = come_out("6C 6D AH 3H 4H 6S TS JK", rules)
    assert (arr.penalty, arr.value, arr.left) == (21, 30, tuple(parse_kind(c) for c in ("AH", "TS")))
    assert least_penalty(parse_hand("6C 6D AH 3H 4H 6S TS JK"), rules) == 10
    arr = come_out("AC 3C TC KC JK JK JK", rules)
    assert str(arr.melds[0]) == "[QC] KC AC" and arr.penalty == 3 + 10 + 40
    # with come_out_needs_run, sets alone never come out; a run must be among the melds
    run_rules = RommeRules(come_out_needs_run=True)
    assert come_out("KC KD KS QC QD QS 2D", run_rules) is None and come_out("KC KD KS QC QD QS 2D", rules) is not None
    arr = come_out("KC KD KS QC QD QS 5H 6H 7H 2D", run_rules)
    assert arr.has_run and arr.value == 78 and arr.left == (parse_kind("2D"),)
    # the run alone is too little (4H 5H 6H: 15) but with it the sets may come out
    arr = come_out("4H 5H 6H KC KD KS 2D", run_rules)
    assert arr.value == 45 and arr.has_run
    # a card must be kept to discard unless the rules let a player go out without one
    assert come_out("TC TD TS JC JD JS", rules).left != ()
    assert come_out("TC TD TS JC JD JS", rules).value == 30
    assert come_out("TC TD TS JC JD JS", rules, keep=0).value == 60
    assert come_out("TC TD TS JC JD JS", {"go_out_without_discard": True}).left == ()
    assert come_out("TC TD TS", rules) is None and come_out("TC TD TS", rules, keep=0) is not None
    # the card taken from the discard pile must be in the melds
    assert come_out("TC TD TS JC JD 4H", rules, need_card="JC") is None
    assert come_out("TC TD TS JC JD JK 4H", rules, need_card=parse_kind("JC")).value == 60
    # two jokers side by side are refused: 6H [7H] [8H] 9H (30) is no meld by default
    assert come_out("6H JK JK 9H 3C", rules) is None
    assert str(come_out("6H JK JK 9H 3C", {"adjacent_jokers": True}).melds[0]) == "6H [7H] [8H] 9H"


def test_least_penalty_scripted(backend):
    rules = RommeRules()
    assert least_penalty(parse_hand("AH 2H 3H 9C 9D 9S KS"), rules) == 10
    assert least_penalty(parse_hand("AH AH 2H 2H 3H 3H JK"), rules) == 0  # two runs, the joker extends one
    assert least_penalty(parse_hand("JK JK 5C"), rules) == 45
    assert least_penalty(parse_hand("JK JK 5C"), {"joker_penalty": 25}) == 55
    # a joker replaces a natural card held but needed in a set: 5C 5D 5H + 4H [5H] 6H
    assert least_penalty(parse_hand("5C 5D 5H 4H 6H JK"), rules) == 0
    assert least_penalty(np.zeros((2, 3, 53), dtype=np.uint8), rules).shape == (2, 3)


def test_solver_refuses_bad_hands():
    with pytest.raises(ValueError, match="0..2"):
        least_penalty(np.full(53, 3, dtype=np.uint8))
    with pytest.raises(ValueError, match="jokers"):
        least_penalty(parse_hand("JK JK JK JK JK"), {"jokers": 4})
    with pytest.raises(ValueError, match="not in the hand"):
        come_out("TC TD TS 4H", need_card="5H")
    with pytest.raises(ValueError, match="at most 20"):
        least_penalty(parse_hand(" ".join(["AC", "AD", "AH", "AS", "2C", "2D", "2H", "2S", "3C", "3D", "3H"] * 2)))


# ----------------------------------------------------------------------------- tests: the table


def naive_layoffs(meld: Meld, hand, rules: RommeRules) -> set:
    """(card, reading) for each card of the hand and each reading of the meld plus that card
    in which the meld's cards keep their places (a set's jokers may name other suits)."""
    out = set()
    old = reading(meld)
    for kind in {k for k in kinds_of_counts(hand)}:
        cards = tuple(sorted(kinds_of_counts(meld.cards()) + [kind]))
        for new in naive_readings(cards, rules):
            if new[0] == "set" and old[0] == "set" and set(old[2]) <= set(new[2]):
                out.add((kind, new))
            if new[0] == "run" and old[0] == "run" and new[2][:-1] == old[2] or new[2][1:] == old[2]:
                out.add((kind, new))
    return out


def naive_swaps(meld: Meld, hand, rules: RommeRules) -> set:
    """(natural given, reading) for each natural of the hand that can take a joker's place:
    the meld with one joker fewer and that card, every other place kept."""
    out = set()
    old = reading(meld)
    if not meld.num_jokers:
        return out
    for kind in {k for k in kinds_of_counts(hand) if k != JOKER}:
        cards = list(kinds_of_counts(meld.cards()))
        cards.remove(JOKER)
        for new in naive_readings(tuple(sorted(cards + [kind])), rules):
            if old[0] == "set" and new[0] == "set" and set(old[2]) < set(new[2]):
                out.add((kind, new))
            if old[0] == "run" and new[0] == "run" and len(new[2]) == len(old[2]) and sum(
                    a != b for a, b in zip(old[2], new[2])) == 1 and all(
                    a == b or (a[0] == b[0] == kind % 13 and a[1] and not b[1]) for a, b in zip(old[2], new[2])):
                out.add((kind, new))
    return out


@pytest.mark.parametrize("name", ["default", "corner", "adjacent", "more_natural"])
def test_layoffs_and_joker_swaps_equal_the_rule_text(name, rng):
    rules = VARIANTS[name]
    seen_layoffs = seen_swaps = 0
    for _ in range(400):
        readings = melds_of(near_meld(rng, rules), rules=rules)
        if not readings:
            continue
        meld = readings[int(rng.integers(len(readings)))]
        near = {k for card in meld.represented for k in
                [card - card % 13 + (card + d) % 13 for d in (-2, -1, 1, 2)] + [s * 13 + card % 13 for s in range(4)]}
        near = sorted(near) + [JOKER] * int(rng.integers(0, 2))
        hand = counts_of_kinds(rng.choice(near, min(len(near), 5), replace=False))
        got = layoffs(meld, hand, rules)
        assert {(k, reading(m)) for k, m in got} == naive_layoffs(meld, hand, rules)
        assert all(m.is_legal(rules) and m.size == meld.size + 1 for _, m in got)
        swaps = joker_swaps(meld, hand, rules)
        assert {(k, reading(m)) for k, m in swaps} == naive_swaps(meld, hand, rules)
        seen_layoffs += len(got)
        seen_swaps += len(swaps)
    assert seen_layoffs > 20 and seen_swaps > 5


def test_scripted_layoffs_and_swaps():
    run = parse_meld("5H [6H] 7H")
    assert [(k, str(m)) for k, m in layoffs(run, "4H 8H 8H 5C JK")] == [
        (parse_kind("4H"), "4H 5H [6H] 7H"), (parse_kind("8H"), "5H [6H] 7H 8H"), (JOKER, "[4H] 5H [6H] 7H"),
        (JOKER, "5H [6H] 7H [8H]")]
    assert [str(m) for _, m in layoffs(parse_meld("5H [6H] 7H"), "JK", {"naturals_per_meld": "more_than_jokers"})] == []
    assert [str(m) for _, m in layoffs(parse_meld("[5H] 6H 7H"), "JK")] == ["[5H] 6H 7H [8H]"]  # not [4H] [5H]
    assert layoffs(parse_meld("QH KH AH"), "JH JK 2H") == [(parse_kind("JH"), parse_meld("JH QH KH AH")),
                                                          (JOKER, parse_meld("[JH] QH KH AH"))]
    corner = {"aces_around_the_corner": True}
    assert [str(m) for _, m in layoffs(parse_meld("QH KH AH"), "2H", corner)] == ["QH KH AH 2H"]
    sett = parse_meld("5C 5D [5H]")
    assert [(k, str(m)) for k, m in layoffs(sett, "5H 5S 5C JK")] == [
        (parse_kind("5H"), "5C 5D 5H [5S]"), (parse_kind("5S"), "5C 5D [5H] 5S"), (JOKER, "5C 5D [5H] [5S]")]
    assert layoffs(parse_meld("5C 5D 5H 5S"), "5C JK") == []
    assert [(k, str(m)) for k, m in joker_swaps(sett, "5H 5S 6H")] == [
        (parse_kind("5H"), "5C 5D 5H"), (parse_kind("5S"), "5C 5D 5S")]
    assert [(k, str(m)) for k, m in joker_swaps(parse_meld("[4H] 5H [6H] 7H"), "6H 4H 4H")] == [
        (parse_kind("4H"), "4H 5H [6H] 7H"), (parse_kind("6H"), "[4H] 5H 6H 7H")]
    assert joker_swaps(parse_meld("4H 5H 6H"), "4H JK") == []


# ----------------------------------------------------------------------------- compiled kernels


def test_compiled_search_equals_the_python_search(rng):
    """Numbers and arrangements: the compiled kernels and the Python search, hand for hand."""
    pytest.importorskip("numba")
    if melds._kernels() is None:
        pytest.skip("the numba kernels are not in use here")
    from rummy_env.romme import melds_jit

    for name, rules in VARIANTS.items():
        hands = np.array([random_hand(rng, 14, rules) for _ in range(150)]
                         + [rich_hand(rng, int(rng.integers(13, 16)), rules, int(rng.integers(0, 5))) for _ in range(50)])
        want = [melds._Search(h, rules).best()[0] for h in hands]
        assert melds_jit.least_penalty(hands, rules).tolist() == want
        needs = np.array([int(rng.choice(np.flatnonzero(h))) if rng.random() < 0.3 else -1 for h in hands])
        for keep in (0, 1, 2):
            want = [melds._python_can_come_out(h, rules, None if n < 0 else int(n), keep) for h, n in zip(hands, needs)]
            assert melds_jit.can_come_out(hands, rules, needs, keep).tolist() == want
        for h, n in zip(hands[::5], needs[::5]):
            need = None if n < 0 else int(n)
            assert melds_jit.come_out(h, rules, need, 1) == melds._python_come_out(h, rules, need, 1)
            assert melds_jit.arrangement(h, rules, 0, False, None, 0) == melds._Search(h, rules).arrangement()


def test_the_kernels_can_be_switched_off_and_are_dropped_if_they_fail(monkeypatch):
    pytest.importorskip("numba")
    from rummy_env.core.compiled import UNDECIDED, numba_switched_off
    from rummy_env.romme import melds_jit

    if numba_switched_off():
        pytest.skip("RUMMY_ENV_NO_NUMBA is set: the kernels are off")
    assert melds_jit.self_check() == ""
    hand = parse_hand("AH 2H 3H 9C 9D 9S KS")
    monkeypatch.setattr(melds.KERNELS, "chosen", UNDECIDED)
    monkeypatch.setenv("RUMMY_ENV_NO_NUMBA", "1")
    assert melds._kernels() is None and least_penalty(hand) == 10
    # kernels that disagree with the Python search are not used, with one warning
    monkeypatch.setattr(melds.KERNELS, "chosen", UNDECIDED)
    monkeypatch.setenv("RUMMY_ENV_NO_NUMBA", "0")
    with monkeypatch.context() as m:
        m.setattr(melds_jit, "self_check", lambda: "they disagree with the Python search")
        with pytest.warns(RuntimeWarning, match="Rommé solver's numba kernels are not used .they disagree"):
            assert melds._kernels() is None
        assert melds._kernels() is None  # decided once: no second warning
    # nor kernels that numba cannot compile or cache (a read-only install, say)
    real_import = builtins.__import__

    def failing_import(name, globals=None, locals=None, fromlist=(), level=0):
        if name == "rummy_env.romme" and fromlist and "melds_jit" in fromlist:
            raise RuntimeError("cannot cache function: no locator available")
        return real_import(name, globals, locals, fromlist, level)

    monkeypatch.setattr(melds.KERNELS, "chosen", UNDECIDED)
    with monkeypatch.context() as m:
        m.setattr(builtins, "__import__", failing_import)
        with pytest.warns(RuntimeWarning, match="RuntimeError: cannot cache function"):
            assert melds._kernels() is None
    assert come_out(hand).value == 33
