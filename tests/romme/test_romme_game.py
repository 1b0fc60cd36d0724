"""The pure Rommé hand (rummy_env.romme.game): scripted hands scored by hand, random-play
invariants under several rule variants, no leak of hidden cards, replay, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from rummy_env.romme import melds
from rummy_env.romme.cards import JOKER, kind_of, parse_hand, parse_kind
from rummy_env.romme.game import (
    COMMIT, DISCARD, DRAW_STOCK, JOKER_AS, LAYOFF, NUM_ACTIONS, PICK, SWAP, TAKE_DISCARD, IllegalActionError, Phase,
    RommeState,
)
from rummy_env.romme.rules import RommeRules

K = parse_kind
JUNK13 = "KC 9D JS 2S QD 4C TD 6S 8H AS 3C 5D QH"  # no meld among these


def play(s: RommeState, *actions: int) -> None:
    for a in actions:
        s.step(a)


def pick(*cards: str) -> list[int]:
    return [PICK + K(c) for c in cards]


# ----------------------------------------------------------------------------- coming out


def test_coming_out_exactly_at_30_and_refused_at_29():
    # 7C 7D 7S (21) + 2H 3H 4H (9) = 30: out; the other cards make no meld
    s = RommeState.from_hands(["7C 7D 7S 2H 3H 4H KC 9D JS 2S QD 4C TD 6S", "AC " + "2C 3D 5S 6D 7H 8S 9C TH JC QS KD 4S"],
                              "5H")
    assert s.phase == Phase.PLAY and len(s.hands[0]) == 14
    assert PICK + K("7C") in s.legal_actions() and PICK + K("KC") not in s.legal_actions()
    play(s, *pick("7C", "7D", "7S"), COMMIT)
    # 21 laid: not out yet, so no discard until the run is laid too
    assert s.turn_points == 21 and not s.came_out[0]
    assert not any(DISCARD <= a < PICK for a in s.legal_actions())
    play(s, *pick("2H", "3H", "4H"))
    play(s, COMMIT)
    assert s.came_out[0] and s.turn_points == 30
    play(s, DISCARD + K("KC"))
    assert s.current_player == 1 and s.phase == Phase.DRAW
    # 5C 5D 5S (15) + 2H 3H 4H 5H (14) = 29, or 5C 5D 5S 5H + 2H 3H 4H = 29: refused
    s = RommeState.from_hands(["5C 5D 5S 2H 3H 4H 5H KC 9D JS 2S QD 8C TD", "AC 2C 3D 6S 6D 7H 8S 9C TH JC QS KD 4S"],
                              "7D")
    legal = s.legal_actions()
    assert legal and all(DISCARD <= a < PICK for a in legal)  # no meld can be started


def test_coming_out_with_the_taken_discard_and_a_joker():
    rules = RommeRules(deal_extra_card=False)
    # 7C 7D + the upcard 7S (21) + 2H 3H 4H (9) = 30: the discard may be taken
    hands = ["7C 7D 2H 3H 4H KC 9D JS 2S QD 4C TD 6S", "AC 2C 3D 5S 6D 7H 8S 9C TH JC QS KD 4S"]
    s = RommeState.from_hands(hands, "7S", rules=rules)
    assert s.legal_actions() == [DRAW_STOCK, TAKE_DISCARD]
    play(s, TAKE_DISCARD)
    assert s.must_meld_taken
    assert not any(DISCARD <= a < PICK for a in s.legal_actions())  # must be melded first
    play(s, *pick("2H", "3H", "4H"), COMMIT)  # 9 points: the 7S still has to come
    assert not any(DISCARD <= a < PICK for a in s.legal_actions())
    play(s, *pick("7C", "7D", "7S"), COMMIT)
    assert s.came_out[0] and not s.must_meld_taken
    play(s, DISCARD + K("KC"))
    # an upcard that does not help: refused under 'meld', taken under 'free' (but not discarded)
    s = RommeState.from_hands(hands, "8S", rules=rules)
    assert s.legal_actions() == [DRAW_STOCK]
    s = RommeState.from_hands(hands, "8S", rules=rules.replace(take_discard_before_out="free"))
    play(s, TAKE_DISCARD)
    assert DISCARD + K("8S") not in s.legal_actions() and DISCARD + K("KC") in s.legal_actions()
    # a joker stands for its card's value: KC KD [KH] is worth 30
    s = RommeState.from_hands(["KC KD JK 5C 9D JS 2S QD 4C TD 6S 8H AS 3C", "AC 2C 3D 5S 6D 7H 8S 9C TH JC QS KS 4S"],
                              "7D")
    play(s, PICK + K("KC"), PICK + K("KD"), JOKER_AS + K("KH"), COMMIT)
    assert s.came_out[0] and s.turn_points == 30 and str(s.table[0].meld) == "KC KD [KH]"


def test_joker_swap_then_use_and_layoffs():
    s = RommeState.from_hands(["KC KD JK KH 5C 6C 7C 9D JS 2S QD 4D TD 3S", JUNK13], "7D")
    play(s, PICK + K("KC"), PICK + K("KD"), JOKER_AS + K("KS"), COMMIT)  # KC KD [KH]: 30, out
    swap = SWAP + 52 * 0 + K("KH")
    assert swap in s.legal_actions() and SWAP + K("KS") not in s.legal_actions()  # no KS in hand
    play(s, swap)
    assert str(s.table[0].meld) == "KC KD KH" and s.swapped_joker is not None and s.swapped_joker in s.hands[0]
    assert not any(DISCARD <= a < PICK for a in s.legal_actions())  # the joker must be used first
    play(s, *pick("5C", "6C", "7C"), JOKER_AS + K("8C"), COMMIT)
    assert str(s.table[1].meld) == "5C 6C 7C [8C]" and s.swapped_joker is None
    assert DISCARD + K("2S") in s.legal_actions()
    # lay off 4D? no: 9D TD QD + lay-offs: 4C... lay off nothing fits except on the run's ends
    assert [a for a in s.legal_actions() if LAYOFF <= a < SWAP] == []
    play(s, DISCARD + K("2S"))
    assert len(s.card_places()["table 1"]) == 4


def test_layoff_onto_a_run():
    s = RommeState.from_hands(["TC JC QC KD KS KH 9C 8D 2S 4D 6H 3S 5C 7H", JUNK13], "7D")
    play(s, *pick("TC", "JC", "QC"), COMMIT)  # 30: out
    assert LAYOFF + 52 * 0 + K("9C") in s.legal_actions()
    play(s, LAYOFF + 52 * 0 + K("9C"))
    assert str(s.table[0].meld) == "9C TC JC QC"


# ----------------------------------------------------------------------------- going out and scoring


OUT14 = "KC KD KS 2H 3H 4H 5H 7C 8C 9C TD JD QD 4S"
OTHER = "AC 2C 3C 4C 6C 2D 3D 4D 5D 6D 7D 8D 9D"  # 26 + 44 = 70


def go_out(rules: RommeRules, other: str = OTHER) -> RommeState:
    s = RommeState.from_hands([OUT14, other], "QS", rules=rules)
    play(s, *pick("KC", "KD", "KS"), COMMIT, *pick("2H", "3H", "4H", "5H"), COMMIT, *pick("7C", "8C", "9C"), COMMIT,
         *pick("TD", "JD", "QD"), COMMIT, DISCARD + K("4S"))
    return s


def test_hand_rummy_doubles_and_never_out_and_joker_penalty():
    s = go_out(RommeRules())
    r = s.result
    assert s.is_over and r.outcome == "hand_rummy" and r.with_discard and r.winner == 0
    assert r.points == 140 and r.rewards == (140, -140)  # 70, doubled for hand rummy
    assert go_out(RommeRules(hand_rummy_multiplier=1)).result.points == 70
    assert go_out(RommeRules(never_out_double=True)).result.points == 280  # 70 x 2 (never out) x 2 (hand rummy)
    joker = OTHER.replace("9D", "JK")  # 26 + 35 + 20 = 81; with 25: 86
    assert go_out(RommeRules(), joker).result.points == 162
    assert go_out(RommeRules(joker_penalty=25), joker).result.points == 172
    assert s.result.to_dict()["penalties"] == [0, 140]


def test_going_out_with_and_without_a_final_discard():
    hand = "KC KD KS 2H 3H 4H 5H 7C 8C 9C TD JD QD KD"  # every card melds: K set, two runs, TD-KD
    s = RommeState.from_hands([hand, OTHER], "QS")
    play(s, *pick("KC", "KD", "KS"), COMMIT, *pick("2H", "3H", "4H", "5H"), COMMIT, *pick("7C", "8C", "9C"), COMMIT,
         *pick("TD", "JD", "QD"))
    assert PICK + K("KD") not in s.legal_actions()  # a card must be kept for the discard
    play(s, COMMIT, DISCARD + K("KD"))
    assert s.result.with_discard and s.result.outcome == "hand_rummy"
    s = RommeState.from_hands([hand, OTHER], "QS", rules=RommeRules(go_out_without_discard=True))
    play(s, *pick("KC", "KD", "KS"), COMMIT, *pick("2H", "3H", "4H", "5H"), COMMIT, *pick("7C", "8C", "9C"), COMMIT,
         *pick("TD", "JD", "QD", "KD"), COMMIT)
    assert s.is_over and not s.result.with_discard and s.result.points == 140


def test_the_fourteenth_card_start():
    s = RommeState.new_hand(4, seed=3, dealer=1)
    assert [len(h) for h in s.hands] == [13, 13, 14, 13] and s.current_player == 2 and s.phase == Phase.PLAY
    assert DRAW_STOCK not in s.legal_actions() and len(s.stock) == 110 - 53 - 1
    s = RommeState.new_hand(4, RommeRules(deal_extra_card=False), seed=3, dealer=1)
    assert [len(h) for h in s.hands] == [13] * 4 and s.phase == Phase.DRAW and DRAW_STOCK in s.legal_actions()


def draw_and_discard_until_turnover(rules: RommeRules) -> tuple[RommeState, list[int]]:
    s = RommeState.new_hand(2, rules, seed=5)
    while not s.turnovers:
        pile = list(s.discard_pile)
        a = DRAW_STOCK if s.phase == Phase.DRAW else min(x for x in s.legal_actions() if DISCARD <= x < PICK)
        s.step(a)
    return s, pile + [s.discard_pile[-1]]


@pytest.mark.parametrize("mode", ["flip", "shuffle"])
def test_the_stock_turnover(mode):
    rules = RommeRules(turnover=mode)
    s, pile = draw_and_discard_until_turnover(rules)
    assert s.discard_pile == pile[-1:] and sorted(s.stock) == sorted(pile[:-1])
    if mode == "flip":
        assert s.stock == pile[-2::-1] and s.stock[-1] == pile[0] and s.stock_public
        # the top first: the first card discarded
        assert s.information_set(0).public_stock == tuple(kind_of(c) for c in pile[:-1])
    else:
        assert not s.stock_public and s.information_set(0).public_stock == ()
        again = RommeState.from_deck(s.deck, 2, rules)
        play(again, *s.actions)
        assert again.stock == s.stock  # the shuffle is the hand's own: replays exactly


# ----------------------------------------------------------------------------- random play

VARIANTS = {
    "default": RommeRules(max_turns=60),
    "loose": RommeRules(go_out_without_discard=True, take_discard_before_out="free", turnover="flip", max_turns=50,
                        never_out_double=True),
    "strict": RommeRules(come_out_points=40, come_out_needs_run=True, jokers=4, naturals_per_meld="more_than_jokers",
                         aces_around_the_corner=True, adjacent_jokers=True, max_turns=50, deal_extra_card=False),
}


@pytest.mark.parametrize("n", [2, 4, 6])
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_random_play_invariants(variant, n):
    rules = VARIANTS[variant]
    deck = list(range(rules.num_cards))
    for game in range(4):
        rng = np.random.default_rng(100 * n + game)
        s = RommeState.new_hand(n, rules, seed=rng, dealer=game % n)
        steps = 0
        while not s.is_over:
            places = s.card_places()
            assert sorted(c for cards in places.values() for c in cards) == deck
            legal = s.legal_actions()
            assert legal, s.render()  # uniformly random legal play always finishes turns
            assert set(np.flatnonzero(s.legal_mask())) == set(legal) and s.legal_mask().shape == (NUM_ACTIONS,)
            if steps % 7 == 0:
                illegal = int(rng.choice(np.flatnonzero(s.legal_mask() == 0)))
                before = (s.current_player, s.actions, places)
                with pytest.raises(IllegalActionError, match="legal: "):
                    s.step(illegal)
                assert (s.current_player, s.actions, s.card_places()) == before
            if steps % 11 == 0:
                for a in legal:
                    s.clone().step(a)
            s.step(int(rng.choice(legal)))
            steps += 1
        assert s.turn <= rules.max_turns and sum(s.result.rewards) == 0 and s.legal_actions() == []
        assert sorted(c for cards in s.card_places().values() for c in cards) == deck
        s.result.to_dict()
        s.render(0)
        again = RommeState.from_deck(s.deck, n, rules, dealer=s.dealer)
        play(again, *s.actions)
        assert again.result == s.result and again.card_places() == s.card_places()


@pytest.mark.parametrize("n", [2, 4])
def test_no_leak_and_sampled_worlds(n):
    rules = RommeRules(max_turns=60, turnover="flip")
    for game in range(3):
        rng = np.random.default_rng(7 + game)
        s = RommeState.new_hand(n, rules, seed=rng)
        while not s.is_over:
            for p in range(n):
                info = s.information_set(p)
                other = s.redeal_hidden(p, rng)
                assert other.information_set(p) == info
                assert sorted(c for cs in other.card_places().values() for c in cs) == list(range(rules.num_cards))
                world = RommeState.sample_from_information_set(info, rules, rng)
                assert world.information_set(p) == info
                if p == s.current_player:
                    assert world.legal_actions() == s.legal_actions()
            s.step(int(rng.choice(s.legal_actions())))
        if s.result.winner is not None:  # after going out every hand is shown
            assert s.information_set(0).known == tuple(tuple(sorted(kind_of(c) for c in h)) for h in s.hands)


def test_which_copy_a_hand_held_shows_nowhere():
    """Seat 1 holds 7D (physical 19) hidden; seat 0 discards the other 7D (71) and seat 1
    takes it: 7D is known in seat 1's hand. Discarding a 7D in that turn leaves it known
    (the card taken is never the one discarded); discarding a 7D in a later turn does not
    (nobody can tell which copy went), whichever copy the rules chose. Replayed from the
    deal with seat 1's hidden 7D swapped for the stock's bottom card, seat 0 sees the same
    at every step: the pile and the known cards name kinds, never the copy."""
    rules = RommeRules(take_discard_before_out="free")
    seven = K("7D")
    hands = [[71, 2, 4, 6, 8, 10, 12, 28, 30, 32, 34, 36, 38, 40], [19, 41, 43, 45, 47, 49, 51, 54, 56, 58, 60, 62, 64]]
    s = RommeState.from_hands(hands, 66, rules=rules)
    play(s, DISCARD + seven, TAKE_DISCARD, DISCARD + seven)
    assert s.information_set(0).known[1] == (seven,) and 71 in s.hands[1] and s.discard_pile[-1] == 19

    deck = list(RommeState.from_hands(hands, 66, rules=rules).deck)
    swapped = deck[:]
    swapped[swapped.index(19)], swapped[-1] = deck[-1], 19  # the stock's bottom card: never drawn here
    worlds = [RommeState.from_deck(d, 2, rules) for d in (deck, swapped)]
    moves = [DISCARD + seven, TAKE_DISCARD, DISCARD + kind_of(41), DRAW_STOCK, DISCARD + kind_of(2), DRAW_STOCK,
             DISCARD + seven]
    for action in moves:
        for w in worlds:
            w.step(action)
        assert worlds[0].information_set(0) == worlds[1].information_set(0)
        assert worlds[0].render(0) == worlds[1].render(0)
    assert worlds[0].discard_pile[-1] == 19 and worlds[1].discard_pile[-1] == 71  # the rules chose other copies
    assert worlds[0].information_set(0).known[1] == () and worlds[0].information_set(0).discard_pile[-1] == seven


def test_the_discard_taken_need_not_be_melded_once_a_swap_put_it_on_the_table():
    # player_1 takes 4H (it could come out with 4C 4D 4H), comes out with TC JC QC, then
    # gives that 4H to player_0's 2H 3H [4H] for its joker: the 4H is on the table
    s = RommeState.from_hands(["7C 7D 7S 2H 3H JK 4H KC 9D JS 2S QD 8C TD", "4C 4D TC JC QC " + "KS 9H 6S 8D AS 5D QH 2C"],
                              "5H")
    play(s, *pick("7C", "7D", "7S"), COMMIT, *pick("2H", "3H"), JOKER_AS + K("4H"), COMMIT, DISCARD + K("4H"))
    play(s, TAKE_DISCARD, *pick("TC", "JC", "QC"), COMMIT)
    assert s.must_meld_taken and s.came_out[1]
    play(s, SWAP + 52 * 1 + K("4H"))
    info = s.information_set(1)
    assert not s.must_meld_taken and not info.must_meld_taken and not info.taken_held and info.joker_debt
    world = RommeState.sample_from_information_set(info, s.rules, np.random.default_rng(0))
    assert world.information_set(1) == info and world.legal_actions() == s.legal_actions()


def test_the_information_sets_show_what_the_state_holds_though_kept_between_positions():
    """The table shown as kinds and each seat's discards (``discarded``: the discards of
    ``public_history``) are kept between positions, not rebuilt (``RommeState._shown_table``,
    ``_seat_discards``); at every position of random play, in clones stepped apart too,
    they are what the state holds."""
    from rummy_env.romme.cards import KINDS
    from rummy_env.romme.game import TableMeld

    changed = 0
    for n in (2, 5):
        rng = np.random.default_rng(n)
        states = [RommeState.new_hand(n, RommeRules(max_turns=120), seed=n)]
        while states:
            s = states.pop()
            if s.is_over:
                continue
            info = s.information_set(int(rng.integers(n)))
            assert info.table == tuple(TableMeld(m.owner, tuple(sorted(KINDS[c] for c in m.cards)), m.meld)
                                       for m in s.table)
            assert info.discarded == tuple(tuple(a - DISCARD for seat, a in s.history if seat == q and DISCARD <= a < PICK)
                                           for q in range(n))
            legal = s.legal_actions()
            plays = [a for a in legal if a >= PICK or a == COMMIT]
            if rng.random() < 0.05 and len(states) < 3:  # a clone goes its own way from here
                other = s.clone()
                other.step(int(rng.choice(legal)))
                states.append(other)
            before = len(s.table), [m.cards for m in s.table]
            s.step(int(rng.choice(plays)) if plays and rng.random() < 0.6 else int(rng.choice(legal)))
            changed += before != (len(s.table), [m.cards for m in s.table])
            states.append(s)
    assert changed > 20


def test_the_text_groups_a_hand_by_suit_and_says_what_it_would_pay():
    # 105 penalty points in hand (JK 20); the best melds 7C 7D 7S, 2H 3H 4H and 9D TD [JD] QD leave 4C KC 2S JS: 26
    s = RommeState.from_hands(["7C 7D 7S 2H 3H 4H KC 9D JS 2S QD 4C TD JK", JUNK13], "5H")
    lines = s.render(0).splitlines()
    assert lines[0] == ("player_0: 4C 7C KC | 7D 9D TD QD | 2H 3H 4H | 2S 7S JS | JK  "
                        "(14 cards, 105 penalty points; 26 after its best melds)")
    assert lines[1] == "player_1 (dealer): [13 cards]"
    assert lines[2] == "discard pile: 1 card, top 5H; stock: 82 cards"


# ----------------------------------------------------------------------------- bad input


def test_bad_input_is_refused_with_what_is_allowed():
    for n in (1, 7, "2"):
        with pytest.raises(ValueError, match="2..6"):
            RommeState.new_hand(n)
    with pytest.raises(ValueError, match="permutation of the 110"):
        RommeState.from_deck(list(range(109)), 2)
    with pytest.raises(ValueError, match="permutation of the 108"):
        RommeState.from_deck(list(range(110)), 2, RommeRules(jokers=4))
    with pytest.raises(ValueError, match="dealer"):
        RommeState.new_hand(3, dealer=3)
    with pytest.raises(ValueError, match="shuffle, flip|'shuffle'"):
        RommeState.new_hand(2, {"turnover": "sideways"})
    with pytest.raises(ValueError, match="14 cards"):
        RommeState.from_hands(["AC 2C", JUNK13], "7D")
    with pytest.raises(ValueError, match="more cards of AC"):
        RommeState.from_hands(["AC AC AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC", JUNK13], "7D")
    s = RommeState.new_hand(2, seed=1)
    with pytest.raises(IllegalActionError, match="legal: "):
        s.step(DRAW_STOCK)
    with pytest.raises(IllegalActionError):
        s.step(NUM_ACTIONS)


# ----------------------------------------------------------------------------- the solver's new query


def brute_completions(nat, jok, hand, rules):
    """(extra naturals, extra jokers, value, run) of every way to finish the meld being
    built, from melds_of over every sub-multiset of the hand (best value per use)."""
    import itertools
    kinds = [k for k in range(52) for _ in range(int(hand[k]))]
    best = {}
    for size in range(len(kinds) + 1):
        for extra in set(itertools.combinations(kinds, size)):
            for ej in range(int(hand[JOKER]) + 1):
                counts = np.zeros(53, dtype=np.int64)
                for k in list(nat) + list(extra):
                    counts[k] += 1
                if counts.max() > 1:
                    continue
                for m in melds.melds_of(counts[:52], len(jok) + ej, rules):
                    if m.kind == "run":
                        ok = set(jok) <= set(m.stands_for) and all(k not in m.stands_for for k in nat)
                    else:
                        ok = all(k % 13 == m.rank and k // 13 not in m.suits for k in jok) and len(set(jok)) == len(jok)
                        ok &= all(k not in jok for k in nat)
                    if ok:
                        key = (tuple(sorted(extra)), ej, m.is_run)
                        best[key] = max(best.get(key, 0), m.value)
    return best


@pytest.mark.parametrize("rules", [RommeRules(), RommeRules(aces_around_the_corner=True, adjacent_jokers=True,
                                                             naturals_per_meld="more_than_jokers")])
def test_completions_and_can_complete_equal_brute_force(rules):
    rng = np.random.default_rng(11)
    for _ in range(120):
        suit = int(rng.integers(4))
        pool = [suit * 13 + r for r in range(13)] + [s * 13 + int(rng.integers(13)) for s in range(4)]
        hand_kinds = [int(k) for k in rng.choice(pool, size=int(rng.integers(3, 8)))] + [JOKER] * int(rng.integers(0, 3))
        counts = np.zeros(53, dtype=np.uint8)
        for k in hand_kinds:
            counts[k] = min(counts[k] + 1, 2 if k < 52 else 6)
        naturals = [k for k in range(52) if counts[k]]
        nat = tuple(int(k) for k in rng.choice(naturals, size=min(len(naturals), int(rng.integers(1, 3))), replace=False))
        jok = ()
        if counts[JOKER] and rng.random() < 0.5:
            jok = (int(rng.integers(52)),)
        rest = counts.copy()
        for k in nat:
            rest[k] -= 1
        if jok:
            rest[JOKER] -= 1
        got = {(c.extra, c.extra_jokers, c.run): c.value for c in melds.completions(nat, jok, rest, rules)}
        assert got == brute_completions(nat, jok, rest, rules), (nat, jok, rest)
        for committed in (0, 12, 25):
            want = False
            for (extra, ej, run), value in got.items():
                left = rest.copy()
                for k in extra:
                    left[k] -= 1
                left[JOKER] -= ej
                q = rules.replace(come_out_points=max(0, rules.come_out_points - committed - value))
                want |= bool(melds.can_come_out(left, q, keep=1))
            assert melds.can_complete(rest, nat, jok, rules, committed=committed, keep=1) == want
    # with nothing being built it is can_come_out with the points still missing
    hand = parse_hand("7C 7D 7S 2H 3H 4H KC")
    assert melds.can_complete(hand) and not melds.can_complete(hand, committed=-1)
    assert melds.can_complete(parse_hand("7C 7D 2H 3H 4H KC"), ["7S"], [])
