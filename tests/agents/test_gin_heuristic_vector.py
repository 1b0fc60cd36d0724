"""The array version of the heuristic against the scripted agent itself, position by position."""

import numpy as np
import pytest

from rummy_env.agents.gin.heuristic import HeuristicAgent
from rummy_env.agents.gin.heuristic_vector import danger, heuristic_actions
from rummy_env.core import melds
from rummy_env.core.cards import mask_to_cards
from rummy_env.gin.game import DISCARD, KNOCK, PASS, TAKE_DISCARD, Phase
from rummy_env.gin.rules import Rules
from rummy_env.gin.vector import VectorGinRummy
from rummy_env.train.opponents import information_set_of

RULES = ["classic", "eaai", "openspiel", Rules(oklahoma=True, aces="high", five_under_ten=True, max_turns=30),
         Rules(wall_knock=True)]  # the wall without the card taken as a face-down card, with Big Gin
SETTINGS = [{}, {"take_margin": -2.0, "danger_weight": 3.0, "late_turn": 6, "late_knock_max": 2}]


@pytest.mark.parametrize("settings", SETTINGS)
@pytest.mark.parametrize("rules", RULES)
@pytest.mark.usefixtures("solver_backend")
def test_same_moves_and_discard_scores_as_the_scripted_agent(rules, settings):
    env = VectorGinRummy(48, rules=rules, seed=3)
    env.reset()
    scripted = HeuristicAgent(seed=0, knock="turn", **settings)  # the array version's knock rule
    rng = np.random.default_rng(1)
    opts = {"aces_high": env.rules.aces_high, "five_under_ten": env.rules.five_under_ten}
    rows = np.arange(env.num_envs)
    kinds = {"take": 0, "draw": 0, "discard": 0, "knock": 0, "tie": 0}
    walls = takes = 0
    for _ in range(120):
        actions = heuristic_actions(env, rows, rng, **settings)
        mask = env.action_mask()
        for g in rows:
            info = information_set_of(env, g)
            legal = set(np.flatnonzero(mask[g]).tolist())
            expected = scripted.choose(info, env.rules, legal)
            a = int(actions[g])
            assert a in legal
            if info.phase == Phase.DISCARD and DISCARD <= expected < KNOCK:
                # the discard scores must be equal; the pick among equal scores is random in both
                cards = [c for c in mask_to_cards(info.hand) if DISCARD + c in legal]
                scores = scripted._discard_scores(info.hand, cards, melds.discard_deadwood(info.hand, **opts), info, opts)
                low = min(scores.values())
                best = {c for c, v in scores.items() if v <= low + 1e-9}
                assert DISCARD <= a < KNOCK and a - DISCARD in best, (g, a, scores)
                kinds["tie"] += len(best) > 1
                kinds["discard"] += 1
            else:
                assert a == expected, (g, info)
                kinds["knock" if a >= KNOCK else "take" if a == 1 else "draw"] += a != 2
            walls += info.phase == Phase.DRAW and PASS in legal  # the wall
            takes += info.phase == Phase.DRAW and {TAKE_DISCARD, PASS} <= legal  # the wall, taking allowed
        # most knocks played as discards instead, so that hands also run to the wall
        plays_on = (actions >= KNOCK) & (actions < KNOCK + 52) & (rng.random(rows.size) < 0.7)
        plays_on &= mask[rows, np.where(plays_on, actions - (KNOCK - DISCARD), 0)] == 1
        env.step(np.where(plays_on, actions - (KNOCK - DISCARD), actions))
    assert min(kinds.values()) > 0, kinds  # every kind of decision was compared, ties included
    assert (walls > 0) == env.rules.wall_knock and (takes > 0 or rules != "openspiel"), (walls, takes)


def test_danger_equals_the_scripted_agents_for_every_card():
    env = VectorGinRummy(32, rules=Rules(aces="high"), seed=5)
    env.reset()
    rng = np.random.default_rng(2)
    scripted = HeuristicAgent()
    rows = np.arange(env.num_envs)
    for _ in range(60):
        q = 1 - env.current
        risk = danger(env.known[rows, q], env.discarded[rows, q] | env.passed[rows, q], env.turn, aces_high=True)
        for g in rows[::4]:
            info = information_set_of(env, g)
            want = [scripted._danger(c, info, True) for c in range(52)]
            np.testing.assert_array_equal(risk[g], want)
        env.step(heuristic_actions(env, rows, rng))


def test_noise_breaks_ties_and_is_checked():
    env = VectorGinRummy(4, seed=0)
    env.reset()
    with pytest.raises(ValueError, match="noise must have shape"):
        heuristic_actions(env, np.arange(4), noise=np.zeros((4, 3)))
    with pytest.raises(ValueError, match="needs rng or noise"):
        heuristic_actions(env, np.arange(4))
    rows = np.arange(4)
    noise = np.random.default_rng(0).random((4, 52))
    assert (heuristic_actions(env, rows, noise=noise) == heuristic_actions(env, rows, noise=noise)).all()
