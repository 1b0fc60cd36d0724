"""The Rommé env (romme_v0) and its observations: slices of a scripted position worked
by hand, no leak under hidden cards dealt otherwise (every seat, every phase), seats
relative to the observer, planes and flat agreeing, the state vector, text, bad
arguments refused, and a small tournament of random agents at three players. The generic
tests (PettingZoo's api and seed tests, invariants, replay) are tests/core/test_conformance.py's."""

import numpy as np
import pytest

from conftest import assert_seats_see_nothing_hidden
from rummy_env import agents, romme_v0
from rummy_env.core.game import IllegalActionError, get_game
from rummy_env.eval.config import TournamentConfig
from rummy_env.eval.games import replay_hand
from rummy_env.eval.tournament import run
from rummy_env.romme import encoding as E
from rummy_env.romme.cards import parse_kind as K
from rummy_env.romme.game import COMMIT, DISCARD, NUM_ACTIONS, PICK, SWAP, Phase, RommeState
from rummy_env.romme.layout import STATE_PHASE, STATE_ROWS
from rummy_env.romme.rules import RommeRules

HANDS = ["7C 7D 7S 2H 3H 4H KC 9D JS 2S QD 4C TD 6S", "AC 2C 3D 5S 6D 7H 8S 9C TH JC QS KD 4S"]
AT = E.flat_slices()


def scripted() -> RommeState:
    """Seat 0 (14 cards, left of the dealer seat 1) lays 7C 7D 7S: 21 points, not out yet."""
    s = RommeState.from_hands(HANDS, "5H")
    for a in (PICK + K("7C"), PICK + K("7D"), PICK + K("7S")):
        s.step(a)
    return s


def part(obs, name):
    return obs[AT[name]]


def test_slices_of_a_scripted_position_worked_by_hand():
    s = scripted()
    o = E.encode(s.information_set(0), s.rules)
    assert o.shape == (E.FLAT_SIZE,) == (3288,) and o.dtype == np.float32
    assert part(o, "hand")[K("2H")] == 0.5 and part(o, "hand")[K("7C")] == 0  # 7C is in the pending meld
    assert part(o, "hand").sum() == 11 * 0.5
    assert sorted(np.flatnonzero(part(o, "pending"))) == sorted([K("7C"), K("7D"), K("7S")])
    assert part(o, "pending_size")[0] == pytest.approx(3 / 13)
    assert np.flatnonzero(part(o, "discard_top")).tolist() == [K("5H")]
    assert part(o, "discard_pile")[K("5H")] == 0.5
    assert part(o, "phase_play")[0] == 1 and part(o, "phase_draw")[0] == 0
    assert part(o, "stock_size")[0] == pytest.approx((110 - 27 - 1) / 110)
    assert part(o, "hand_size_rel0")[0] == pytest.approx(11 / 14) and part(o, "hand_size_rel1")[0] == pytest.approx(13 / 14)
    assert part(o, "dealer_rel1")[0] == 1 and part(o, "players_2")[0] == 1 and part(o, "players_6")[0] == 0
    assert part(o, "hand_size_rel2")[0] == 0 and not part(o, "table_rel3").any()  # absent seats are 0
    s.step(COMMIT)
    o = E.encode(s.information_set(0), s.rules)
    assert part(o, "turn_points")[0] == pytest.approx(21 / 30) and part(o, "came_out_rel0")[0] == 0
    for name in ("table", "table_rel0"):
        assert sorted(np.flatnonzero(part(o, name))) == sorted([K("7C"), K("7D"), K("7S")])
        assert part(o, name)[K("7C")] == 0.5
    assert np.flatnonzero(part(o, "slot_0")).tolist() == [K("7H")]  # the set of sevens takes the missing suit
    assert np.flatnonzero(part(o, "layoff_targets")).tolist() == [K("7H")]
    assert not part(o, "slot_1").any() and not part(o, "swap_targets").any() and not part(o, "pending").any()
    theirs = E.encode(s.information_set(1), s.rules)  # seen by seat 1: the meld is its rel1's
    np.testing.assert_array_equal(part(theirs, "table_rel1"), part(o, "table_rel0"))
    assert not part(theirs, "table_rel0").any() and part(theirs, "dealer_rel0")[0] == 1


def reference_card_slices(info, rules) -> dict:
    """Every card slice and joker scalar built slice by slice from its definition in the
    encoding's docstring, independently of the encoder's one-pass count."""
    from rummy_env.romme.cards import JOKER
    from rummy_env.romme.game import _accepts

    n, p = info.num_players, info.player
    want = {}

    def counts(kinds):  # an information set names kinds (52: a joker)
        c = np.zeros(53)
        for k in kinds:
            c[k] += 1
        return c

    def card(name, c, scale=2.0, joker=None, joker_scale=6.0):
        want[name] = np.minimum(c[:52] / scale, 1.0)
        if joker:
            want[joker] = min(c[JOKER] / joker_scale, 1.0)

    card("hand", counts(info.hand), joker="hand_jokers")
    card("discard_top", counts(info.discard_pile[-1:]), 1.0, "discard_top_joker", 1.0)
    card("discard_pile", counts(info.discard_pile), joker="discard_pile_jokers")
    card("public_stock", counts(info.public_stock), joker="public_stock_jokers")
    pending, joker_as = np.zeros(53), np.zeros(53)
    for c, k in info.pending:
        if c == JOKER:
            pending[JOKER] += 1
            joker_as[k] = 1
        else:
            pending[k] = 1
    card("pending", pending, 1.0, "pending_jokers")
    card("pending_joker_as", joker_as, 1.0)
    card("table", counts([c for m in info.table for c in m.cards]), joker="table_jokers")
    for k in range(6):
        seat = (p + k) % n if k < n else None
        card(f"table_rel{k}", counts([c for m in info.table if m.owner == seat for c in m.cards]),
             joker=f"table_jokers_rel{k}")
        if k:
            card(f"known_rel{k}", counts(info.known[seat] if seat is not None else ()), joker=f"known_jokers_rel{k}")
            thrown = np.zeros(53)
            for who, a in info.public_history:
                if who == seat and DISCARD <= a < PICK:
                    thrown[a - DISCARD] += 1
            card(f"discarded_rel{k}", thrown, joker=f"discarded_jokers_rel{k}")
    layoff, swap = np.zeros(53), np.zeros(53)
    for slot in range(36):
        takes = np.zeros(53)
        if slot < len(info.table):
            lay, _, swaps = _accepts(info.table[slot].meld, rules)
            for k, _ in lay:
                if k != JOKER:
                    takes[k] = layoff[k] = 1
            for k in swaps:
                swap[k] = 1
        card(f"slot_{slot}", takes, 1.0)
    card("layoff_targets", layoff, 1.0)
    card("swap_targets", swap, 1.0)
    card("taken", counts([] if info.taken_card is None else [info.taken_card]), 1.0, "taken_joker", 1.0)
    return want


@pytest.mark.parametrize("n", [2, 4, 6])
def test_card_slices_match_their_definitions_slice_by_slice(n):
    """The encoder counts every card slice in one pass: each slice and joker scalar must be
    what its definition gives, at every step of random hands (flips, swaps, lay-offs)."""
    rng = np.random.default_rng(n)
    rules = RommeRules(turnover="flip", max_turns=120)
    seen = set()
    for game in range(3):
        s = RommeState.new_hand(n, rules, seed=game)
        while not s.is_over:
            for seat in {s.current_player, (s.current_player + 1) % n}:
                info = s.information_set(seat)
                o = E.encode(info, rules)
                for name, value in reference_card_slices(info, rules).items():
                    np.testing.assert_allclose(o[AT[name]], value, err_msg=name)
                    if np.any(value):
                        seen.add(name.rstrip("0123456789"))
            legal = s.legal_actions()
            plays = [a for a in legal if a >= PICK]
            s.step(int(rng.choice(plays)) if plays and rng.random() < 0.7 else int(rng.choice(legal)))
    assert {"hand", "discard_top", "table_rel", "known_rel", "discarded_rel", "slot_", "layoff_targets",
            "pending", "pending_joker_as", "swap_targets", "taken"} <= seen


def test_seats_are_relative_to_the_observer():
    env = romme_v0.raw_env(num_players=3)
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in range(60):  # into the hand, with discards by several seats
        env.step(int(rng.choice(env.game.legal_actions())))
        if env.game.is_over:
            break
    g = env.game
    obs = [E.encode(g.information_set(seat), g.rules) for seat in range(3)]
    for seat in range(3):
        for k in range(3):
            other = (seat + k) % 3
            assert part(obs[seat], f"hand_size_rel{k}")[0] == part(obs[other], "hand_size_rel0")[0]
            assert part(obs[seat], f"came_out_rel{k}")[0] == part(obs[other], "came_out_rel0")[0]
            np.testing.assert_array_equal(part(obs[seat], f"table_rel{k}"), part(obs[other], "table_rel0"))
        for name in ("table", "discard_pile", "layoff_targets", "phase_draw", "phase_play", "stock_size", "players_3"):
            np.testing.assert_array_equal(part(obs[seat], name), part(obs[0], name))
        assert part(obs[seat], f"dealer_rel{(g.dealer - seat) % 3}")[0] == 1
        assert sum(part(obs[seat], f"dealer_rel{k}")[0] for k in range(6)) == 1


@pytest.mark.parametrize("n, seed", [(2, 1), (4, 2)])
def test_observations_do_not_change_when_hidden_cards_are_dealt_otherwise(n, seed):
    rules = RommeRules(turnover="flip", max_turns=60)  # a public stock can turn up too
    env = romme_v0.raw_env(num_players=n, rules=rules)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    phases, changed = set(), 0
    while True:
        phases.add(env.game.phase)
        changed += assert_seats_see_nothing_hidden(env, rng)[0]
        if env.game.is_over:
            break
        env.step(int(rng.choice(env.game.legal_actions())))
    assert phases == {Phase.DRAW, Phase.PLAY, Phase.OVER} and changed > 10


def test_planes_and_flat_agree_and_the_state_vector_holds_every_card():
    s = scripted()
    s.step(COMMIT)
    info = s.information_set(1)
    flat = E.encode(info, s.rules, "flat")
    planes = E.encode(info, s.rules, "planes")
    assert planes.shape == E.PLANES_SHAPE == (126, 4, 13)
    k = len(E.CARD_SLICES)
    np.testing.assert_array_equal(planes[:k].reshape(-1), flat[: k * 52])
    np.testing.assert_array_equal(planes[k:, 2, 7], flat[k * 52:])
    state = E.state_vector(s)
    assert state.shape == (E.STATE_SIZE,) == (592,) and 0 <= state.min() and state.max() <= 1
    kinds = state[:STATE_PHASE].reshape(len(STATE_ROWS), 53)
    rows = [STATE_ROWS.index(name) for name in ("hand_0", "hand_1", "stock", "discard_pile", "table", "pending")]
    naturals = kinds[rows, :52] * 2  # (the top is in the pile)
    jokers = kinds[rows, 52] * 6
    assert naturals.sum() == 104 and jokers.sum() == 6


def test_env_spaces_rewards_and_infos():
    env = romme_v0.env(num_players=3, encoding="planes", reward="win_loss")
    env.reset(seed=3)
    player = agents.make("random", seed=3, game="romme")
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        assert env.observation_space(agent).contains(obs) and info["game"] == "romme"
        env.step(player.act(obs, info))
    assert env.unwrapped.game.is_over


def test_bad_arguments_are_refused_with_clear_errors():
    with pytest.raises(ValueError, match="num_players must be an integer 2..6"):
        romme_v0.env(num_players=7)
    with pytest.raises(ValueError, match="unknown encoding"):
        romme_v0.env(encoding="pixels")
    with pytest.raises(ValueError, match="unknown Rommé rule option"):
        romme_v0.env(rules={"jokers_wild": True})
    env = romme_v0.raw_env()
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="0..5775"):
        env.step(NUM_ACTIONS)
    with pytest.raises(IllegalActionError, match="legal"):
        env.step(SWAP)
    with pytest.raises(ValueError, match="deck must be a permutation"):
        env.reset(options={"deck": list(range(52))})
    with pytest.raises(TypeError, match="romme"):
        agents.make("random", game="romme").act({"action_mask": np.ones(1267, np.int8)}, {})


def test_moves_and_results_in_words():
    game = get_game("romme")
    assert game.describe_move(PICK + K("7C")) == "puts 7C into the pending meld"
    assert game.describe_move(COMMIT) == "lays the pending meld on the table"
    assert game.describe_move(DISCARD + 52) == "discards JK"
    assert game.describe_move(SWAP + 52 * 2 + K("4H")) == "swaps 4H for the joker on slot 2"
    s = RommeState.from_hands(["7C 7D 7S 2H 3H 4H 5H 6H 8H 9H TH JH KS 3C", "AC 2C 3D 5S 6D 7H 8S 9C TH JC QS KD 4S"],
                              "5D", rules=RommeRules(come_out_points=0))
    legal = s.legal_actions()
    assert COMMIT not in legal and PICK + K("7C") in legal
    text = game.explain({"outcome": "stalemate", "winner": None, "points": 0, "reason": "max_turns"}, ["you", "bob"])
    assert text == "stalemate (too many turns): no points"
    result = {"outcome": "hand_rummy", "winner": 1, "points": 40, "penalties": [40, 0], "hands_left": ["JK JK", ""],
              "with_discard": True}
    assert game.explain(result, ["you", "bob"]).startswith("bob went out with hand rummy")


def test_a_tournament_of_romme_random_at_three_players(tmp_path):
    cfg = TournamentConfig(agents=["random", "random:seed=9", "random:seed=11"], deals=1, out=str(tmp_path / "t"), seed=1,
                           game="romme", players_per_table=3)
    summary = run(cfg, progress=False)
    assert summary["games"] >= 3
    records = (cfg.out_dir / "results.jsonl").read_text().splitlines()[1:]
    import json

    for line in records:
        r = json.loads(line)
        assert sum(r["points"]) == 0
        state = replay_hand(r["hands"][0], cfg.rules, "romme", 3)
        assert state.result.to_dict() == r["hands"][0]["result"]


def test_a_tournament_with_four_jokers_deals_108_cards(tmp_path):
    """Rules that change the pack (4 jokers: 108 cards) deal decks of that size
    (``Game.deck_size_of``), and the recorded hands replay under those rules."""
    import json

    rules = {"preset": "romme", "jokers": 4}
    cfg = TournamentConfig(agents=["random", "random:seed=9"], deals=1, out=str(tmp_path / "t"), seed=2,
                           game="romme", rules=rules)
    summary = run(cfg, progress=False)
    assert summary["games"] == 2
    for line in (cfg.out_dir / "results.jsonl").read_text().splitlines()[1:]:
        hand = json.loads(line)["hands"][0]
        assert sorted(hand["deck"]) == list(range(108))
        assert replay_hand(hand, rules, "romme", 2).result.to_dict() == hand["result"]
