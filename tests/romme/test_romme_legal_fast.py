"""The fast legal mask of Rommé against the plain computation it replaced.

The legal mask asks, for every card that could go into the meld being built, whether the
turn can still end (rummy_env.romme.game). The fast path answers the "can this meld still
be finished" part for every card at once (``melds.next_cards``, compiled when numba is in
use), lists completions with a faster search (``melds._completions``: a compiled kernel,
or ``melds._python_completions``) and answers the solver's queries in batches with a
cache (``RommeState._evaluate``). The plain way is kept for these tests: every card tried
one by one with ``melds._completions_reference`` (the search as it was first written) and
every query asked of ``melds.rest_can_come_out`` (``RommeState._compute_legal_reference``).
Both must give the same legal actions in every position of random play, under every rule
option that changes melds or the turn, with the compiled kernels and without them.
"""

from __future__ import annotations

import collections
import itertools

import numpy as np
import pytest

from romme_backends import BACKENDS, use_backend
from rummy_env.romme import melds
from rummy_env.romme.cards import JOKER, NUM_KINDS
from rummy_env.romme.game import COMMIT, JOKER_AS, LAYOFF, LAYOFF_JOKER, PICK, SWAP, RommeState
from rummy_env.romme.rules import PRESETS, RommeRules

MELD_RULES = {  # every option that changes what a meld is
    "default": RommeRules(),
    "corner": RommeRules(aces_around_the_corner=True),
    "adjacent": RommeRules(adjacent_jokers=True),
    "more_natural": RommeRules(naturals_per_meld="more_than_jokers"),
    "all": RommeRules(aces_around_the_corner=True, adjacent_jokers=True, naturals_per_meld="more_than_jokers"),
}
TURN_RULES = {  # the presets, and the options that change what may end a turn
    "romme": PRESETS["romme"],
    "romme_40": PRESETS["romme_40"],
    "romme_40_run": PRESETS["romme_40_run"],
    "loose": RommeRules(go_out_without_discard=True, take_discard_before_out="free", adjacent_jokers=True,
                        turnover="flip"),
    "strict": RommeRules(come_out_points=40, come_out_needs_run=True, naturals_per_meld="more_than_jokers",
                         aces_around_the_corner=True, jokers=4, deal_extra_card=False),
    "corner_out": RommeRules(aces_around_the_corner=True, go_out_without_discard=True, come_out_points=0),
}


@pytest.fixture(params=BACKENDS)
def backend(request, monkeypatch):
    """Run a test with the compiled kernels (skipped without numba) and with the Python
    paths; the memoised completions are dropped so that each path computes its own."""
    return use_backend(request, monkeypatch, melds._completions)


def pending_and_hand(rng: np.random.Generator) -> tuple[tuple[int, ...], tuple[int, ...], np.ndarray]:
    """A meld being built (0 to 3 natural kinds, 0 to 2 jokers standing for kinds, all
    distinct; of one suit, of one rank, or anything) and the rest of a hand (0 to 5
    jokers), drawn mostly from that suit and rank so that melds are there to finish."""
    suit, rank = int(rng.integers(4)), int(rng.integers(13))
    run_kinds = [suit * 13 + q for q in range(13)]
    set_kinds = [s * 13 + rank for s in range(4)]
    hand = np.zeros(NUM_KINDS, dtype=np.uint8)
    for _ in range(int(rng.integers(2, 15))):
        roll = rng.random()
        group = run_kinds if roll < 0.55 else set_kinds if roll < 0.75 else range(52)
        k = int(rng.choice(group))
        hand[k] = min(int(hand[k]) + 1, 2)
    hand[JOKER] = int(rng.integers(0, 6))
    roll = rng.random()
    group = run_kinds if roll < 0.6 else set_kinds if roll < 0.9 else list(range(52))
    held = [k for k in group if hand[k]]
    nat = tuple(sorted(int(k) for k in rng.choice(held, size=min(len(held), int(rng.integers(0, 4))), replace=False)))
    for k in nat:
        hand[k] -= 1
    jok: list[int] = []
    for _ in range(int(rng.integers(0, 3))):
        k = int(rng.choice(group))
        if hand[JOKER] and k not in nat and k not in jok:
            jok.append(k)
            hand[JOKER] -= 1
    return nat, tuple(sorted(jok)), hand


@pytest.mark.parametrize("name", list(MELD_RULES))
def test_completions_and_next_cards_equal_the_reference(name, backend):
    rules = MELD_RULES[name]
    rng = np.random.default_rng(sum(map(ord, name)))
    found = collections.Counter()
    for _ in range(500):
        nat, jok, hand = pending_and_hand(rng)
        raw = hand.tobytes()
        want = melds._completions_reference.__wrapped__(nat, jok, raw, rules)
        assert melds._completions.__wrapped__(nat, jok, raw, rules) == want, (nat, jok, hand)
        assert melds._python_completions(nat, jok, raw, rules) == want, (nat, jok, hand)
        assert melds._can_finish(nat, jok, raw, rules) == bool(want), (nat, jok, hand)
        found["some" if want else "none"] += 1
        found["many"] += len(want) > 5
        picks, jokers = reference_next_cards(nat, jok, hand, rules)
        assert melds.next_cards(nat, jok, raw, rules) == (picks, jokers), (nat, jok, hand)
        found["next"] += bool(picks or jokers)
    assert found["some"] > 100 and found["none"] > 100 and found["many"] > 10 and found["next"] > 150, found


def reference_next_cards(nat: tuple[int, ...], jok: tuple[int, ...], hand: np.ndarray, rules: RommeRules) -> tuple[int, int]:
    """``melds.next_cards`` the plain way: each card that may go in next (a natural card
    held, a joker standing for a kind) tried one by one with the reference search."""
    taken = set(nat + jok)
    picks = jokers = 0
    for k in range(52):
        rest = hand.copy()
        if hand[k] and k not in taken:
            rest[k] -= 1
            if melds._completions_reference(tuple(sorted(nat + (k,))), jok, rest.tobytes(), rules):
                picks |= 1 << k
    if hand[JOKER]:
        rest = hand.copy()
        rest[JOKER] -= 1
        for k in range(52):
            j2 = tuple(sorted(jok + (k,)))
            if k not in taken and melds._completions_reference(nat, j2, rest.tobytes(), rules):
                jokers |= 1 << k
    return picks, jokers


def random_hand(rng: np.random.Generator, fewest: int, most: int, most_jokers: int) -> np.ndarray:
    """A hand of ``fewest`` to ``most`` natural cards drawn from the two packs without
    replacement (a kind at most twice), and 0 to ``most_jokers`` jokers: kind counts."""
    hand = np.zeros(NUM_KINDS, dtype=np.uint8)
    for k in rng.choice(104, size=int(rng.integers(fewest, most + 1)), replace=False) % 52:
        hand[k] += 1
    hand[JOKER] = int(rng.integers(0, most_jokers + 1))
    return hand


@pytest.mark.parametrize("name", list(MELD_RULES))
def test_next_cards_of_a_meld_not_started_equal_the_reference(name, backend):
    """With nothing pending and at most two jokers held, the compiled ``next_cards`` asks only
    the cards near a natural card of the hand (``melds_jit._near``): whole hands of 6 to 14
    cards, some cards starting melds and some not, under every option that changes a meld."""
    rules = MELD_RULES[name]
    rng = np.random.default_rng(7 + sum(map(ord, name)))
    found = collections.Counter()
    for _ in range(300):
        hand = random_hand(rng, 6, 14, 2)
        picks, jokers = reference_next_cards((), (), hand, rules)
        assert melds.next_cards((), (), hand.tobytes(), rules) == (picks, jokers), hand
        held = sum(1 << k for k in range(52) if hand[k])
        found["a card starts a meld"] += picks != 0
        found["a card held starts none"] += (held & ~picks) != 0
        found["a joker starts one"] += jokers != 0
    assert min(found.values()) > 20 and len(found) == 3, found


def test_ties_between_readings_keep_the_reference_reading():
    """Among readings of the same cards worth the same (J-Q with a joker as the ten or the
    king: 30 either way) the first window is kept, as the reference keeps it."""
    rules = RommeRules()
    hand = np.zeros(NUM_KINDS, dtype=np.uint8)
    hand[JOKER] = 1
    jack, queen = 2 * 13 + 10, 2 * 13 + 11
    want = melds._completions_reference.__wrapped__((jack, queen), (), hand.tobytes(), rules)
    runs = [c for c in want if c.run and c.extra_jokers == 1]
    assert len(runs) == 1 and runs[0].value == 30 and runs[0].reading == ("run", 2, 9, 3, (0,))
    assert melds._completions.__wrapped__((jack, queen), (), hand.tobytes(), rules) == want
    assert melds._python_completions((jack, queen), (), hand.tobytes(), rules) == want


def test_a_meld_with_thousands_of_completions(backend):
    """The ace of hearts being built, the rest of the hearts and 5 jokers in hand: more
    completions than the compiled kernel's first buffer holds (it grows and asks again)."""
    rules = RommeRules(adjacent_jokers=True)
    hand = np.zeros(NUM_KINDS, dtype=np.uint8)
    hand[27:39] = 1
    hand[JOKER] = 5
    want = melds._completions_reference.__wrapped__((26,), (), hand.tobytes(), rules)
    assert len(want) > 5000
    assert melds._completions.__wrapped__((26,), (), hand.tobytes(), rules) == want


def play_and_compare(rules: RommeRules, n: int, games: int, seed: int, coverage: collections.Counter) -> None:
    """Random play, the fast legal actions checked against the reference at every step."""
    for game in range(games):
        rng = np.random.default_rng([seed, n, game])
        s = RommeState.new_hand(n, rules, seed=rng, dealer=game % n)
        while not s.is_over:
            fast = s._compute_legal()
            assert fast == s._compute_legal_reference(), s.render()
            coverage["positions"] += 1
            coverage["pending"] += bool(s.pending)
            coverage["pick"] += any(PICK <= a < JOKER_AS for a in fast)
            coverage["joker_as"] += any(JOKER_AS <= a < LAYOFF for a in fast)
            coverage["commit"] += COMMIT in fast
            coverage["layoff"] += any(LAYOFF <= a < SWAP for a in fast)
            coverage["layoff_joker"] += any(LAYOFF_JOKER <= a < SWAP for a in fast)
            coverage["swap"] += any(a >= SWAP for a in fast)
            coverage["joker_debt"] += s.swapped_joker is not None
            coverage["must_meld_taken"] += s.must_meld_taken
            s.step(int(rng.choice(fast)))


@pytest.mark.parametrize("name", list(TURN_RULES))
def test_legal_actions_equal_the_reference_in_random_play(name):
    rules = TURN_RULES[name].replace(max_turns=90)
    coverage: collections.Counter = collections.Counter()
    for n in (2, 4, 6):
        play_and_compare(rules, n, 2, sum(map(ord, name)), coverage)
    # the positions that matter were reached: melds being built, jokers, lay-offs, swaps
    for what in ("pending", "pick", "joker_as", "commit", "layoff", "swap"):
        assert coverage[what] >= 5, coverage
    assert coverage["positions"] > 400, coverage


def test_legal_actions_equal_the_reference_without_the_kernels(backend):
    """The Python paths (``RUMMY_ENV_NO_NUMBA=1``) give the same legal actions too."""
    coverage: collections.Counter = collections.Counter()
    for name, n in itertools.product(("romme_40_run", "loose"), (2, 5)):
        play_and_compare(TURN_RULES[name].replace(max_turns=70), n, 1, 7, coverage)
    assert coverage["pending"] >= 5 and coverage["joker_as"] >= 5, coverage


def test_a_joker_owed_keeps_a_place_after_a_lay_off_or_a_swap(backend):
    """A player who owes a joker taken by a swap may not lay a natural card off on the only
    set that could take that joker (filling it): the turn could no longer end. Found in
    random play (the position had no legal action); each legal move here leaves one."""
    import json
    from pathlib import Path

    data = json.loads((Path(__file__).resolve().parents[1] / "data" / "romme_owed_joker.json").read_text())
    state = RommeState.from_deck(data["deck"], data["players"], data["rules"], data["dealer"])
    for action in data["actions"]:
        state.step(action)
    assert state.swapped_joker is not None and state.swapped_joker in state.hands[state.current_player]
    legal = state.legal_actions()
    assert legal == state._compute_legal_reference() == [LAYOFF_JOKER + 52 * 0 + 35]  # JK as TH on slot 0
    assert LAYOFF + 52 * 0 + 35 not in legal  # TH itself on slot 0 would strand the joker
    for action in legal:
        after = state.clone()
        after.step(action)
        assert after.is_over or after.legal_actions()


@pytest.mark.parametrize("name", list(MELD_RULES))
def test_the_bound_on_a_hands_melds_is_never_below_what_the_solver_finds(name):
    """``legal_jit._most_worth`` answers "no" without the solver's search where a hand's melds
    cannot reach the points asked: it must never be below the most the solver finds them
    worth, for hands of 3 to 16 cards with 0 to 3 jokers, and it must fall short of the
    usual 30 points often enough to matter."""
    legal_jit = pytest.importorskip("rummy_env.romme.legal_jit")
    from rummy_env.romme import melds_jit

    rules = MELD_RULES[name]
    rng = np.random.default_rng(11 + sum(map(ord, name)))
    found = collections.Counter()
    for _ in range(400):
        hand = random_hand(rng, 3, 16, 3)
        top, full, tab, *_ = melds_jit._single(hand, rules, 0, False, None, 0, True)
        best = int(tab[top, full, melds_jit.T_VAL]) if tab[top, full, melds_jit.T_CHOICE] != melds_jit.NONE else 0
        bound = int(legal_jit._most_worth(hand.astype(np.int64), 0))
        assert bound >= best, (hand, bound, best)
        found["no meld"] += best == 0
        found["some meld"] += best > 0
        found["below 30"] += bound < 30
    assert min(found.values()) > 30 and len(found) == 3, found
