"""The one trainer's rollouts on a game's vector engine (``rummy_env.train.engine_rollouts``):
the batches have the in-process source's structure, every recorded decision and result is
the pure game's at that position (each hand replayed on ``Game.deal`` and checked move
by move, the scripted opponents' moves the per-game agents'), the choice of source
(``rollouts``) and why a game stays in-process, and a tiny run end to end with exact resume."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from rummy_env import agents  # noqa: E402
from rummy_env.core.game import get_game  # noqa: E402
from rummy_env.train.adapter import adapter_for  # noqa: E402
from rummy_env.train.config import load_config  # noqa: E402
from rummy_env.train.engine_rollouts import EngineWorker  # noqa: E402
from rummy_env.train.hands import HandsWorker  # noqa: E402
from rummy_env.train.ppo import Trainer  # noqa: E402
from rummy_env.train.rewards import hand_reward  # noqa: E402

BASIC = {"game": "basic", "hands_per_update": 24, "hidden": [16], "card_hidden": 8, "players": {2: 1, 3: 1, 4: 1},
         "opponents": {"heuristic": 0.4, "random": 0.2, "self": 0.2, "pool": 0.2}, "progress": False,
         "eval_every": 0, "imitation_samples": 0, "torch_threads": 1}

needs_engine = pytest.mark.skipif(bool(adapter_for("basic").engine_rollouts(load_config(None, BASIC))),
                                  reason="Basic Rummy's compiled engine is not in use here")


ROMME = {"game": "romme", "hands_per_update": 12, "hidden": [16], "players": {2: 1, 4: 1},
         "opponents": {"heuristic": 0.4, "random": 0.2, "self": 0.2, "pool": 0.2}, "progress": False,
         "eval_every": 0, "imitation_samples": 0, "torch_threads": 1}
CONFIGS = {"basic": BASIC, "romme": ROMME}


def workers(hands: int = 24, base: dict = BASIC, **extra):
    config = load_config(None, {**base, **extra})
    adapter = adapter_for(config.game)
    torch.manual_seed(0)
    net = adapter.make_net(config)
    snapshots = []
    for _ in range(2):
        snapshots.append({k: v.clone() for k, v in adapter.make_net(config).state_dict().items()})
    out = []
    for cls in (HandsWorker, EngineWorker):
        worker = cls(config, 0, hands, net, adapter)
        worker.set_pool(snapshots)
        out.append(worker)
    return config, adapter, out


@needs_engine
def test_basic_rummys_and_rommes_rollouts_run_on_their_engines():
    for base in (BASIC, ROMME):
        config, adapter, _ = workers(base=base)
        assert adapter.engine_rollouts(config) == ""
        assert isinstance(adapter.make_worker(config, 0, 4, adapter.make_net(config), None, None), EngineWorker)
        hands = load_config(None, {**base, "rollouts": "hands"})
        assert type(adapter.make_worker(hands, 0, 4, adapter.make_net(hands), None, None)) is HandsWorker
    with pytest.raises(ValueError, match="'rollouts' = 'vector': choose auto, engine, hands"):
        load_config(None, {**BASIC, "rollouts": "vector"})


def test_a_network_reading_what_the_engine_cannot_give_stays_in_process(monkeypatch):
    adapter = adapter_for("romme")
    monkeypatch.setattr(adapter, "engine_encoding", None)
    assert "reads more than" in adapter.engine_rollouts(load_config(None, ROMME))
    refused = "'rollouts' = 'engine': Rommé's network reads more than .* choose auto or hands"
    with pytest.raises(ValueError, match=refused):
        load_config(None, {**ROMME, "rollouts": "engine"})


@needs_engine
def test_an_opponent_without_an_array_version_keeps_the_hands_in_process(monkeypatch):
    from rummy_env.agents.basic.agents import RummyRandomAgent

    monkeypatch.setattr(RummyRandomAgent, "batch_policy", lambda self: None)
    config = load_config(None, BASIC)
    adapter = adapter_for("basic")
    why = "opponent(s) random of Basic Rummy have no array version (Agent.batch_policy)"
    assert adapter.engine_rollouts(config) == why
    assert type(adapter.make_worker(config, 0, 4, adapter.make_net(config), None, None)) is HandsWorker
    with pytest.raises(ValueError, match="random of Basic Rummy have no array version"):
        load_config(None, {**BASIC, "rollouts": "engine"})


@needs_engine
def test_the_engine_batch_has_the_in_process_batchs_structure():
    _, adapter, (hands, engine) = workers()
    a, b = hands.rollout(), engine.rollout()
    assert set(a) == set(b)
    for key, value in a.items():
        if isinstance(value, np.ndarray):
            assert b[key].dtype == value.dtype and b[key].shape[1:] == value.shape[1:], key
    assert len(b["act"]) > 0 and b["episodes"] == a["episodes"] == 24 and b["outcomes"].sum() == 24
    assert b["mask"][np.arange(len(b["act"])), b["act"]].all()  # every recorded move legal under its mask
    assert (b["mask"].sum(axis=1) > 1).all()  # single legal moves are played, not recorded
    assert set(b["returns"]) <= {f"{k}_{n}p" for k in ("heuristic", "random", "pool") for n in (2, 3, 4)}


@needs_engine
@pytest.mark.parametrize("name, hands_played", [("basic", 30), ("romme", 12)])
def test_every_recorded_decision_and_result_is_the_pure_games(name, hands_played):
    """Each hand replayed from its deck and dealer on the pure game: the learner's recorded
    decisions (every seat's in ``self`` hands) hold the network's input for the mover's
    information set (``adapter.inputs``: Basic Rummy's the ``flat`` encoding, Rommé's that
    and the heuristic's advice), the legal mask and the move played; the scripted seats'
    moves are the per-game agents' seeded with the hand's keys; the results and rewards are
    the pure game's."""
    config, adapter, (_, worker) = workers(hands=hands_played, base=CONFIGS[name])
    game, rules = get_game(name), worker.dealer.rules
    hands, nets = worker._draw_hands()
    keys = worker.rng.integers(0, 2**63, size=(len(hands), 4), dtype=np.uint64)
    worker.net.eval()
    played = worker.play(hands, nets, keys)
    assert {h.kind for h in hands} == {"heuristic", "random", "self", "pool"}
    recorded: dict = {}
    for i, key in enumerate(played.hand):
        recorded.setdefault(key, []).append(i)
    checked = scripted = 0
    for g, hand in enumerate(hands):
        state = game.deal(rules, hand.size, deck=hand.deck.tolist(), dealer=hand.dealer)
        seat_agents = {s: agents.make(hand.kind, seed=int(keys[g, s]), game=name) for s in range(hand.size)
                       if s != hand.learner and hand.net < 0}
        for action in played.moves[g]:
            p = state.current_player
            legal = state.legal_actions()
            if len(legal) > 1 and (p == hand.learner or hand.kind == "self"):
                i = recorded[g, p].pop(0)
                np.testing.assert_array_equal(played.obs[i], adapter.inputs(None, state.information_set(p), rules, legal))
                np.testing.assert_array_equal(np.flatnonzero(played.mask[i]), legal)
                assert played.act[i] == action
                checked += 1
            elif len(legal) > 1 and p in seat_agents:
                mask = np.zeros(game.num_actions, dtype=np.int8)
                mask[legal] = 1
                info = {"information_set": state.information_set(p), "rules": rules}
                assert seat_agents[p].act({"action_mask": mask}, info) == action
                scripted += 1
            state.step(int(action))
        assert state.is_over and state.result.to_dict() == played.results[g].to_dict()
        assert all(not left for (h, _), left in recorded.items() if h == g)
    assert checked == len(played.act) and scripted > 100
    batch = worker._batch(played, hands, 0.0)
    for g, hand in enumerate(hands):  # the reward of each seat's last decision is its hand's result
        last = max(i for i, (h, p) in enumerate(played.hand) if (h, p) == (g, hand.learner))
        expected = hand_reward(played.results[g].rewards[hand.learner], config.reward, config.win_bonus)
        assert batch["ret"][last] == pytest.approx(float(expected), abs=1e-6)


@needs_engine
def test_the_pool_snapshots_move_in_one_stacked_forward_as_each_network_would():
    from rummy_env.train.engine_rollouts import Stacked

    config, adapter, (_, worker) = workers()
    nets = [adapter.make_net(config).eval() for _ in range(3)]
    x = torch.rand(3 * 5, 910)
    m = torch.rand(3 * 5, get_game("basic").num_actions) < 0.3
    with torch.no_grad():
        logp, value = Stacked(nets)(x, m)
        for k, net in enumerate(nets):
            own_logp, own_value = net(x[5 * k: 5 * k + 5], m[5 * k: 5 * k + 5])
            torch.testing.assert_close(logp[5 * k: 5 * k + 5], own_logp, rtol=1e-5, atol=1e-5)
            torch.testing.assert_close(value[5 * k: 5 * k + 5], own_value, rtol=1e-5, atol=1e-5)


@needs_engine
def test_a_tiny_run_on_the_engine_trains_and_resumes_exactly(tmp_path):
    extra = {"hands_per_update": 8, "total_updates": 3, "minibatch_size": 64, "snapshot_every": 1,
             "checkpoint_every": 1, "runs_dir": str(tmp_path)}
    straight = Trainer.start(load_config(None, {**BASIC, **extra}), tmp_path / "straight")
    assert all(isinstance(w, EngineWorker) for w in straight.rollouts.workers)
    straight.train()
    straight.close()

    class Stopped(Exception):
        pass

    def stop(trainer):
        if trainer.update == 2:
            raise Stopped

    first = Trainer.start(load_config(None, {**BASIC, **extra}), tmp_path / "stopped")
    with pytest.raises(Stopped):
        first.train(on_update=stop)
    first.close()
    resumed = Trainer.resume(tmp_path / "stopped")
    resumed.train()
    resumed.close()
    assert straight.episodes == resumed.episodes == 24
    a, b = straight.net.state_dict(), resumed.net.state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)
