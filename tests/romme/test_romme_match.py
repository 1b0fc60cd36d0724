"""Rommé tables (rummy_env.romme.match): totals worked out by hand from scripted hands,
the two ends (hands_per_table, loss_limit; 0 is none), the winner and ties, the deal
passing to the left, bad input refused; the totals and hands played in observations and
their bounds; whole tables through romme_v0 (episode="match") and a tournament of tables.
The generic match checks (infos, rewards, win_loss) are tests/core/test_conformance.py's."""

import json

import numpy as np
import pytest

from conftest import assert_seats_see_nothing_hidden
from rummy_env import romme_v0
from rummy_env.core.game import get_game
from rummy_env.eval.config import TournamentConfig
from rummy_env.eval.games import replay_hand
from rummy_env.eval.tournament import run
from rummy_env.gin.game import HandResult as GinHandResult
from rummy_env.romme import encoding as E
from rummy_env.romme.game import RommeHandResult, RommeState
from rummy_env.romme.match import RommeTable, RommeTableResult, TableScores, max_hand_penalty, total_bounds
from rummy_env.romme.rules import RommeRules

AT = E.flat_slices()


def out(winner: int, *penalties: int, outcome: str = "out") -> RommeHandResult:
    """A hand won by ``winner`` (its own penalty given as 0): it scores the others' penalties."""
    assert penalties[winner] == 0
    return RommeHandResult(outcome, winner, sum(penalties), tuple(penalties), ())


def stalemate(n: int) -> RommeHandResult:
    return RommeHandResult("stalemate", None, 0, (0,) * n, (), reason="max_turns")


def table(n: int, *results: RommeHandResult, first_dealer=None, **rules) -> RommeTable:
    t = RommeTable.create(n, RommeRules(**rules), first_dealer)
    for r in results:
        t.record(r)
    return t


def test_totals_add_up_each_hands_zero_sum_rewards():
    # seat 0 goes out (20 and 35 left):      +55 -20 -35
    # seat 2 goes out (12 and 40 left):      -12 -40 +52
    # a stalemate:                             0   0   0
    # seat 0 hand rummy (30, 60: doubled):   +90 -30 -60
    t = table(3, out(0, 0, 20, 35), out(2, 12, 40, 0), stalemate(3), out(0, 0, 30, 60, outcome="hand_rummy"))
    assert t.totals == [133, -90, -43] and t.hands_won == [2, 0, 1] and t.hands_played == 4
    assert t.points == (133, -90, -43) and t.points.hands_played == 4 and isinstance(t.points, TableScores)
    assert not t.is_over  # 4 of 8 hands, no loss limit
    with pytest.raises(ValueError, match="the table is not over yet: 4 hands played"):
        t.result()
    for r in (out(1, 5, 0, 5),) * 4:  # the 8th hand ends it
        t.record(r)
    assert t.is_over and t.totals == [113, -50, -63]
    final = t.result()
    assert final == RommeTableResult(winner=0, totals=(113, -50, -63), hands_won=(2, 4, 1), hands_played=8,
                                     stalemates=1, ended_by="hands")
    assert final.scores == final.totals and final.bonus_rewards == (0, 0, 0)
    assert final.to_dict() == {"winner": 0, "totals": [113, -50, -63], "hands_won": [2, 4, 1], "hands_played": 8,
                               "stalemates": 1, "ended_by": "hands"}


@pytest.mark.parametrize("hands", [1, 3])
def test_the_table_ends_after_hands_per_table_hands_stalemates_counting(hands):
    t = table(2, *[stalemate(2)] * (hands - 1), hands_per_table=hands)
    assert not t.is_over
    t.record(stalemate(2))
    assert t.is_over and t.result().ended_by == "hands" and t.result().stalemates == hands
    assert t.result().winner is None  # 0 : 0
    with pytest.raises(ValueError, match=f"the table is over: its {hands} hands .* no more hands can be recorded"):
        t.record(out(0, 0, 10))
    with pytest.raises(ValueError, match="no more hands can be dealt"):
        t.new_hand(np.random.default_rng(0))
    assert t.hands_played == hands and t.totals == [0, 0]


def test_a_total_at_minus_the_loss_limit_ends_the_table_early():
    t = table(3, out(0, 0, 99, 1), loss_limit=100)
    assert not t.is_over  # -99 is above -100
    t.record(out(2, 0, 1, 0))  # seat 1 at exactly -100
    assert t.is_over and t.hands_played == 2 < t.rules.hands_per_table
    final = t.result()
    assert final.ended_by == "loss_limit" and final.totals == (100, -100, 0) and final.winner == 0
    with pytest.raises(ValueError, match="a total fell to -100 or lower .* no more hands can be recorded"):
        t.record(stalemate(3))


def test_both_ends_on_the_same_hand_name_the_loss_limit():
    t = table(2, out(0, 0, 40), out(0, 0, 80), hands_per_table=2, loss_limit=100)
    assert t.is_over and t.result().ended_by == "loss_limit" and t.totals == [120, -120]


def test_zero_means_no_fixed_number_of_hands_or_no_loss_limit():
    # hands_per_table 0: only the loss limit ends the table, however many hands
    t = table(2, *[out(0, 0, 10), out(1, 10, 0)] * 15, stalemate(2), hands_per_table=0, loss_limit=50)
    assert not t.is_over and t.hands_played == 31 and t.totals == [0, 0]
    t.record(out(1, 50, 0))
    assert t.is_over and t.result().ended_by == "loss_limit" and t.result().winner == 1
    # loss_limit 0: a total far below -500 does not end the table before its hands
    t = table(2, out(1, 900, 0), hands_per_table=2)
    assert not t.is_over and t.totals == [-900, 900]
    t.record(stalemate(2))
    assert t.is_over and t.result().ended_by == "hands"


def test_the_winner_has_the_highest_total_and_a_shared_top_has_none():
    assert table(2, out(0, 0, 30), out(1, 30, 0), hands_per_table=2).result().winner is None  # 0 : 0
    tied = table(3, out(0, 0, 20, 20), out(2, 20, 20, 0), hands_per_table=2).result()
    assert tied.totals == (20, -40, 20) and tied.winner is None
    assert table(3, out(0, 0, 20, 20), out(2, 20, 21, 0), hands_per_table=2).result().winner == 2  # 20 : 21


@pytest.mark.parametrize("n, first", [(4, 2), (3, None), (6, 5)])
def test_the_deal_passes_to_the_left_each_hand_stalemates_included(n, first):
    t = RommeTable.create(n, "romme", first)
    start = n - 1 if first is None else first  # default: the last seat deals, seat 0 plays first
    rng = np.random.default_rng(n)
    for k, r in enumerate([stalemate(n), out(0, 0, *[3] * (n - 1)), stalemate(n)]):
        assert t.dealer == (start + k) % n
        hand = t.new_hand(rng)
        assert hand.dealer == t.dealer and hand.current_player == (t.dealer + 1) % n and hand.num_players == n
        t.record(r)
    assert t.dealer == (start + 3) % n


def test_new_match_of_the_game_is_a_table():
    game = get_game("romme")
    t = game.new_match(game.load_rules("romme_40"), 3, 1)
    assert isinstance(t, RommeTable) and t.dealer == 1 and t.rules.come_out_points == 40
    assert all(game.load_rules(p).match for p in game.presets)


def test_bad_input_is_refused_with_clear_errors():
    with pytest.raises(ValueError, match="num_players must be an integer 2..6, got 7"):
        RommeTable.create(7)
    for bad in (4, -1, True, "0"):
        with pytest.raises(ValueError, match="first_dealer must be a seat 0..3"):
            RommeTable.create(4, first_dealer=bad)
    with pytest.raises(ValueError, match="hands_per_table and loss_limit are both 0"):
        RommeTable.create(2, {"hands_per_table": 0})
    t = RommeTable.create(3)
    with pytest.raises(TypeError, match="RommeHandResult.*got HandResult"):
        t.record(GinHandResult(outcome="knock", winner=0, points=10))
    with pytest.raises(ValueError, match="played by 2 players; this table seats 3"):
        t.record(out(0, 0, 10))
    assert t.hands_played == 0 and t.totals == [0, 0, 0]  # nothing booked


# ----------------------------------------------------------------------------- observations


def scalar(obs, name):
    return float(obs[AT[name]][0])


def test_observations_show_the_totals_by_relative_seat_and_the_hands_played():
    rules = RommeRules()
    state = RommeState.new_hand(3, rules, 5, dealer=1)
    scores = TableScores((120, -70, -50), 3)
    for seat in range(3):
        info = state.information_set(seat)
        o = E.encode(info, rules, scores=scores)
        for k in range(3):
            assert scalar(o, f"total_rel{k}") == pytest.approx(scores[(seat + k) % 3] / 500)
        assert all(scalar(o, f"total_rel{k}") == 0 for k in range(3, 6))  # absent seats
        assert scalar(o, "hands_played") == pytest.approx(3 / 8)
        bare = E.encode(info, rules)  # outside a table
        assert all(scalar(bare, f"total_rel{k}") == 0 for k in range(6)) and scalar(bare, "hands_played") == 0
        np.testing.assert_array_equal(np.delete(o, [AT[f"total_rel{k}"].start for k in range(6)]
                                                + [AT["hands_played"].start]),
                                      np.delete(bare, [AT[f"total_rel{k}"].start for k in range(6)]
                                                + [AT["hands_played"].start]))
        planes = E.encode(info, rules, "planes", scores)
        np.testing.assert_array_equal(planes[len(E.CARD_SLICES):, 3, 12], o[len(E.CARD_SLICES) * 52:])
    info = state.information_set(0)
    limited = E.encode(info, RommeRules(loss_limit=200, hands_per_table=0), scores=scores)
    assert scalar(limited, "total_rel1") == pytest.approx(-70 / 200) and scalar(limited, "hands_played") == 0
    assert scalar(E.encode(info, rules, scores=(120, -70, -50)), "hands_played") == 0  # a plain tuple: 0 hands
    with pytest.raises(ValueError, match="one total per seat \\(3\\), got 2"):
        E.encode(info, rules, scores=(1, -1))


def test_bounds_of_the_totals_worked_by_hand():
    # default rules: the 14 costliest cards are 6 jokers (20) and 8 aces (11): 208, times
    # the hand-rummy double: 416 a hand paid; 8 hands: -3328 .. 8 x 5 x 416 = 16640
    rules = RommeRules()
    assert max_hand_penalty(rules) == 416 and total_bounds(rules) == (-3328, 16640)
    # loss limit 500, no fixed number: above -500 before the last hand, then one hand paid;
    # the top: five seats at -499 and a last hand won from five: 5 x 499 + 2080
    limited = RommeRules(hands_per_table=0, loss_limit=500, hand_rummy_multiplier=1, jokers=4, joker_penalty=25)
    assert max_hand_penalty(limited) == 4 * 25 + 8 * 11 + 2 * 10 and total_bounds(limited) == (-707, 2495 + 1040)
    both = RommeRules(hands_per_table=2, loss_limit=500)
    assert total_bounds(both) == (-832, 2 * 5 * 416)  # the tighter of each: 2 hands against -915 and 4575
    env = romme_v0.raw_env(num_players=2, rules=rules, episode="match")
    box = env.observation_space("player_0")["observation"]
    for k in range(6):
        at = AT[f"total_rel{k}"].start
        assert box.low[at] == np.float32(-3328 / 500) and box.high[at] == np.float32(16640 / 500)
    others = np.ones(E.FLAT_SIZE, bool)
    others[[AT[f"total_rel{k}"].start for k in range(6)]] = False
    assert (box.low[others] == 0).all() and (box.high[others] == 1).all()
    planes = romme_v0.raw_env(num_players=2, rules=rules, encoding="planes").observation_space("player_1")["observation"]
    assert planes.low.shape == E.PLANES_SHAPE and planes.low.min() == np.float32(-3328 / 500)


# ----------------------------------------------------------------------------- through the env and tournaments


def play_table(env, seed: int):
    """Random legal moves to the end of the table; yields (agent, observation, reward) at
    each decision and at the end."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        yield agent, obs, reward
        if term or trunc:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_a_table_of_three_hands_through_the_env():
    env = romme_v0.raw_env(num_players=3, rules={"hands_per_table": 3}, episode="match", reward="scaled")
    returns = dict.fromkeys(env.possible_agents, 0.0)
    seen_hands = set()
    for agent, obs, reward in play_table(env, 2):
        seat = env.possible_agents.index(agent)
        returns[agent] += reward
        assert env.observation_space(agent).contains(obs)
        points = env.match.points
        for k in range(3):
            assert scalar(obs["observation"], f"total_rel{k}") == pytest.approx(points[(seat + k) % 3] / 500)
        assert scalar(obs["observation"], "hands_played") == pytest.approx(points.hands_played / 3)
        seen_hands.add(points.hands_played)
    assert seen_hands == {0, 1, 2, 3}
    final = env.match.result()
    assert final.hands_played == 3 and final.ended_by == "hands" and sum(final.totals) == 0
    assert [returns[a] for a in env.possible_agents] == pytest.approx([t / 100 for t in final.totals])


def test_a_loss_limit_ends_a_table_through_the_env_and_returns_are_the_totals():
    env = romme_v0.raw_env(num_players=2, rules={"hands_per_table": 0, "loss_limit": 60}, episode="match")
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    returns = np.zeros(2)
    history = []
    while not all(env.terminations.values()):
        env.step(int(rng.choice(env.game.legal_actions())))
        returns += [env.rewards[a] for a in env.possible_agents]
        if "match_points" in env.infos["player_0"] and env.infos["player_0"]["match_points"] != (history or [None])[-1]:
            history.append(env.infos["player_0"]["match_points"])
    final = env.match.result()
    assert final.ended_by == "loss_limit" and min(final.totals) <= -60
    assert all(min(totals) > -60 for totals in history[:-1]) and history[-1] == list(final.totals)
    np.testing.assert_array_equal(returns, final.totals)


def test_a_tournament_of_tables(tmp_path):
    """``mode: matches`` plays a whole table per game through the generic path: each record
    holds the table's result, the points are its totals, and every hand replays, dealt by
    the seat left of the last hand's dealer."""
    rules = {"preset": "romme", "hands_per_table": 2}
    cfg = TournamentConfig(agents=["random", "random:seed=9", "random:seed=11"], deals=1, seed=4,
                           out=str(tmp_path / "t"), game="romme", players_per_table=3, rules=rules, mode="matches")
    summary = run(cfg, progress=False)
    assert summary["games"] == 3
    for line in (cfg.out_dir / "results.jsonl").read_text().splitlines()[1:]:
        r = json.loads(line)
        assert r["match"]["hands_played"] == len(r["hands"]) == 2 and r["points"] == r["match"]["totals"]
        assert sum(r["points"]) == 0 and r["winner"] == r["match"]["winner"]
        totals = np.zeros(3)
        for k, hand in enumerate(r["hands"]):
            assert hand["dealer"] == (2 + k) % 3
            totals += replay_hand(hand, rules, "romme", 3).result.rewards
        assert totals.tolist() == r["points"]


def test_no_leak_at_a_table_after_its_first_hand():
    """The totals are public: in the second hand of a table (totals not 0) each seat's
    observation, mask and information set still do not change when the cards it cannot
    know are dealt otherwise."""
    env = romme_v0.raw_env(num_players=4, rules={"hands_per_table": 2}, episode="match")
    env.reset(seed=6)
    rng = np.random.default_rng(6)
    changed = checked = 0
    while not all(env.terminations.values()):
        if env.match.hands_played == 1 and env.game.turn % 5 == 0:
            assert any(env.match.totals)
            changed += assert_seats_see_nothing_hidden(env, rng)[0]
            checked += 1
        env.step(int(rng.choice(env.game.legal_actions())))
    assert checked > 5 and changed > 5


def test_what_ends_a_table_in_words():
    from rummy_env.core.game import get_game

    romme = get_game("romme")
    assert romme.match_goal("romme") == "8 hands"
    assert romme.match_goal({"loss_limit": 500}) == "8 hands or a total of -500"
    assert romme.match_goal({"hands_per_table": 0, "loss_limit": 300}) == "a total of -300"
    assert get_game("gin").match_goal(get_game("gin").load_rules("classic")) == "to 100"
