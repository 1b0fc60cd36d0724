"""Knock labels from paired rollouts (rummy_env/train/knock_labels.py, ``rummy knock-labels``): values of
scripted positions worked out by hand, labels consistent with their rollouts, resumable
collection, the fit keeping its best held-out epoch, and clear errors."""

import json

import numpy as np
import pytest

pytest.importorskip("torch")

from rummy_env import agents  # noqa: E402
from rummy_env.agents.arena import play_hand  # noqa: E402
from rummy_env.core.cards import parse_card  # noqa: E402
from rummy_env.cli import main  # noqa: E402
from rummy_env.gin.game import BIG_GIN, DISCARD, DRAW_STOCK, KNOCK, NUM_ACTIONS, PASS, GinRummyState  # noqa: E402
from rummy_env.gin.vector import VectorGinRummy  # noqa: E402
from rummy_env.train.knock_labels import collect, fit, gain, knock_values, load, play_on, reshuffle_stocks  # noqa: E402

POLICY = str(agents.make("ppo").path)

# Player 0 (non-dealer) holds three melds and KD; the stock's top card is 2D. After drawing
# it, discarding KD leaves 2 deadwood, so player 0 may knock.
MELDS = "AC 2C 3C 4H 5H 6H 7S 8S 9S KD"
# No meld and nothing to lay off on AC-3C, 4H-6H, 7S-9S: 10+10+10+10+5+6+8+9+3+10 = 81.
LOOSE = "TC JC QH KH 5D 6D 8C 9H 3S JD"
# TC-QC, 5D-7D, 8H 8C 8D melded, AD left: 1 deadwood, under the knocker's 2.
TIGHT = "TC JC QC 5D 6D 7D 8H 8C 8D AD"


def _knock_position(opponent_hands, stock_left=None):
    """Engine rows 0.. with player 0 to discard after drawing 2D, one row per opponent hand;
    ``stock_left`` cuts the stock to that many cards."""
    states = [GinRummyState.from_hands(MELDS, h, "QS", "2D") for h in opponent_hands]
    env = VectorGinRummy(len(states), encoding=None, seed=0)
    env.load_states(np.arange(len(states)), states)
    while env.action_mask()[0, PASS]:  # both pass on the upcard
        env.step(np.full(len(states), PASS))
    env.step(np.full(len(states), DRAW_STOCK))
    if stock_left is not None:
        env.stock_next[:] = 52 - stock_left
    knock = KNOCK + parse_card("KD")
    assert env.action_mask()[:, knock].all()
    return env, knock


def test_knocking_is_scored_by_hand():
    env, knock = _knock_position([LOOSE, TIGHT])
    values = knock_values(env, np.arange(2), np.full(2, knock), np.zeros(2, dtype=int), win_bonus=25.0)
    # LOOSE: player 0 wins 81 - 2 = 79 points, plus 25 for the hand. TIGHT: undercut, the
    # defender scores 2 - 1 + 25 (classic undercut bonus) = 26, and player 0 loses the hand.
    assert values.tolist() == [79 + 25, -(26 + 25)]
    assert knock_values(env, np.arange(2), np.full(2, knock), np.ones(2, dtype=int), 0.0).tolist() == [-79, 26]


def test_playing_on_with_two_cards_left_in_the_stock_is_a_draw_worth_nothing():
    env, knock = _knock_position([LOOSE, TIGHT], stock_left=2)
    discard = np.full(2, DISCARD + parse_card("KD"))
    rng = np.random.default_rng(0)
    assert play_on(env, np.arange(2), discard, np.zeros(2, dtype=int), 4, 25.0, rng).tolist() == [0.0, 0.0]


def test_playing_on_averages_over_reshuffled_stocks_and_leaves_the_position_alone():
    env, knock = _knock_position([LOOSE] * 3)
    before = {k: getattr(env, k).copy() for k in env._STATE}
    discard = np.full(3, DISCARD + parse_card("KD"))
    many = play_on(env, np.arange(3), discard, np.zeros(3, dtype=int), 16, 25.0, np.random.default_rng(1))
    assert len(set(many.tolist())) > 1  # each row's stocks reshuffled apart
    for k, v in before.items():
        np.testing.assert_array_equal(getattr(env, k), v)  # rollouts play on copies
    # each value is a mean of hand results: points plus or minus the win bonus, or a draw's 0
    assert (np.abs(many) <= 25 + 150).all()


def test_reshuffling_reorders_the_stock_only():
    env = VectorGinRummy(3, seed=1)
    env.reset()
    env.step(np.full(3, PASS))
    env.step(np.full(3, PASS))
    env.step(np.full(3, DRAW_STOCK))
    before = env.decks.copy()
    start = int(env.stock_next[0])
    reshuffle_stocks(env, np.array([0, 2]), np.random.default_rng(0))
    np.testing.assert_array_equal(env.decks[:, :start], before[:, :start])  # dealt and drawn cards stay
    np.testing.assert_array_equal(env.decks[1], before[1])  # rows not named stay
    for g in (0, 2):
        assert sorted(env.decks[g, start:]) == sorted(before[g, start:])
        assert (env.decks[g, start:] != before[g, start:]).any()


def test_copy_games_copies_whole_positions():
    a = VectorGinRummy(4, seed=3)
    r = a.reset()
    rng = np.random.default_rng(0)
    for t in range(200):  # mid-hand positions, games 0 and 2 about to draw from the stock
        if t >= 8 and r.action_mask[[0, 2], DRAW_STOCK].all():
            break
        r = a.step(np.array([rng.choice(np.flatnonzero(m[:KNOCK])) for m in r.action_mask]))
    b = VectorGinRummy(6, seed=9)
    b.reset()
    b.copy_games(a, [2, 2, 0], [5, 0, 1])
    np.testing.assert_array_equal(b.observe()[[5, 0, 1]], a.observe()[[2, 2, 0]])
    np.testing.assert_array_equal(b.action_mask()[[5, 0, 1]], a.action_mask()[[2, 2, 0]])
    # the stock order too: drawing from it gives the same hands
    assert a.action_mask()[[0, 2], DRAW_STOCK].all()
    a.step(np.full(4, DRAW_STOCK), active=np.array([True, False, True, False]))
    b.step(np.full(6, DRAW_STOCK), active=np.isin(np.arange(6), [5, 0, 1]))
    assert b.hands[[5, 0, 1]].tolist() == a.hands[[2, 2, 0]].tolist()
    # every array of a game's state is copied
    arrays = {k for k, v in vars(b).items() if isinstance(v, np.ndarray) and v.shape[:1] == (6,)
              and k not in ("_rows", "_mask", "_after", "_deadwood", "_num_legal", "_legal_ids", "_hand_deadwood")}
    # (the row numbers; the legal moves and the deadwood the compiled engine keeps: recomputed after a copy)
    assert arrays == set(VectorGinRummy._STATE)
    with pytest.raises(ValueError, match="distinct"):
        b.copy_games(a, [0, 1], [3, 3])
    with pytest.raises(ValueError, match="source_rows must be game indices in 0..3"):
        b.copy_games(a, [4], [0])
    with pytest.raises(ValueError, match="plays"):
        b.copy_games(VectorGinRummy(2, rules="eaai"), [0], [0])


def test_labels_follow_their_rollouts_and_collection_resumes(tmp_path):
    folder = tmp_path / "labels"
    assert collect(POLICY, 60, folder, seed=5, stocks=2, chunk_hands=30, anchor=0.2) == 2
    stamp = (folder / "chunk-0.npz").stat().st_mtime_ns
    assert collect(POLICY, 90, folder, seed=5, stocks=2, chunk_hands=30, anchor=0.2) == 1  # only chunk 2 is new
    assert (folder / "chunk-0.npz").stat().st_mtime_ns == stamp
    assert json.loads((folder / "labels.json").read_text())["stocks"] == 2
    data, held = load(folder)
    assert len(held["label"]) == 0  # chunk 9 would be the first held out
    n = len(data["label"])
    rows = np.arange(n)
    assert data["obs"].shape == (n, agents.make("ppo").net.obs_size) and data["mask"].shape == (n, NUM_ACTIONS)
    assert data["mask"][rows, data["label"]].all() and data["mask"][rows, data["student"]].all()
    asked = ~np.isnan(data["delta"])
    assert asked.sum() >= 10 and (~asked).sum() >= 10
    a = np.flatnonzero(asked)
    assert ((data["knock"][a] >= KNOCK) & (data["knock"][a] < BIG_GIN)).all()
    assert ((data["other"][a] >= 0) & (data["other"][a] < KNOCK)).all()
    assert data["mask"][a, KNOCK:BIG_GIN].any(1).all() and not data["mask"][a, BIG_GIN].any()
    np.testing.assert_array_equal(data["label"][a], np.where(data["delta"][a] > 0, data["knock"][a], data["other"][a]))
    assert ((data["student"][a] == data["knock"][a]) | (data["student"][a] == data["other"][a])).all()  # its best of each
    o = np.flatnonzero(~asked)
    np.testing.assert_array_equal(data["label"][o], data["student"][o])  # anchors: the student's own moves
    assert not data["mask"][o, KNOCK:].any() and (data["mask"][o].sum(1) > 1).all()
    # the same chunk again gives the same labels (seeded), into another folder
    collect(POLICY, 30, tmp_path / "again", seed=5, stocks=2, chunk_hands=30, anchor=0.2)
    with np.load(folder / "chunk-0.npz") as x, np.load(tmp_path / "again" / "chunk-0.npz") as y:
        for k in x.files:
            np.testing.assert_array_equal(x[k], y[k])


def test_fit_keeps_its_best_epoch_and_the_result_plays(tmp_path):
    folder = tmp_path / "labels"
    collect(POLICY, 40, folder, seed=7, stocks=2, chunk_hands=40)
    data, _ = load(folder)
    from rummy_env.agents.gin.network import load_policy

    stats = fit(POLICY, folder, tmp_path / "fitted.pt", epochs=25, lr=3e-3, batch_size=16)
    # no held-out chunk: the last epoch is kept, and fitting its own labels raises the gain
    assert stats["kept"] == 25 and stats["held_out"] == 0
    assert stats["epochs"][-1]["gain"] > stats["before"]["gain"]
    net, meta = load_policy(tmp_path / "fitted.pt")
    assert gain(net, data) == stats["epochs"][-1]
    assert meta["extra"]["kept_epoch"] == 25
    result = play_hand([agents.make(f"ppo:{tmp_path / 'fitted.pt'}"), agents.make("heuristic", seed=1)], seed=2)
    assert result.outcome in ("knock", "gin", "big_gin", "undercut", "draw")


def test_fit_keeps_the_best_held_out_epoch_or_the_policy_unchanged(tmp_path):
    import torch

    from rummy_env.agents.gin.network import load_policy

    folder = tmp_path / "labels"
    collect(POLICY, 40, folder, seed=8, stocks=1, chunk_hands=4)  # chunk 9 is held out
    _, held = load(folder)
    assert (~np.isnan(held["delta"])).sum() > 0
    stats = fit(POLICY, folder, tmp_path / "best.pt", epochs=4, lr=3e-3, batch_size=16)
    gains = [stats["before"]["gain"]] + [e["gain"] for e in stats["epochs"]]
    best = max(range(5), key=lambda i: (gains[i], -i))  # the first of the best, the start if none beats it
    assert stats["kept"] == best and stats["held_out"] == (~np.isnan(held["delta"])).sum()
    net, meta = load_policy(tmp_path / "best.pt")
    assert gain(net, held)["gain"] == gains[best] and meta["extra"]["gain_measured_on"] == "held-out chunks"
    stats = fit(POLICY, folder, tmp_path / "same.pt", epochs=1, lr=1e-12)
    # a learning rate this small cannot change the greedy moves: no epoch beats the start
    assert stats["kept"] == 0
    fitted, _ = load_policy(tmp_path / "same.pt")
    original, _ = load_policy(POLICY)
    for (k, v), w in zip(fitted.state_dict().items(), original.state_dict().values()):
        assert torch.equal(v, w), k


def test_errors_name_what_is_wrong(tmp_path):
    with pytest.raises(ValueError, match="hands must be an integer >= 1"):
        collect(POLICY, 0, tmp_path / "x")
    with pytest.raises(ValueError, match=r"anchor must be a share in \[0, 1\]"):
        collect(POLICY, 1, tmp_path / "x", anchor=2)
    with pytest.raises(ValueError, match="trained for rules 'classic', not 'eaai'"):
        collect(POLICY, 1, tmp_path / "x", rules="eaai")
    with pytest.raises(FileNotFoundError, match="not found"):
        collect(tmp_path / "missing.pt", 1, tmp_path / "x")
    folder = tmp_path / "labels"
    collect(POLICY, 10, folder, stocks=1, chunk_hands=10)
    with pytest.raises(ValueError, match="other settings.*stocks: 1 there, 2 now"):
        collect(POLICY, 10, folder, stocks=2, chunk_hands=10)
    (folder / "chunk-1.npz").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="chunk-1.npz.*not a readable label file.*delete it"):
        load(folder)
    with pytest.raises(FileNotFoundError, match="no labelled chunks"):
        load(tmp_path / "x")
    with pytest.raises(ValueError, match="epochs must be an integer >= 1"):
        fit(POLICY, folder, tmp_path / "o.pt", epochs=0)
    (folder / "chunk-1.npz").unlink()
    fit(POLICY, folder, tmp_path / "o.pt", epochs=1)
    with pytest.raises(ValueError, match="made with the policy .* whose contents differ"):
        fit(tmp_path / "o.pt", folder, tmp_path / "p.pt", epochs=1)


def test_knock_labels_command_collects_then_fits(tmp_path, capsys):
    out = tmp_path / "fitted.pt"
    assert main(["knock-labels", "--policy", POLICY, "--hands", "20", "--chunk-hands", "10", "--stocks", "1",
                 "--labels", str(tmp_path / "l"), "--out", str(out), "--epochs", "1", "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "knock decisions" in text and f"ppo:{out}" in text and out.is_file()
    assert main(["knock-labels", "--policy", POLICY, "--labels", str(tmp_path / "m"), "--hands", "1", "--stocks", "0"]) == 2
    assert "stocks must be an integer >= 1" in capsys.readouterr().err
    assert main(["knock-labels", "--labels", str(tmp_path / "m")]) == 2
    assert "nothing to do" in capsys.readouterr().err


def test_a_stopped_collection_continues_without_losing_or_repeating_chunks(tmp_path):
    folder = tmp_path / "stopped"

    def stop_after_one(done, total):
        if done == 1:
            raise KeyboardInterrupt  # as if killed once the first chunk is written

    with pytest.raises(KeyboardInterrupt):
        collect(POLICY, 30, folder, seed=3, stocks=1, chunk_hands=10, progress=stop_after_one)
    assert sorted(p.name for p in folder.glob("chunk-*")) == ["chunk-0.npz"]
    (folder / ".chunk-1.999.tmp").write_bytes(b"half a file")  # a write cut short
    assert collect(POLICY, 30, folder, seed=3, stocks=1, chunk_hands=10) == 2
    assert sorted(p.name for p in folder.iterdir()) == ["chunk-0.npz", "chunk-1.npz", "chunk-2.npz", "labels.json"]
    collect(POLICY, 30, tmp_path / "whole", seed=3, stocks=1, chunk_hands=10)
    for i in range(3):  # the same labels as a collection never stopped
        with np.load(folder / f"chunk-{i}.npz") as x, np.load(tmp_path / "whole" / f"chunk-{i}.npz") as y:
            for k in x.files:
                np.testing.assert_array_equal(x[k], y[k])


def test_against_the_estimate_rule_only_the_opponent_plays_it(tmp_path, monkeypatch):
    """``opponent_knock="estimate"``: in the labelled games and in every playing-on, the
    opponent's seat moves by the knock estimate, the student's seat (in the rollouts) by
    the turn rule; the folder says which, and a collection with the other rule is refused."""
    import rummy_env.train.knock_labels as knock_labels

    real = knock_labels.heuristic_actions
    calls = []

    def recording(env, rows, rng=None, *, knock="turn", **kw):
        calls.append((knock, env.current[rows].copy(), env.encoding))
        return real(env, rows, rng, knock=knock, **kw)

    monkeypatch.setattr(knock_labels, "heuristic_actions", recording)
    env, _ = _knock_position([LOOSE, TIGHT, LOOSE])
    discard = np.full(3, DISCARD + parse_card("KD"))
    seats = np.zeros(3, dtype=int)  # the student is player 0
    play_on(env, np.arange(3), discard, seats, 2, 25.0, np.random.default_rng(0), "estimate")
    assert {k for k, _, _ in calls} == {"turn", "estimate"}
    for knock, movers, _ in calls:
        assert set(movers.tolist()) == ({0} if knock == "turn" else {1}), knock
    calls.clear()
    play_on(env, np.arange(3), discard, seats, 2, 25.0, np.random.default_rng(0))
    assert {k for k, _, _ in calls} == {"turn"}  # the default: both seats by the turn rule

    calls.clear()
    folder = tmp_path / "estimate"
    collect(POLICY, 6, folder, seed=3, stocks=1, chunk_hands=6, opponent_knock="estimate")
    in_game = [knock for knock, _, encoding in calls if encoding == "flat"]  # the labelled games (rollouts: None)
    assert in_game and set(in_game) == {"estimate"}
    assert json.loads((folder / "labels.json").read_text())["opponent_knock"] == "estimate"
    with pytest.raises(ValueError, match="other settings.*opponent_knock: 'estimate' there, 'turn' now"):
        collect(POLICY, 12, folder, seed=3, stocks=1, chunk_hands=6)
    with pytest.raises(ValueError, match="opponent_knock must be one of estimate, turn, got 'always'"):
        collect(POLICY, 6, tmp_path / "x", opponent_knock="always")
