"""Rommé's legal mask against brute force over the turn's own moves.

The mask offers an action only if the turn can still end after it: a player choosing
among legal actions is never stuck (``rummy_env.romme.game``'s module docstring). Here
that is checked without the mask's own predicate: from a position, every action whose own
conditions hold (the predicate answering "yes" to every question) is tried, move after
move, until the turn ends (a discard, or going out) or no move is left. The actions that
reach an end are the legal ones, exactly. The positions are small hands (two to six
cards) put into positions of random play, many holding jokers: a joker taken from the pile
this turn, and the natural cards that swap a table meld's joker, since a joker owed by a
swap and a joker taken from the pile were where a dead end hid (the scripted test)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from rummy_env.romme import vector
from rummy_env.romme.cards import FIRST_JOKER, JOKER, kind_of, parse_kind
from rummy_env.romme.game import (
    COMMIT, DISCARD, DRAW_STOCK, JOKER_AS, LAYOFF, LAYOFF_JOKER, PICK, SWAP, TAKE_DISCARD, Phase, RommeState,
    _accepts,
)
from rummy_env.romme.rules import RommeRules

K = parse_kind
needs_compiled = pytest.mark.skipif(vector.compiled_engine() is None,
                                    reason="the compiled engine is not in use (numba off or missing)")
RULES = {
    "default": RommeRules(),
    "no_discard": RommeRules(go_out_without_discard=True, adjacent_jokers=True),
    "strict": RommeRules(naturals_per_meld="more_than_jokers", aces_around_the_corner=True, jokers=4),
}


def own_moves(s: RommeState) -> list[int]:
    """The actions whose own conditions hold: the legal actions with every question of the
    predicate answered "yes" (a card goes into the meld being built only if that meld can
    still be finished from the hand: ``melds.completions``, checked by brute force itself).
    But one: the card taken from the pile, the last in the hand, laid off (going out, where
    no discard is needed). The mask's plans leave that way out (the rules page says so)."""
    yes = s.clone()
    yes._evaluate_reference = lambda groups: [item for item, _ in groups]
    moves = yes._legal_actions(reference=True)
    if len(s.hands[s.current_player]) == 1 and s.taken_held:
        moves = [a for a in moves if not LAYOFF <= a < SWAP]
    return moves


def moved(s: RommeState, action: int) -> RommeState:
    """``s`` after ``action``, a copy."""
    after = s.clone()
    after._legal = [action]  # played whether or not the mask offers it
    after.step(action)
    return after


def key(s: RommeState) -> tuple:
    """What decides the rest of the turn: the mover's cards, the meld being built, the
    table, the card taken and the joker owed, the turn's melds."""
    p = s.current_player
    return (bytes(s.counts(p)), tuple(sorted(k + 100 * (c >= FIRST_JOKER) for c, k in s.pending)),
            tuple(str(m.meld) for m in s.table), s.swapped_joker in s.hands[p], s.taken_held,
            kind_of(s.taken_card) if s.taken_card is not None else -1, s.must_meld_taken, s.turn_points,
            s.turn_melds, s.turn_run, s.came_out[p])


def turn_ends(s: RommeState, action: int) -> bool:
    """Whether ``action``, which led to ``s``, ended the turn (a discard, or going out)."""
    return DISCARD <= action < PICK or s.phase == Phase.OVER


def can_end(s: RommeState, seen: dict) -> bool:
    """Whether some sequence of the player's own moves ends the turn (memoised on ``seen``)."""
    k = key(s)
    if k not in seen:
        seen[k] = False  # (no move returns to a position: each puts a card down)
        seen[k] = any(turn_ends(after, a) or can_end(after, seen) for a in own_moves(s)
                      for after in (moved(s, a),))
    return seen[k]


def brute_legal(s: RommeState, seen: dict) -> list[int]:
    """The actions from which the turn can end, by brute force (``can_end``)."""
    out = []
    for a in own_moves(s):
        after = moved(s, a)
        if turn_ends(after, a) or can_end(after, seen):
            out.append(a)
    return out


def check_turn(s: RommeState, seen: dict, checked: set, budget: list, root: bool = True) -> None:
    """The mask equals brute force here and in every position the mask leads to this turn
    (``budget[0]`` positions at most), and those have a legal action (a position made up,
    the root, may have none)."""
    k = key(s)
    if k in checked or budget[0] <= 0:
        return
    checked.add(k)
    budget[0] -= 1
    legal = s.legal_actions()
    assert legal == brute_legal(s, seen), s.render()
    assert legal or root, s.render()
    for a in legal:
        after = moved(s, a)
        if not turn_ends(after, a):
            check_turn(after, seen, checked, budget, False)


def small_hand_position(rng: np.random.Generator, s: RommeState) -> RommeState:
    """``s`` (the mover in the play phase, nothing pending) with the mover's hand swapped
    with the stock for two to six cards: often a joker taken from the pile this turn, often
    a card that swaps a table joker."""
    p = s.current_player
    pool = list(s.hands[p]) + list(s.stock)
    jokers = [c for c in pool if c >= FIRST_JOKER]
    size = int(rng.integers(2, 7))
    hand: list[int] = []
    for _ in range(int(rng.integers(0, 3))):
        if jokers:
            hand.append(jokers.pop(int(rng.integers(len(jokers)))))
    swaps = [k for m in s.table for k in _accepts(m.meld, s.rules)[2]]
    if swaps and rng.random() < 0.6:
        k = swaps[int(rng.integers(len(swaps)))]
        hand += [c for c in pool if kind_of(c) == k and c not in hand][:1]
    rest = [c for c in pool if c not in hand]
    rng.shuffle(rest)
    hand = sorted(hand + rest[:max(0, size - len(hand))])
    stock = [c for c in pool if c not in hand]
    rng.shuffle(stock)
    taken = None
    if rng.random() < 0.6:
        held_jokers = [c for c in hand if c >= FIRST_JOKER]
        taken = held_jokers[0] if held_jokers and rng.random() < 0.7 else hand[int(rng.integers(len(hand)))]
    hands = [list(h) for h in s.hands]
    hands[p] = hand
    known = [list(k) for k in s.known]
    known[p] = [taken] if taken is not None else []
    must = taken is not None and not s.came_out[p] and s.rules.take_discard_before_out == "meld"
    new = dataclasses.replace(s, hands=hands, stock=stock, known=known, taken_card=taken, must_meld_taken=must)
    new._moved()  # (what was worked out for ``s`` is not this position's)
    return new


def positions(rules: RommeRules, seed: int, count: int):
    """Turn starts of random play (after the draw, nothing pending), mostly of players who
    have come out, each with a small hand put in."""
    rng = np.random.default_rng(seed)
    made = 0
    game = 0
    while made < count:
        s = RommeState.new_hand(2, rules.replace(max_turns=60), seed=rng, dealer=game % 2)
        game += 1
        while not s.is_over and made < count:
            legal = s.legal_actions()
            if s.phase == Phase.PLAY and not s.pending and s.taken_card is None and s.stock and \
                    (s.came_out[s.current_player] or rng.random() < 0.2) and rng.random() < 0.5:
                made += 1
                yield small_hand_position(rng, s)
            s.step(int(rng.choice(legal)))


@pytest.mark.parametrize("name", list(RULES))
def test_the_mask_equals_brute_force_over_the_turn(name):
    rules = RULES[name]
    seen: dict = {}
    budget = [1000]
    met = 0
    for s in positions(rules, sum(map(ord, name)), 150):
        check_turn(s, seen, set(), budget)
        met += any(a >= SWAP for a in s.legal_actions()) and s.taken_held and s.taken_card >= FIRST_JOKER
    assert budget[0] <= 0 and met >= 2  # every position had its turn; a swap and a taken joker met


def swap_with_a_taken_joker(rules: RommeRules = None) -> RommeState:
    """Seat 0 has come out with three melds (a joker in the first); seat 1 discards a
    joker; seat 0 takes it and swaps the king of hearts for the table's joker: it now holds
    two jokers (one owed, one taken from the pile), TC and JC."""
    s = RommeState.from_hands(["KC KD JK 3S 4S 5S 6S 8H 8D 8S TC JC KH 2D",
                               "JK 9D JS 2H QD 4C TD 6H 8C AS 3C 5D QH"], "7D", stock="9H", rules=rules)
    for a in (PICK + K("KC"), PICK + K("KD"), JOKER_AS + K("KH"), COMMIT,
              *(PICK + K(c) for c in ("3S", "4S", "5S", "6S")), COMMIT, *(PICK + K(c) for c in ("8H", "8D", "8S")),
              COMMIT, DISCARD + K("2D"), DRAW_STOCK, DISCARD + JOKER, TAKE_DISCARD, SWAP + K("KH")):
        s.step(a)
    return s


def test_a_joker_owed_and_a_joker_taken_are_two_jokers_to_play():
    """Holding the joker owed by a swap and the joker taken from the pile, a joker put down
    is the one owed (then the one taken may stay, but not be discarded). Melding TC JC with
    a joker would leave only the joker taken: no discard, a dead end (found in random play
    of the vector engine). So only a joker laid off is legal (then TC or JC is discarded);
    where going out needs no discard, TC JC and both jokers may go out in one meld."""
    s = swap_with_a_taken_joker()
    hand = sorted(kind_of(c) for c in s.hands[0])
    assert hand == [K("TC"), K("JC"), JOKER, JOKER] and s.swapped_joker in s.hands[0] and s.taken_card in s.hands[0]
    legal = s.legal_actions()
    assert legal == s._compute_legal_reference() == [LAYOFF_JOKER + 52 * 0 + K("KS"), LAYOFF_JOKER + 52 * 1 + K("2S"),
                                                     LAYOFF_JOKER + 52 * 1 + K("7S"), LAYOFF_JOKER + 52 * 2 + K("8C")]
    assert legal == brute_legal(s, {})
    after = moved(s, legal[1])  # the owed joker laid off: the taken one stays, TC or JC is discarded
    assert after.swapped_joker is None and after.taken_card in after.hands[0]
    legal = after.legal_actions()
    assert legal[:2] == [DISCARD + K("TC"), DISCARD + K("JC")] and all(LAYOFF_JOKER <= a < SWAP for a in legal[2:])
    assert legal == brute_legal(after, {})  # (TC JC and the taken joker in a meld: nothing left to discard)
    free = swap_with_a_taken_joker(RommeRules(go_out_without_discard=True))
    assert JOKER_AS + K("9C") in free.legal_actions() and PICK + K("TC") in free.legal_actions()
    check_turn(free, {}, set(), [100])


@needs_compiled
def test_the_vector_engine_agrees_where_a_joker_owed_meets_a_joker_taken():
    """The vector engine, loaded with the position, offers the same actions move after move."""
    for rules in (None, RommeRules(go_out_without_discard=True)):
        s = swap_with_a_taken_joker(rules)
        env = vector.VectorRomme(1, 2, rules=rules, seed=0)
        env.reset()
        env.load_states(np.array([0]), [s])
        while not s.is_over and s.current_player == 0:
            mask = env.action_mask()[0]
            assert np.flatnonzero(mask).tolist() == s.legal_actions()
            a = s.legal_actions()[0]
            s.step(a)
            env.step(np.array([a]))


def test_a_joker_taken_laid_off_and_swapped_back_is_the_joker_owed():
    """The joker taken from the pile, laid off and brought back by a swap, is owed: it must
    be played (so it is not discarded either), and nothing else is held back. The mask, the
    vector engine and brute force agree; a world sampled from the player's view has it so."""
    s = RommeState.from_hands(["KC KD KH 3S 4S 5S 6S 8H 8D 8S TC JC KS 2D",
                               "JK 9D JS 2H QD 4C TD 6H 8C AS 3C 5D QH"], "7D", stock="9H")
    for a in (*(PICK + K(c) for c in ("KC", "KD", "KH")), COMMIT, *(PICK + K(c) for c in ("3S", "4S", "5S", "6S")),
              COMMIT, *(PICK + K(c) for c in ("8H", "8D", "8S")), COMMIT, DISCARD + K("2D"), DRAW_STOCK,
              DISCARD + JOKER, TAKE_DISCARD, LAYOFF_JOKER + 52 * 0 + K("KS"), SWAP + 52 * 0 + K("KS")):
        s.step(a)
    assert s.swapped_joker == s.taken_card and s.taken_card in s.hands[0] and not s.taken_held
    legal = s.legal_actions()
    assert legal == s._compute_legal_reference() == brute_legal(s, {})
    assert legal and all(LAYOFF_JOKER <= a < SWAP for a in legal)  # (then TC or JC is discarded)
    check_turn(s, {}, set(), [100])
    if vector.compiled_engine() is not None:
        env = vector.VectorRomme(1, 2, seed=0)
        env.reset()
        env.load_states(np.array([0]), [s])
        assert np.flatnonzero(env.action_mask()[0]).tolist() == legal
    world = RommeState.sample_from_information_set(s.information_set(0), s.rules, np.random.default_rng(0))
    assert world.legal_actions() == legal and world.information_set(0) == s.information_set(0)
