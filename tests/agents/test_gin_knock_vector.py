"""The knock estimate over many games (rummy_env/agents/gin/knock_vector.py) against the
per-game one (``heuristic.estimate_knock``, ``belief.sample_opponent_hands``): the same
facts from the engine's arrays as from the information set, the same sampled hands and
decisions from the same random numbers, and ``heuristic_actions(knock="estimate")``
playing as the scripted agent does."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from rummy_env.agents.gin import belief, knock_vector
from rummy_env.agents.gin.heuristic import HeuristicAgent, estimate_knock
from rummy_env.agents.gin.heuristic_vector import heuristic_actions
from rummy_env.agents.gin.knock_vector import KnockFacts, facts_of_env, facts_of_infoset, in_melds, stack_draws
from rummy_env.core import melds
from rummy_env.core.cards import mask_to_cards, parse_card, parse_hand
from rummy_env.gin.game import BIG_GIN, DISCARD, DRAW_STOCK, KNOCK, PASS, TAKE_DISCARD, GinRummyState, Phase
from rummy_env.gin.rules import Rules, load_rules
from rummy_env.gin.vector import VectorGinRummy
from gin_hands import P1B, state_after

RULES = ["classic", "eaai", "openspiel", Rules(aces="high", five_under_ten=True, oklahoma=True, first_upcard_pass=False,
                                               max_turns=30)]
_BITS = np.uint64(1) << np.arange(52, dtype=np.uint64)


def lockstep(rules, n: int, steps: int, seed: int, policy=None):
    """The vector engine and the pure game played in lockstep from the same deals: yields
    (env, games) before each step. ``policy(env, rows, rng)`` moves (default: the heuristic
    with the turn rule, mostly discarding where it would knock and sometimes playing a
    random move, so hands run long, to the wall too, with many positions that may knock)."""
    env = VectorGinRummy(n, rules=rules, encoding=None, seed=seed)
    env.reset()
    games = [GinRummyState.from_deck(env.decks[i].tolist(), env.rules, int(env.dealer[i])) for i in range(n)]
    rng = np.random.default_rng(seed)
    rows = np.arange(n)
    for _ in range(steps):
        yield env, games
        mask = env.action_mask()
        if policy is not None:
            actions = policy(env, rows, rng)
        else:
            actions = heuristic_actions(env, rows, rng)
            knocks = (actions >= KNOCK) & (actions < BIG_GIN) & (rng.random(n) < 0.85)
            knocks &= mask[rows, np.where(knocks, actions - (KNOCK - DISCARD), 0)] == 1  # not after a take at the wall
            actions[knocks] -= KNOCK - DISCARD
            wild = np.flatnonzero(rng.random(n) < 0.15)
            for g in wild:
                legal = np.flatnonzero(mask[g, :KNOCK])
                if legal.size:
                    actions[g] = rng.choice(legal)
        result = env.step(actions)
        for g in rows:
            games[g].step(int(actions[g]))
            assert games[g].is_over == result.terminated[g]
            if games[g].is_over:
                games[g] = GinRummyState.from_deck(env.decks[g].tolist(), env.rules, int(env.dealer[g]))


def knock_rows(env: VectorGinRummy) -> tuple[np.ndarray, np.ndarray]:
    """Games where the player to move would run the knock estimate (a knock is legal, the
    best leaves deadwood, no Big Gin), and the 10 cards a knock keeps there (the lowest
    card among those leaving the least deadwood)."""
    mask, after = env.action_mask(), env.discard_deadwood()
    knockable = mask[:, KNOCK : KNOCK + 52] == 1
    best = np.where(knockable, after, 999).min(axis=1)
    rows = np.flatnonzero((env.phase == Phase.DISCARD) & knockable.any(axis=1) & (best > 0) & (mask[:, BIG_GIN] == 0))
    card = np.argmax(knockable[rows] & (after[rows] == best[rows, None]), axis=1)
    hands = env.hands[rows, env.current[rows].astype(np.intp)]
    return rows, hands & ~_BITS[card]


def assert_same_facts(a: KnockFacts, b: KnockFacts) -> None:
    for f in dataclasses.fields(KnockFacts):
        x, y = getattr(a, f.name), getattr(b, f.name)
        assert x.shape == y.shape and np.array_equal(x, y), (f.name, x, y)


def infoset(games, g: int):
    return games[g].information_set(games[g].current_player)


@pytest.mark.parametrize("rules", RULES)
def test_the_engine_gives_the_facts_of_the_information_set(rules):
    # every discard-phase position: what the engine's arrays say equals what the per-game
    # model reads from the information set (its public history included)
    seen = {"last discard": 0, "took": 0, "late": 0}
    walls = 0
    for env, games in lockstep(rules, 24, 150, seed=1):
        # at the wall the facts of the knock after taking the discard are those of the position before
        wall = np.flatnonzero((env.phase == Phase.DRAW) & (env.stock_next >= 50) & env.rules.wall_knock)
        rows = np.concatenate([np.flatnonzero(env.phase == Phase.DISCARD), wall])
        walls += wall.size
        if rows.size == 0:
            continue
        hands = env.hands[rows, env.current[rows].astype(np.intp)]
        if wall.size:  # the hand with the discard
            hands[-wall.size:] |= _BITS[env.pile[wall, env.pile_len[wall] - 1].astype(np.intp)]
        kept = hands & ~(hands & -hands)  # any 10 of the 11 cards
        got = facts_of_env(env, rows, kept)
        assert_same_facts(got, KnockFacts.concatenate([facts_of_infoset(infoset(games, g), int(k))
                                                       for g, k in zip(rows, kept)]))
        seen["last discard"] += int((got.last_card >= 0).sum())
        seen["took"] += int((got.last_taken >= 0).sum())
        seen["late"] += int((got.discards > belief.NO_KNOCK_DISCARDS).sum())
    assert min(seen.values()) > 20, seen
    assert (walls > 5) == load_rules(rules).wall_knock, walls
    # positions loaded from the pure game carry the same took as the stepped engine
    live = [g for g in range(len(games)) if not games[g].is_over]
    loaded = VectorGinRummy(len(live), rules=rules, encoding=None)
    loaded.load_states(np.arange(len(live)), [games[g] for g in live])
    np.testing.assert_array_equal(loaded.took, env.took[live])
    copied = VectorGinRummy(2, rules=rules, encoding=None)
    copied.copy_games(env, [live[0], live[1]], [1, 0])
    np.testing.assert_array_equal(copied.took, env.took[[live[1], live[0]]])
    with pytest.raises(ValueError, match="discard phase"):
        facts_of_env(env, np.flatnonzero((env.phase != Phase.DISCARD) & (env.stock_next < 50))[:1], kept[:1])


def _per_game_and_batch(positions, rules, seed: int):
    """Per-game (hands, knock, mean) and the batch's, with the same draws for each position
    (``positions``: (information set, kept) pairs)."""
    draws = [belief.ChainDraws.random(np.random.default_rng(seed + i), 48) for i in range(len(positions))]
    hands = np.stack([belief.sample_opponent_hands(info, rules, None, 48, d) for (info, _), d in zip(positions, draws)])
    decided = [estimate_knock(info, rules, kept, None, draws=d) for (info, kept), d in zip(positions, draws)]
    facts = KnockFacts.concatenate([facts_of_infoset(info, kept) for info, kept in positions])
    stacked = stack_draws(draws)
    batch_hands = knock_vector.sample_opponent_hands_batch(facts, rules, 48, draws=stacked)
    knock, mean = knock_vector.knock_estimates(facts, rules, draws=stacked)
    np.testing.assert_array_equal(batch_hands, hands)
    np.testing.assert_array_equal(mean, [m for _, m in decided])
    np.testing.assert_array_equal(knock, [k for k, _ in decided])
    return facts, knock


@pytest.mark.parametrize("rules", RULES)
def test_same_draws_same_hands_and_knock_decisions_as_per_game(rules):
    positions, env_facts = [], []
    max_turns = load_rules(rules).max_turns
    for env, games in lockstep(rules, 32, 90, seed=2):
        rows, kept = knock_rows(env)
        last = (52 - env.stock_next[rows] <= 2) | (env.turn[rows] + 1 >= max_turns)
        for i in np.flatnonzero(last | (np.arange(rows.size) == 0)):  # one a step, spread over the hands; last turns
            positions.append((infoset(games, rows[i]), int(kept[i])))
            env_facts.append(facts_of_env(env, rows[i : i + 1], kept[i : i + 1]))
    assert len(positions) >= 40
    facts, knock = _per_game_and_batch(positions, load_rules(rules), seed=10)
    assert_same_facts(KnockFacts.concatenate(env_facts), facts)  # the engine's facts: the same numbers again
    assert knock.any() and not knock.all()
    assert (facts.last_taken >= 0).any() and (facts.discards > belief.NO_KNOCK_DISCARDS).any()
    assert (facts.stock_size <= 2).any() or (facts.turn + 1 >= load_rules(rules).max_turns).any()  # last turns
    assert (facts.discards <= belief.NO_KNOCK_DISCARDS).any()


def test_same_draws_same_decisions_in_the_corner_cases():
    # turn 0 (no discard of the opponent's to read), a fresh hand (nothing known), the
    # opponent's hand known but one card or whole (nothing to sample), the last turn
    s = state_after("2C 3C 4C 4S 6S 7H 8H 9H 9D QS", P1B, "TD", "5S", [PASS, PASS, DRAW_STOCK])
    info, kept = s.information_set(0), s.hands[0] & ~(1 << parse_card("QS"))
    melded = parse_hand("AD 2D 3D 5H 5D 5C TC JC QC AS")
    close = parse_hand("AD 2D 3D 5H 5D 5C TC JC QC KS")
    cases = [info, dataclasses.replace(info, opponent_known=melded & ~(1 << parse_card("AS"))),
             dataclasses.replace(info, opponent_known=melded), dataclasses.replace(info, opponent_known=close),
             dataclasses.replace(info, opponent_known=close, stock_size=2)]
    for rules in ("classic", "openspiel"):
        facts, knock = _per_game_and_batch([(c, kept) for c in cases], load_rules(rules), seed=3)
        assert (facts.last_card == -1).all() and facts.need.tolist() == [10, 1, 0, 0, 0]
        assert knock.tolist() == [True, False, False, False, True]  # as test_agents' knock test has them


def test_own_random_numbers_give_the_same_estimates_in_distribution():
    # from a Generator each side draws its own numbers (the per-game agent game by game, the
    # batch for all games at once): the mean points agree up to sampling noise
    positions = []
    for env, games in lockstep("classic", 32, 80, seed=9):
        rows, kept = knock_rows(env)
        positions += [(infoset(games, g), int(k)) for g, k in zip(rows[:1], kept[:1])]
    rules = load_rules("classic")
    rng = np.random.default_rng(0)
    per_game = np.array([estimate_knock(info, rules, kept, rng) for info, kept in positions])
    facts = KnockFacts.concatenate([facts_of_infoset(info, kept) for info, kept in positions])
    knock, mean = knock_vector.knock_estimates(facts, rules, np.random.default_rng(1))
    gap = mean - per_game[:, 1]
    assert len(positions) > 50 and abs(gap.mean()) < 1.5 and np.median(np.abs(gap)) < 5, (gap.mean(), np.median(np.abs(gap)))
    assert (knock == per_game[:, 0].astype(bool)).mean() > 0.9


@pytest.mark.usefixtures("solver_backend")
def test_same_draws_same_decisions_with_either_solver_backend():
    positions = []
    for env, games in lockstep("classic", 16, 60, seed=5):
        rows, kept = knock_rows(env)
        positions += [(infoset(games, g), int(k)) for g, k in zip(rows[:1], kept[:1])]
    _per_game_and_batch(positions[::2], load_rules("classic"), seed=20)


def test_heuristic_actions_estimate_plays_as_the_scripted_agent():
    # heuristic_actions(knock="estimate") against HeuristicAgent() (its default knock rule)
    # on the same positions: the same moves where no estimate is needed, and where one is,
    # decisions that agree in distribution (each side draws its own random numbers)
    scripted = HeuristicAgent(seed=0)
    pairs, moves = [], 0

    def policy(env, rows, rng):
        nonlocal moves
        actions = heuristic_actions(env, rows, rng, knock="estimate")
        need, _ = knock_rows(env)
        mask = env.action_mask()
        for g in rows:
            info = infoset(games, g)
            if g not in need and rng.random() > 0.2:
                continue
            legal = set(np.flatnonzero(mask[g]).tolist())
            want, got = scripted.choose(info, env.rules, legal), int(actions[g])
            if g in need:
                pairs.append((want >= KNOCK, got >= KNOCK))
            if DISCARD <= want < KNOCK and DISCARD <= got < KNOCK:
                continue  # both play on; ties among discards are random in both
            if not (g in need and (want >= KNOCK) != (got >= KNOCK)):
                assert got == want, (g, info)
                moves += 1
        return actions

    for env, games in lockstep("eaai", 24, 70, seed=7, policy=policy):
        pass
    pairs = np.array(pairs)
    assert len(pairs) > 80 and moves > 100
    rates = pairs.mean(axis=0)
    assert 0.02 < rates[0] < 0.98 and abs(rates[0] - rates[1]) < 0.05, rates
    assert (pairs[:, 0] == pairs[:, 1]).mean() > 0.9


@pytest.mark.parametrize("spec, rules", [("heuristic", "eaai"), ("heuristic:knock_value=8,knock_worlds=12,take_margin=-1", "eaai"),
                                         ("heuristic", "openspiel")])
def test_the_array_policy_of_the_knock_estimate_plays_the_agents_moves_exactly(spec, rules):
    """With counter-based draws (each game's agent key and decision index) the array policy
    and the agent one game at a time sample the same opponent hands: every move equal,
    knocks and plays-on alike, on positions with the public history the model reads (under
    ``openspiel`` the takes at the wall, decided by the estimate, too)."""
    from rummy_env import agents

    policy = agents.make(spec).batch_policy()
    n = 32
    keys = np.random.default_rng(3).integers(0, 2**63, (n, 2), dtype=np.uint64)
    decisions = np.zeros((n, 2), dtype=np.int64)
    agent = agents.make(spec)
    compared = {"knock": 0, "play on": 0, "other": 0, "wall": 0}

    def play(env, rows, rng):
        p = env.current.astype(np.intp)
        actions = policy(env, rows, keys[rows, p], decisions[rows, p])
        need, _ = knock_rows(env)
        mask = env.action_mask()
        for g in rows:
            agent.reset(seed=int(keys[g, p[g]]))
            agent.decision_index = int(decisions[g, p[g]])
            info = infoset(games, g)
            want = agent.act({"action_mask": mask[g]}, {"information_set": info, "rules": env.rules})
            assert int(actions[g]) == want, (g, info)
            wall = mask[g, PASS] == 1 and info.phase == Phase.DRAW and mask[g, TAKE_DISCARD] == 1
            compared["wall" if wall else "other" if g not in need else "knock" if want >= KNOCK else "play on"] += 1
        decisions[rows, p] += 1
        return actions

    for env, games in lockstep(rules, n, 150 if rules == "openspiel" else 60, seed=9, policy=play):
        decisions[[g for g in range(n) if not games[g].history]] = 0  # a new hand: its decisions count from 0
    assert compared["knock"] > 5 and compared["play on"] > 5 and compared["other"] > 500, compared
    assert (compared["wall"] > 0) == (rules == "openspiel"), compared


def test_heuristic_actions_estimate_settings_are_checked():
    env = VectorGinRummy(4, seed=0, encoding=None)
    env.reset()
    rows, rng = np.arange(4), np.random.default_rng(0)
    for kwargs, message in [({"knock": "later"}, "knock must be one of"),
                            ({"knock": "estimate", "late_turn": 3}, "belong to the turn rule"),
                            ({"knock_value": 5.0}, "set the knock estimate"),
                            ({"knock": "estimate", "knock_worlds": 0}, "knock_worlds >= 1")]:
        with pytest.raises(ValueError, match=message):
            heuristic_actions(env, rows, rng, **kwargs)
    with pytest.raises(ValueError, match="needs rng"):
        heuristic_actions(env, rows, noise=np.zeros((4, 52)), knock="estimate")
    facts = facts_of_infoset(state_after("2C 3C 4C 4S 6S 7H 8H 9H 9D QS", P1B, "TD", "5S", [PASS, PASS, DRAW_STOCK])
                             .information_set(0), 0)
    with pytest.raises(ValueError, match="draws must be stacked"):
        knock_vector.knock_estimates(facts, load_rules(None), worlds=4,
                                     draws=stack_draws([belief.ChainDraws.random(rng, 48)]))
    with pytest.raises(ValueError, match="needs rng or draws"):
        knock_vector.knock_estimates(facts, load_rules(None))


@pytest.mark.parametrize("aces_high", [False, True])
def test_in_melds_is_forms_meld_for_every_card_held(aces_high, rng):
    for size in (3, 10, 11):
        order = np.argsort(rng.random((3000, 52)), axis=1)[:, :size]
        hands = _BITS[order].sum(axis=1, dtype=np.uint64)
        got = in_melds(hands, aces_high)
        assert not (got & ~hands).any()
        for h, g in zip(hands[:400].tolist(), got[:400].tolist()):
            assert g == sum(1 << c for c in mask_to_cards(h) if melds.forms_meld(h, c, aces_high=aces_high))
