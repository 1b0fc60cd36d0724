"""What a Rommé hand keeps between positions, to make each step cheaper, is what a fresh
computation gives: every information set equals one built plainly from the state's fields
(``RommeState`` keeps each seat's kind counts, the known cards and the discards as kinds,
and the table as kinds, between positions); the compiled observation of a set (from the
bytes the state made with it, ``game._info_bytes``) equals the Python encoder's and the one
made from the set's own fields, also once a field of the set is replaced; the mask the
compiled legal call writes equals the legal actions; the melds a lay-off, a swap or a
commit makes equal those the solver lists. Over random hands at 2 to 6 players, under
rules that turn the stock over face up or shuffled, at positions after every kind of move
(melds, lay-offs, joker lay-offs, swaps, stock turnovers, hand rummy, going out with and
without a discard, stalemates), with information sets asked for at some positions only
(the kept views then span several moves), in clones stepped apart and in redealt and
sampled worlds."""

import collections
import dataclasses
import itertools

import numpy as np
import pytest

from rummy_env.core.compiled import numba_switched_off
from rummy_env.romme import encoding, game, melds
from rummy_env.romme.cards import JOKER, kind_of, parse_kind
from rummy_env.romme.game import (
    COMMIT, DISCARD, DRAW_STOCK, FIRST_JOKER, PICK, RommeInformationSet, RommeState,
    TableMeld, _ALL_KINDS, _committed, _info_bytes, _layoff_meld, _new_joker_kind, _swapped_meld, decode_action,
)
from rummy_env.romme.match import TableScores
from rummy_env.romme.rules import RommeRules

RULES = {
    "shuffled": RommeRules(max_turns=120),
    "flip": RommeRules(turnover="flip", take_discard_before_out="free", max_turns=120),
    "out_without_discard": RommeRules(go_out_without_discard=True, come_out_points=0, aces_around_the_corner=True,
                                      adjacent_jokers=True, max_turns=120),
    "strict": RommeRules(come_out_points=40, come_out_needs_run=True, naturals_per_meld="more_than_jokers",
                         jokers=4, deal_extra_card=False, max_turns=120),
}


def _kinds(cards) -> tuple:
    return tuple(sorted(kind_of(c) for c in cards))


def plain_information_set(s: RommeState, player: int) -> RommeInformationSet:
    """What ``player`` knows, read from the state's fields alone, nothing kept (the
    definition the kept views must give)."""
    shown = s.result is not None and s.result.winner is not None
    held = s.hands[s.current_player]
    hand = _kinds(s.hands[player])
    return RommeInformationSet(
        player=player, num_players=s.num_players, hand=hand, hand_counts=tuple(hand.count(k) for k in range(53)),
        table=tuple(TableMeld(m.owner, _kinds(m.cards), m.meld) for m in s.table),
        discard_pile=tuple(kind_of(c) for c in s.discard_pile), stock_size=len(s.stock),
        public_stock=tuple(kind_of(c) for c in reversed(s.stock)) if s.stock_public else (),
        hand_sizes=tuple(len(h) for h in s.hands), came_out=tuple(s.came_out), phase=s.phase,
        current_player=s.current_player, dealer=s.dealer, turn=s.turn, turnovers=s.turnovers,
        pending=tuple((kind_of(c), k) for c, k in s.pending), turn_points=s.turn_points, turn_melds=s.turn_melds,
        turn_run=s.turn_run, out_at_turn_start=s.out_at_turn_start,
        taken_card=None if s.taken_card is None else kind_of(s.taken_card),
        taken_held=s.taken_card is not None and s.taken_card in held, must_meld_taken=s.must_meld_taken,
        joker_debt=s.swapped_joker is not None and s.swapped_joker in held,
        known=tuple(_kinds(h) for h in (s.hands if shown else s.known)),
        discarded=tuple(tuple(a - DISCARD for q, a in s.history if q == seat and DISCARD <= a < PICK)
                        for seat in range(s.num_players)),
        public_history=tuple(s.history), result=s.result)


def check_position(s: RommeState, rng: np.random.Generator, seen: collections.Counter) -> None:
    """The kept counts and, for a few seats, the information set and its observations
    (outside a table and at one) against their plain computation."""
    assert s._counts == [[_kinds(h).count(k) for k in range(53)] for h in s.hands]
    for seat in rng.permutation(s.num_players)[:2]:
        info = s.information_set(int(seat))
        assert info == plain_information_set(s, int(seat)), s.render()
        scores = None if rng.random() < 0.5 else TableScores(tuple(range(-40, -40 + 25 * s.num_players, 25)), 2)
        kept = game._INFO_BYTES.get(id(info))
        assert kept is not None and kept[0] is info and _info_bytes(info) is kept[1]  # the bytes made with the set
        fast = encoding._flat(info, s.rules, scores)
        np.testing.assert_array_equal(fast, encoding._python_encode_flat(info, s.rules, scores), err_msg=s.render())
        copy = dataclasses.replace(info)  # another set, equal: its bytes made from its fields
        np.testing.assert_array_equal(encoding._flat(copy, s.rules, scores), fast)
        seen["information sets"] += 1


def random_play(rules: RommeRules, n: int, seed: int, melding: float, seen: collections.Counter) -> None:
    """A hand of random play, meld-building moves chosen first with probability
    ``melding`` (0: the stock drawn and a card discarded, until the stock is turned over),
    positions checked now and then, a clone stepped apart from it at some positions,
    redealt and sampled worlds."""
    rng = np.random.default_rng([seed, n])
    s = RommeState.new_hand(n, rules, seed=rng, dealer=seed % n)
    while True:
        if rng.random() < 0.5:  # (else the kept views go on over several moves)
            check_position(s, rng, seen)
        if s.is_over:
            break
        if rng.random() < 0.03:
            other = s.clone()
            for _ in range(6):
                if other.is_over:
                    break
                other.step(int(rng.choice(other.legal_actions())))
            check_position(other, rng, seen)
            redealt = s.redeal_hidden(s.current_player, rng)
            check_position(redealt, rng, seen)
            world = RommeState.sample_from_information_set(s.information_set(s.current_player), rules, rng)
            check_position(world, rng, seen)
        legal = s.legal_actions()
        plays = [a for a in legal if a >= PICK or a == COMMIT] if melding else [a for a in legal if a < PICK]
        if not melding and DRAW_STOCK in legal:
            action = DRAW_STOCK
        elif plays and (not melding or rng.random() < melding):
            action = int(rng.choice(plays))
        else:
            action = int(rng.choice(legal))
        turnovers = s.turnovers
        s.step(action)
        seen[decode_action(action)[0]] += 1
        seen[f"turnover {rules.turnover}"] += s.turnovers > turnovers
        seen["known"] += any(s.known)
    seen[s.result.outcome] += 1


def test_kept_views_give_what_a_fresh_computation_gives():
    seen = collections.Counter()
    for rules, n in itertools.product(RULES.values(), (2, 3, 4, 6)):
        for deal in range(3 if n < 6 else 2):
            random_play(rules, n, deal, (0.0, 0.7, 0.95)[deal], seen)
    assert seen["information sets"] > 3000, seen
    for what in ("commit", "layoff", "layoff_joker", "swap", "joker_as", "take", "turnover flip", "turnover shuffle",
                 "out", "stalemate", "known"):
        assert seen[what] >= 2, (what, seen)


@pytest.mark.parametrize("rules", [RommeRules(), RommeRules(go_out_without_discard=True)], ids=["discard", "no_discard"])
def test_kept_views_over_a_hand_rummy(rules):
    """Every card melded in one turn (hand rummy), going out with a discard or without;
    every position checked, and the hands shown once the hand is over."""
    hand = "KC KD KS 2H 3H 4H 5H 7C 8C 9C TD JD QD KD"
    s = RommeState.from_hands([hand, "7S 2C 9H 4S JH 6D AC 3S 8D QC 5S TC 6H"], "QS", rules=rules)
    moves = [*pick("KC", "KD", "KS"), COMMIT, *pick("2H", "3H", "4H", "5H"), COMMIT, *pick("7C", "8C", "9C"), COMMIT,
             *pick("TD", "JD", "QD")]
    moves += [PICK + parse_kind("KD"), COMMIT] if rules.go_out_without_discard else [COMMIT, DISCARD + parse_kind("KD")]
    seen = collections.Counter()
    rng = np.random.default_rng(0)
    for action in moves:
        check_position(s, rng, seen)
        s.step(action)
    check_position(s, rng, seen)
    assert s.result.outcome == "hand_rummy" and s.result.with_discard != rules.go_out_without_discard
    assert s.information_set(1).known[0] == ()  # every card of the winner melded: nothing left to show


def test_an_information_set_whose_fields_are_replaced_is_observed_as_it_now_is():
    """The bytes kept with a set are read only while its fields are the ones they were made
    from: a field replaced afterwards (the hand, the known cards) shows in its observation."""
    rng = np.random.default_rng(3)
    s = RommeState.new_hand(3, RommeRules(turnover="flip"), seed=rng)
    for _ in range(30):
        s.step(int(rng.choice(s.legal_actions())))
    info = s.information_set(s.current_player)
    before = encoding._flat(info, s.rules, None)
    info.hand = info.hand[1:]
    info.known = ((), (7, 7), ())
    after = encoding._flat(info, s.rules, None)
    np.testing.assert_array_equal(after, encoding._python_encode_flat(info, s.rules, None))
    assert not np.array_equal(after, before)


@pytest.mark.skipif(numba_switched_off(), reason="RUMMY_ENV_NO_NUMBA is set: the compiled mask is off")
def test_the_mask_written_with_the_legal_actions_equals_them_and_is_the_callers_own():
    rng = np.random.default_rng(5)
    for n in (2, 5):
        s = RommeState.new_hand(n, RommeRules(max_turns=80), seed=rng)
        while not s.is_over:
            mask = s.legal_mask()  # a position not asked about yet: the compiled call writes it
            legal = s.legal_actions()
            assert mask.dtype == np.int8 and mask.shape == (s.num_actions,)
            assert np.flatnonzero(mask).tolist() == legal == s._legal_actions(reference=False)
            again = s.legal_mask()
            assert again is not mask and np.array_equal(again, mask)
            mask[:] = 0  # the caller's own array: the state's legal actions and later masks stay
            assert np.flatnonzero(s.legal_mask()).tolist() == s.legal_actions() == legal
            s.step(int(rng.choice(legal)))


def pick(*cards: str) -> list[int]:
    return [PICK + parse_kind(c) for c in cards]


def random_melds(rules: RommeRules, rng: np.random.Generator, count: int):
    """Every legal set and ``count`` random legal runs (any start, length and joker places)."""
    for rank, size in itertools.product(range(13), (2, 3, 4)):
        for suits in itertools.combinations(range(4), size):
            for jokers in range(0, 4 - size + 1):
                meld = melds.Meld.make_set(rank, suits, jokers)
                if meld.is_legal(rules):
                    yield meld
    made = 0
    while made < count:
        length = int(rng.integers(3, 14))
        meld = melds.Meld.make_run(int(rng.integers(4)), int(rng.integers(13)), length,
                                   [t for t in range(length) if rng.random() < 0.3])
        if meld.is_legal(rules):
            made += 1
            yield meld


@pytest.mark.parametrize("rules", [RommeRules(), RommeRules(aces_around_the_corner=True),
                                   RommeRules(aces_around_the_corner=True, adjacent_jokers=True),
                                   RommeRules(naturals_per_meld="more_than_jokers", aces_around_the_corner=True)],
                         ids=["default", "corner", "corner_adjacent", "more_naturals"])
def test_the_melds_made_by_lay_offs_and_swaps_are_those_the_solver_lists(rules):
    """``_layoff_meld`` and ``_swapped_meld`` make the meld directly; the solver lists every
    lay-off and swap of a meld (``melds.layoffs``, ``melds.joker_swaps``): the meld a move
    makes is the first listed for its card (a joker: for the card it stands for)."""
    seen = collections.Counter()
    for meld in random_melds(rules, np.random.default_rng(1), 2500):
        listed = melds.layoffs(meld, _ALL_KINDS, rules)
        for kind, new in listed:
            stands_for = _new_joker_kind(meld, new) if kind == JOKER else None
            first = next(m for k, m in listed if k == kind and (kind != JOKER or _new_joker_kind(meld, m) == stands_for))
            assert _layoff_meld(meld, kind, stands_for, rules) == first, (meld, kind, stands_for)
            seen["joker" if kind == JOKER else "natural"] += 1
            seen["both ends"] += sum(k == kind for k, _ in listed) > 1 and kind != JOKER
        for kind, new in melds.joker_swaps(meld, _ALL_KINDS, rules):
            assert _swapped_meld(meld, kind) == new, (meld, kind)
            seen["swap"] += 1
    assert seen["natural"] > 1000 and seen["joker"] > 1000 and seen["swap"] > 500, seen
    if rules.aces_around_the_corner:
        assert seen["both ends"] > 0, seen  # a run of 12 around the corner takes its missing card at either end


def test_a_commit_lays_the_most_valuable_reading():
    """``_committed`` (kept per rules) gives the pending meld's most valuable reading, the
    first of its equals, as the solver lists them, at every commit of random play."""
    rules = RommeRules(aces_around_the_corner=True, max_turns=100)
    checked = 0
    for seed in range(6):
        rng = np.random.default_rng(seed)
        s = RommeState.new_hand(3, rules, seed=rng)
        while not s.is_over:
            legal = s.legal_actions()
            if COMMIT in legal:
                nat = tuple(sorted(k for c, k in s.pending if c < FIRST_JOKER))
                jok = tuple(sorted(k for c, k in s.pending if c >= FIRST_JOKER))
                best = max(melds._completions(nat, jok, bytes(53), rules), key=lambda c: c.value)
                assert _committed(nat, jok, rules) == (best.value, best.run, best.meld())
                checked += 1
            plays = [a for a in legal if a >= PICK or a == COMMIT]
            s.step(int(rng.choice(plays)) if plays and rng.random() < 0.8 else int(rng.choice(legal)))
    assert checked > 20
