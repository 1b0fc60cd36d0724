"""Invariants over many random games (10,000 hands in all, across presets and options)."""

import numpy as np
from conftest import partition_ok, random_position
import pytest

from rummy_env.gin.game import BIG_GIN, KNOCK, NUM_ACTIONS, GinRummyState, IllegalActionError, Phase
from rummy_env.gin.rules import PRESETS, Rules

VARIANTS = {
    "classic": PRESETS["classic"],
    "eaai": PRESETS["eaai"],
    "openspiel": PRESETS["openspiel"],
    "oklahoma_aces_high_five": Rules(oklahoma=True, aces="high", five_under_ten=True),
    "no_offer_limit_0_turns_30": Rules(first_upcard_pass=False, knock_limit=0, max_turns=30),
    "wall_knock_taken_card_cap_5": Rules(wall_knock=True, discard_taken_card=True, max_upcard_draws=5, knock_limit=20),
}
GAMES_PER_VARIANT = 2000


def play(rules: Rules, seed: int) -> GinRummyState:
    """Random play that knocks or declares when it can (so showdowns are common)."""
    rng = np.random.default_rng(seed)
    s = GinRummyState.new_hand(rules, seed=rng, dealer=seed % 2)
    steps = 0
    while not s.is_over:
        legal = s.legal_actions()
        assert legal, "no legal action for the player to move"
        mask = s.legal_mask()
        assert mask.sum() == len(legal) and all(mask[a] for a in legal)
        if steps == 3:  # one illegal action per game must be refused, and change nothing
            illegal = int(rng.choice(np.flatnonzero(mask == 0)))
            before = (list(s.hands), list(s.stock), list(s.discard_pile), s.phase)
            with pytest.raises(IllegalActionError, match="legal:"):
                s.step(illegal)
            assert before == (list(s.hands), list(s.stock), list(s.discard_pile), s.phase)
        enders = [a for a in legal if a >= KNOCK]
        action = enders[-1] if enders and rng.random() < 0.7 else int(rng.choice(legal))
        s.step(action)
        steps += 1
        assert partition_ok(s)
        assert steps <= 4 * rules.max_turns + 4, "hand did not terminate"
    return s


def check_result(s: GinRummyState, rules: Rules) -> None:
    r = s.result
    assert r is not None and s.phase == Phase.OVER and s.legal_actions() == []
    assert sum(r.rewards) == 0 and r.points >= 0
    if r.outcome == "draw":
        assert r.winner is None and r.points == 0
        if r.reason == "repeated":  # a card taken and thrown back by both players in a row
            assert rules.discard_taken_card and s.history[-4:-2] == s.history[-2:] and s.history[-2] == 1
        elif r.reason == "upcard_draws":
            assert s.upcard_draws == rules.max_upcard_draws and s.history[-1] == 1
        else:
            assert r.reason in ("wall", "max_turns") and (len(s.stock) <= 2 or s.turn >= rules.max_turns)
            assert s.history[-1] != 2 or rules.wall_knock  # a pass ends a hand at the wall only
        return
    k, d = r.knocker_deadwood, r.defender_deadwood
    assert k <= s.knock_limit or r.outcome == "big_gin"
    if r.outcome == "big_gin":
        assert s.history[-1] == BIG_GIN and s.hands[r.knocker].bit_count() == 11 and k == 0
        assert r.points == d + rules.big_gin_bonus and r.layoffs == ()
    elif r.outcome == "gin":
        assert k == 0 and r.points == d + rules.gin_bonus and r.layoffs == ()
    elif r.outcome == "knock":
        assert d > k and r.points == d - k and r.winner == r.knocker
    elif r.outcome == "undercut":
        assert (d < k or (d == k and rules.undercut_on_tie)) and r.winner == 1 - r.knocker
        assert r.points == k - d + rules.undercut_bonus
    else:
        assert r.outcome == "tie" and d == k and not rules.undercut_on_tie and r.points == 0


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_random_games_keep_every_invariant(name):
    rules = VARIANTS[name]
    outcomes = set()
    for seed in range(GAMES_PER_VARIANT):
        s = play(rules, seed)
        check_result(s, rules)
        outcomes.add(s.result.outcome)
    assert "draw" in outcomes and ({"knock", "gin", "undercut"} & outcomes)


def test_same_seed_same_game():
    a, b = play(PRESETS["classic"], 7), play(PRESETS["classic"], 7)
    assert a.history == b.history and a.deck == b.deck and a.result == b.result
    assert play(PRESETS["classic"], 8).deck != a.deck


def test_clone_is_independent():
    s = GinRummyState.new_hand(seed=3)
    c = s.clone()
    c.step(c.legal_actions()[0])
    assert s.history == [] and s.phase == Phase.OFFER and c.history != []


def test_every_legal_action_steps_from_sampled_states():
    rng = np.random.default_rng(0)
    for seed in range(200):
        s = random_position(seed, rng, 0, 40)
        for a in s.legal_actions():
            c = s.clone()
            c.step(a)
            assert partition_ok(c)
        assert len(s.legal_mask()) == NUM_ACTIONS
