"""The opponent model behind the search's worlds (rummy_env/agents/gin/belief.py)."""

from __future__ import annotations

import numpy as np

from rummy_env import agents
from rummy_env.agents.gin import belief
from rummy_env.agents.arena import decisions
from rummy_env import gin_rummy_v0
from rummy_env.core import melds
from rummy_env.core.cards import parse_hand
from rummy_env.gin.game import PASS, GinRummyState
from gin_hands import P0, P1, state_after


def _positions(hands: int, min_discards: int = 0):
    """(true state, information set of player_0) at player_0's decisions in heuristic games."""
    for seed in range(hands):
        env = gin_rummy_v0.raw_env(rules="classic")
        env.reset(seed=seed)
        players = [agents.make("heuristic:knock=turn", seed=seed), agents.make("heuristic:knock=turn", seed=seed + 1)]
        for seat, obs, info in decisions(env):
            if seat == 0 and belief.opponent_discards(info["information_set"]) >= min_discards:
                yield env.game, info["information_set"]
            env.step(players[seat].act(obs, info))


def test_worlds_are_consistent_with_the_information_set():
    checked = 0
    for game, info in _positions(6):
        for weighted in (True, False):
            worlds = belief.sample_worlds(info, game.rules, np.random.default_rng(checked), 8, weighted=weighted)
            for w in worlds:
                opp = w.hands[1]
                assert opp.bit_count() == info.opponent_hand_size and opp & info.opponent_known == info.opponent_known
                assert len(w.stock) == info.stock_size == len(set(w.stock))
                stock = sum(1 << c for c in w.stock)
                assert opp & stock == 0 and (opp | stock) == info.unseen | info.opponent_known
                assert w.information_set(0) == info  # player_0 cannot tell the world from the truth
            checked += 1
    assert checked > 60


def test_worlds_are_reproducible():
    game, info = next(_positions(1, min_discards=2))
    a = belief.sample_worlds(info, game.rules, np.random.default_rng(5), 4)
    b = belief.sample_worlds(info, game.rules, np.random.default_rng(5), 4)
    assert [(w.hands, w.stock) for w in a] == [(w.hands, w.stock) for w in b]


def test_the_model_rarely_gives_the_opponent_a_card_it_passed_on_that_melds():
    # player_0 holds 7H 7S and passed on the upcard 7C: seen from player_1, a world where
    # player_0 holds a 7 (or 5C 6C, 6C 8C, 8C 9C) is one where it passed on a meld
    s = state_after("7H 7S 2C 4C 9C KD QH 4S JS 2H", P1, "7C", "", [PASS])
    info = s.information_set(1)
    seven_c = parse_hand("7C")

    def share_melding(weighted: bool) -> float:
        worlds = belief.sample_worlds(info, s.rules, np.random.default_rng(0), 400, weighted=weighted)
        return float(np.mean([melds.forms_meld(w.hands[0], seven_c.bit_length() - 1) for w in worlds]))

    uniform, model = share_melding(False), share_melding(True)
    assert uniform > 0.1  # random hands often meld with 7C
    assert model < uniform / 2


def test_the_model_gives_the_opponent_realistic_hands_late_in_the_hand():
    # after 4+ discards, real (heuristic) opponents hold far less deadwood than a random
    # hand: the model's worlds must be much closer to the truth than uniform ones
    truth, uniform, model = [], [], []
    rng = np.random.default_rng(1)
    for game, info in _positions(20, min_discards=4):
        truth.append(melds.min_deadwood(game.hands[1]))
        for out, weighted in ((uniform, False), (model, True)):
            worlds = belief.sample_worlds(info, game.rules, rng, 16, weighted=weighted)
            out.append(np.mean([melds.min_deadwood(w.hands[1]) for w in worlds]))
    truth, uniform, model = map(np.array, (truth, uniform, model))
    assert len(truth) >= 20
    assert uniform.mean() - truth.mean() > 15  # the bias of uniform worlds
    assert abs(model.mean() - truth.mean()) < (uniform.mean() - truth.mean()) / 2


def test_a_fresh_deal_has_no_evidence():
    s = GinRummyState.new_hand("classic", seed=3)
    score = belief._Score(s.information_set(0), s.rules)
    hands = np.array([w.hands[1] for w in belief.sample_worlds(s.information_set(0), s.rules, np.random.default_rng(0), 50)],
                     dtype=np.uint64)
    assert score.beta == 0 and score.knock_limit == -1
    assert np.all(score(hands) == 0)  # every hand equally likely: the model is uniform here


def test_the_last_discard_weighs_hands_by_how_likely_a_sensible_player_threw_it():
    # player_1 draws and throws KC; seen from player_0, a hand with KH KS (KC made a set
    # there) is far less likely to have thrown it than one where KC was a lone high card
    kd, kc = (parse_hand(c).bit_length() - 1 for c in ("KD", "KC"))
    s = state_after(P0, P1, "TD", "QC 2D", [PASS, PASS, 0, 3 + kd, 0, 3 + kc])
    info = s.information_set(0)
    last = belief._last_discard(info)
    assert last is not None and (last.card, last.taken, last.turn) == (kc, -1, 1)
    assert last.our_thrown == parse_hand("KD TD")  # we discarded KD and passed on the upcard
    with_kings = parse_hand("KH KS AD 3D 5D 7D 9D AH 5H 9H")
    lone_king = parse_hand("2H 4H AD 3D 5D 7D 9D AH 5H 9H")
    w = belief._last_discard_log_weight(np.array([with_kings, lone_king], dtype=np.uint64), info, s.rules, last)
    assert w[1] - w[0] > np.log(20) and w[1] > np.log(0.2)
    # in the worlds: far fewer opponent hands holding two kings to go with KC than uniform ones
    def share_with_a_pair_of_kings(weighted: bool) -> float:
        worlds = belief.sample_worlds(info, s.rules, np.random.default_rng(0), 300, weighted=weighted)
        return float(np.mean([(w.hands[1] & parse_hand("KH KS")).bit_count() == 2 for w in worlds]))
    assert share_with_a_pair_of_kings(True) < share_with_a_pair_of_kings(False) / 2
    # its last move a pass (the first upcard offer): no discard to read
    assert belief._last_discard(state_after(P0, P1, "TD", "QC", [PASS, PASS]).information_set(0)) is None
