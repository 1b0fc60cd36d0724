"""Basic Rummy invariants over many random games, for 2, 3 and 4 players and rule options."""

import numpy as np
import pytest

from conftest import partition_ok
from rummy_env.core.cards import card_value, cards_to_mask
from rummy_env.basic.game import (
    DRAW_STOCK, LAYOFF, MELD, NUM_ACTIONS, TAKE_DISCARD, BasicRummyState, IllegalActionError, Phase,
)
from rummy_env.core.meld_table import meld_table
from rummy_env.basic.rules import BasicRummyRules

VARIANTS = {
    "basic": BasicRummyRules(),
    "aces_high_no_double": BasicRummyRules(aces="high", rummy_multiplier=1),
    "final_discard_free_layoffs": BasicRummyRules(go_out_without_discard=False, layoff_needs_own_meld=False),
    "two_turnovers_short": BasicRummyRules(stock_turnovers=2, max_turns=60),
    "no_turnover_small_hands": BasicRummyRules(stock_turnovers=0, hand_size=4),
}
GAMES = 60


def play(rules: BasicRummyRules, n: int, seed: int) -> BasicRummyState:
    """Random play that prefers melds and lay-offs (so players go out often)."""
    rng = np.random.default_rng(seed)
    s = BasicRummyState.new_hand(n, rules, seed=rng, dealer=seed % n)
    dealt = rules.cards_per_hand(n)
    steps = 0
    while not s.is_over:
        legal = s.legal_actions()
        assert legal, "no legal action for the player to move"
        mask = s.legal_mask()
        assert mask.dtype == np.int8 and mask.shape == (NUM_ACTIONS,)
        assert np.flatnonzero(mask).tolist() == legal
        if steps % 7 == 3:  # an illegal action is refused and changes nothing
            illegal = int(rng.choice(np.flatnonzero(mask == 0)))
            before = (list(s.hands), list(s.stock), list(s.discard_pile), list(s.table), s.phase, len(s.history))
            with pytest.raises(IllegalActionError, match="legal:"):
                s.step(illegal)
            assert before == (list(s.hands), list(s.stock), list(s.discard_pile), list(s.table), s.phase, len(s.history))
        plays = [a for a in legal if a >= MELD]
        action = int(rng.choice(plays)) if plays and rng.random() < 0.9 else int(rng.choice(legal))
        p = s.current_player
        s.step(action)
        steps += 1
        assert partition_ok(s)
        assert s.pile_mask == cards_to_mask(s.discard_pile)  # kept with the pile, for information sets
        assert len(s.table) <= 17
        assert all(played & ~s.table_mask == 0 for played in s.played)
        if s.phase == Phase.DRAW or s.is_over:
            assert s.hands[p].bit_count() <= dealt  # a turn never leaves more cards than dealt
        assert steps <= 4 * rules.max_turns * (2 + 17), "hand did not terminate"
    return s


def check_result(s: BasicRummyState, rules: BasicRummyRules) -> None:
    r = s.result
    assert r is not None and s.legal_actions() == [] and not s.legal_mask().any()
    assert sum(r.rewards) == 0
    if r.outcome == "stalemate":
        assert r.winner is None and r.points == 0 and set(r.penalties) == {0}
        if r.reason == "stock":
            assert not s.stock and s.turnovers == rules.stock_turnovers
        else:
            assert r.reason == "max_turns" and s.turn == rules.max_turns
        return
    w = r.winner
    assert s.hands[w] == 0 and r.hands_left == tuple(s.hands)
    last_seat, last_action = s.history[-1]
    assert last_seat == w and r.with_discard == (last_action < MELD)
    if not rules.go_out_without_discard:
        assert r.with_discard
    # rummy iff none of the winner's melds or lay-offs came before their last draw
    last_draw = max(i for i, (seat, a) in enumerate(s.history) if seat == w and a in (DRAW_STOCK, TAKE_DISCARD))
    first_play = min(i for i, (seat, a) in enumerate(s.history) if seat == w and a >= MELD)
    assert (r.outcome == "rummy") == (first_play > last_draw)
    mult = rules.rummy_multiplier if r.outcome == "rummy" else 1
    for seat, hand in enumerate(s.hands):
        expect = 0 if seat == w else mult * sum(card_value(c) for c in range(52) if hand >> c & 1)
        assert r.penalties[seat] == expect
    assert r.points == sum(r.penalties) and r.rewards[w] == r.points


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_random_games_keep_every_invariant(name, n):
    rules = VARIANTS[name]
    outcomes = set()
    for seed in range(GAMES):
        s = play(rules, n, seed)
        check_result(s, rules)
        outcomes.add(s.result.outcome)
    assert {"out", "rummy"} & outcomes


def test_every_masked_in_action_steps_from_sampled_states():
    rng = np.random.default_rng(0)
    checked = 0
    for seed in range(90):
        n = 2 + seed % 3
        s = BasicRummyState.new_hand(n, seed=seed)
        for _ in range(int(rng.integers(0, 80))):
            if s.is_over:
                break
            legal = s.legal_actions()
            plays = [a for a in legal if a >= MELD]
            s.step(int(rng.choice(plays)) if plays else int(rng.choice(legal)))
        for a in s.legal_actions():
            c = s.clone()
            c.step(a)
            assert partition_ok(c) and (c.is_over or c.legal_actions())
            checked += 1
    assert checked > 300


def test_layoffs_seen_in_random_play_fit_their_meld():
    table = meld_table(False)
    seen = 0
    for seed in range(40):
        s = BasicRummyState.new_hand(3, seed=seed)
        rng = np.random.default_rng(seed)
        while not s.is_over:
            legal = s.legal_actions()
            lays = [a for a in legal if a >= LAYOFF]
            if lays:
                a = int(rng.choice(lays))
                slot, card = divmod(a - LAYOFF, 52)
                assert (s.table[slot].cards | 1 << card) in table.index  # still a meld
                seen += 1
            else:
                plays = [a for a in legal if a >= MELD]
                a = int(rng.choice(plays)) if plays else int(rng.choice(legal))
            s.step(a)
    assert seen > 20


def test_same_seed_same_game():
    a, b = play(BasicRummyRules(), 3, 7), play(BasicRummyRules(), 3, 7)
    assert a.history == b.history and a.deck == b.deck and a.result == b.result
    assert play(BasicRummyRules(), 3, 8).deck != a.deck
