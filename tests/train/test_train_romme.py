"""Rommé's learned agent: its network starts by playing the heuristic's move (the advice),
its input and moves ignore the cards the player cannot know, its policy files, a tiny run
of the one trainer through Rommé's adapter (``rummy_env.train.games.romme``) with exact
resume, the warm start's inputs, the in-process source's pool snapshots kept across
updates, and Rommé's ``ppo`` agent playing a trained file."""

import copy

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from rummy_env import agents  # noqa: E402
from rummy_env.agents.arena import play_hand  # noqa: E402
from rummy_env.agents.romme.network import (  # noqa: E402
    ADVICE_START, CHOICES, MOVE_FEATURES, NUM_TYPES, RommePolicyNet, load_policy, move_table, save_policy,
)
from rummy_env.agents.romme.ppo import SHIPPED, RommePPOAgent, advised_move  # noqa: E402
from rummy_env.core.game import get_game  # noqa: E402
from rummy_env.romme.encoding import FLAT_SIZE  # noqa: E402
from rummy_env.romme.game import DISCARD, LAYOFF, NUM_ACTIONS, PICK, SWAP  # noqa: E402
from rummy_env.train.config import load_config  # noqa: E402
from train_checks import check_a_killed_run_resumes_to_the_straight_runs_weights  # noqa: E402

GAME = get_game("romme")
RULES = GAME.load_rules(None)
TINY = {"game": "romme", "players": {2: 1, 4: 1}, "hands_per_update": 6, "total_updates": 4, "minibatch_size": 64,
        "hidden": [16], "eval_every": 0, "progress": False, "snapshot_every": 1, "checkpoint_every": 2,
        "torch_threads": 1, "imitation_teacher": None, "opponents": {"heuristic": 0.5, "pool": 0.3, "self": 0.2}}


@pytest.fixture
def adapter(monkeypatch):
    """Rommé's training adapter, as ``adapter_for("romme")`` gives it once the game names it
    (``training_module``)."""
    from rummy_env.train import adapter as adapters

    monkeypatch.setattr(GAME, "training_module", "rummy_env.train.games.romme", raising=False)
    adapters._adapter.cache_clear()
    yield adapters.adapter_for("romme")
    adapters._adapter.cache_clear()


def tiny(tmp_path, **extra):
    return load_config(None, {**TINY, "runs_dir": str(tmp_path), **extra})


def deal(n: int, seed: int):
    rng = np.random.default_rng(seed)
    return GAME.deal(RULES, n, deck=rng.permutation(GAME.deck_size_of(RULES)).tolist(), dealer=n - 1)


def positions(n: int, hands: int, seed: int, most: int = 40):
    """(state, legal moves) at every decision with a choice of ``hands`` hands at ``n``
    players (at most ``most`` a hand), the heuristic playing (so melds and lay-offs come up)."""
    for h in range(hands):
        found = 0
        state = deal(n, seed * 1000 + h)
        players = [agents.make("heuristic", seed=seed + s, game="romme") for s in range(n)]
        while not state.is_over:
            p = state.current_player
            legal = state.legal_actions()
            if len(legal) > 1:
                if found == most:
                    break
                found += 1
                yield state, legal
            mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
            mask[legal] = 1
            state.step(int(players[p].act({"action_mask": mask},
                                          {"information_set": state.information_set(p), "rules": RULES})))


def observed(state, legal):
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[legal] = 1
    return {"action_mask": mask}, {"information_set": state.information_set(state.current_player), "rules": RULES}


# ---------------------------------------------------------------- the network


def test_the_move_table_names_each_actions_type_and_card():
    table = move_table()
    assert table.shape == (NUM_ACTIONS, MOVE_FEATURES) and (table[:, :NUM_TYPES].sum(1) == 1).all()
    assert table[0, 0] == 1 and table[0, NUM_TYPES:].sum() == 0  # draw from the stock: no card
    assert table[DISCARD + 52, 3] == 1 and table[DISCARD + 52, NUM_TYPES + 52] == 1  # discard a joker
    assert table[PICK + 7, 4] == 1 and table[PICK + 7, NUM_TYPES + 7] == 1
    assert table[LAYOFF + 52 * 3 + 9, 6] == 1 and table[LAYOFF + 52 * 3 + 9, NUM_TYPES + 9] == 1  # slot 3, kind 9
    assert table[SWAP + 52 * 35 + 51, 8] == 1 and table[SWAP + 52 * 35 + 51, NUM_TYPES + 51] == 1


@pytest.mark.parametrize("n", [2, 4])
def test_the_untrained_network_plays_the_heuristics_move(n):
    """Before any training the advice decides: the greedy move is the heuristic's at every
    decision (so the untrained agent is the heuristic, and what PPO adds is PPO's), and the
    sampled policy gives it the share the bonus sets: e^b / (e^b + the other moves it may
    choose), with its head's logits still near 0."""
    torch.manual_seed(n)
    net = RommePolicyNet((32,))
    agent = RommePPOAgent.from_net(net)
    checked = 0
    for state, legal in positions(n, 2, n):
        observation, info = observed(state, legal)
        advice = advised_move(info["information_set"], RULES, legal)
        assert advice in legal
        assert agent.act(observation, info) == advice
        mask = torch.zeros(1, NUM_ACTIONS, dtype=torch.bool)
        mask[0, legal] = True
        with torch.no_grad():
            logp, _ = net(torch.from_numpy(agent.inputs(observation, info)[None]), mask)
        others = len(set(legal) & set(CHOICES) - {advice})
        bonus = np.exp(ADVICE_START)
        assert float(logp[0, advice].exp()) == pytest.approx(bonus / (bonus + others), abs=0.02)
        checked += 1
    assert checked > 40 and float(net.advice_weight.detach()) == ADVICE_START


def test_it_chooses_among_the_advised_move_the_draws_and_the_discards():
    """Whatever its weights, only the heuristic's move, a draw or a discard gets any
    probability: building melds, laying off and swapping follow the planner; the input is
    the flat encoding and the advised move's id."""
    torch.manual_seed(2)
    net = RommePolicyNet((16,))
    with torch.no_grad():
        net.logits.weight.mul_(500.0)
    agent = RommePPOAgent.from_net(net)
    others = 0
    for state, legal in positions(2, 1, 3):
        observation, info = observed(state, legal)
        x = agent.inputs(observation, info)
        advice = advised_move(info["information_set"], RULES, legal)
        np.testing.assert_array_equal(x[:FLAT_SIZE], GAME.encoding("flat").encode(info["information_set"], RULES))
        assert x[FLAT_SIZE] == advice and x.shape == (FLAT_SIZE + 1,)
        mask = torch.from_numpy(observation["action_mask"].astype(bool))[None]
        with torch.no_grad():
            prob = net(torch.from_numpy(x[None]), mask)[0].exp()[0].numpy()
        allowed = {advice, *CHOICES}
        assert all(prob[a] == 0 for a in legal if a not in allowed) and prob[list(allowed & set(legal))].sum() > 0.999
        others += any(a not in allowed for a in legal)
    assert others > 5  # positions with legal moves it may not choose were checked


def _forward_over_every_action(net, obs, mask):
    """The network's log-probabilities as its definition states them: all 5,776 logits, the
    head's on ``CHOICES`` and 0 elsewhere, the advice bonus on the advised move, every move
    that is not legal or not among those it chooses at -1e9, one softmax."""
    advised = obs[:, FLAT_SIZE].long()
    z = net.trunk(torch.cat([obs[:, :FLAT_SIZE], net.moves[advised]], dim=1))
    logits = obs.new_zeros(obs.shape[0], NUM_ACTIONS).index_copy(1, net.choices, net.logits(z))
    bonus = torch.nn.functional.one_hot(advised, NUM_ACTIONS).to(z.dtype)
    open_ = torch.zeros_like(mask).index_fill(1, net.choices, True) | bonus.bool()
    logits = (logits + bonus * net.advice_weight).masked_fill(~(mask & open_), -1e9)
    return torch.log_softmax(logits, dim=-1), net.value(z).squeeze(-1)


def test_the_compact_forward_gives_the_numbers_and_gradients_of_scoring_every_action():
    """The network scores only the moves it chooses among and spreads the result over the
    5,776 actions: log-probabilities, values and every parameter's gradient must be those of
    scoring all 5,776, with the advice among the draws and discards and outside them (a
    card for the meld being built), legal or not among them, and weights that overrule it."""
    torch.manual_seed(4)
    net = RommePolicyNet((32,))
    with torch.no_grad():
        net.logits.weight.mul_(30.0)
    rng = np.random.default_rng(4)
    n = 64
    obs = torch.from_numpy((rng.random((n, FLAT_SIZE + 1)) < 0.05).astype(np.float32))
    advised = np.where(np.arange(n) % 2 == 0, rng.integers(0, PICK, n), rng.integers(PICK, NUM_ACTIONS, n))
    obs[:, FLAT_SIZE] = torch.from_numpy(advised.astype(np.float32))
    mask = torch.from_numpy(rng.random((n, NUM_ACTIONS)) < 0.3)
    mask[torch.arange(n), torch.from_numpy(advised)] = True
    taken = torch.from_numpy(np.array([rng.choice(np.flatnonzero(m & np.isin(np.arange(NUM_ACTIONS), [*CHOICES, a])))
                                       for m, a in zip(mask.numpy(), advised)]))
    results = []
    for forward in (net.forward, lambda o, m: _forward_over_every_action(net, o, m)):
        net.zero_grad()
        logp, value = forward(obs, mask)
        p = logp.exp()
        loss = -logp.gather(1, taken[:, None]).sum() + (p * logp).masked_fill(~mask, 0.0).sum() + value.square().sum()
        loss.backward()
        results.append((logp.detach(), value.detach(), {k: w.grad.clone() for k, w in net.named_parameters()}))
    (logp, value, grads), (want_logp, want_value, want_grads) = results
    legal = mask & (want_logp > -1e8)
    assert legal.sum() > n * 10 and (legal != mask).any()  # legal moves it does not choose were checked
    torch.testing.assert_close(logp[legal], want_logp[legal], rtol=0, atol=2e-6)
    assert (logp[~legal] < -1e8).all() and (logp.exp()[~legal] == 0).all()
    torch.testing.assert_close(value, want_value, rtol=0, atol=0)
    for k in grads:
        torch.testing.assert_close(grads[k], want_grads[k], rtol=1e-5, atol=1e-5)


def test_masked_network_never_picks_an_illegal_move():
    """Random weights scaled up, so the MLP's logits overrule the advice: greedy and sampled
    moves are legal and illegal moves get probability exactly 0."""
    torch.manual_seed(1)
    net = RommePolicyNet((32,))
    with torch.no_grad():
        for p in net.parameters():
            p.mul_(40.0)
    rows, masks = [], []
    for state, legal in positions(3, 1, 5):
        observation, info = observed(state, legal)
        rows.append(RommePPOAgent.from_net(net).inputs(observation, info))
        masks.append(observation["action_mask"].astype(bool))
    x, m = torch.from_numpy(np.stack(rows)), torch.from_numpy(np.stack(masks))
    with torch.no_grad():
        logp, _ = net(x, m)
    prob = logp.exp().numpy()
    assert (prob[~m.numpy()] == 0).all() and np.allclose(prob.sum(1), 1.0, atol=1e-5)
    assert m.numpy()[np.arange(len(prob)), prob.argmax(1)].all()


def test_policy_files_round_trip_and_are_checked(tmp_path):
    net = RommePolicyNet((16,))
    with torch.no_grad():
        net.advice_weight.fill_(4.5)
    save_policy(net, tmp_path / "p.pt", "romme", {"note": 1})
    back, meta = load_policy(tmp_path / "p.pt")
    assert meta["extra"] == {"note": 1} and back.hidden == (16,) and float(back.advice_weight.detach()) == 4.5
    assert all(torch.equal(a, b) for a, b in zip(net.state_dict().values(), back.state_dict().values()))
    from rummy_env.agents.mlp_network import for_game, save_policy as save_generic

    save_generic(for_game("romme", (8,)), tmp_path / "generic.pt", "romme", None)
    with pytest.raises(ValueError, match="not a Rommé policy file"):
        load_policy(tmp_path / "generic.pt")
    torch.save({"format": "rummy-env-romme-policy-v1", "hidden": [16], "obs_size": 12,
                "num_actions": NUM_ACTIONS, "state_dict": {}}, tmp_path / "old.pt")
    with pytest.raises(ValueError, match="was built for 12 inputs"):
        load_policy(tmp_path / "old.pt")


def test_scoring_every_move_starts_at_the_advice_and_can_play_any_legal_move():
    """``scored_moves: all``: every legal move is scored by its type and card (``move_table``)
    plus the advice bonus. Untrained, the greedy move is the heuristic's at every decision;
    with the move types a ``choices`` network never scores weighted far above the rest,
    such a move wins wherever one is legal (a lay-off, a swap, a meld's card), advised or
    not, and never an illegal one."""
    torch.manual_seed(3)
    net = RommePolicyNet((16,), "all")
    agent = RommePPOAgent.from_net(net)
    rows, masks, advised = [], [], []
    for state, legal in positions(4, 2, 7):
        observation, info = observed(state, legal)
        assert agent.act(observation, info) == advised_move(info["information_set"], RULES, legal)
        rows.append(agent.inputs(observation, info))
        masks.append(observation["action_mask"].astype(bool))
        advised.append(int(rows[-1][FLAT_SIZE]))
    x, m = torch.from_numpy(np.stack(rows)), torch.from_numpy(np.stack(masks))
    with torch.no_grad():  # the types a choices network never scores, far above the rest
        net.logits.weight.zero_()
        net.logits.bias.zero_()
        net.logits.bias[[4, 5, 6, 7, 8]] = 50.0  # PICK, JOKER_AS, LAYOFF, LAYOFF_JOKER, SWAP (move_table's types)
        logp, _ = net(x, m)
    prob, best = logp.exp().numpy(), logp.argmax(1).numpy()
    assert (prob[~m.numpy()] == 0).all() and np.allclose(prob.sum(1), 1.0, atol=1e-5)
    assert m.numpy()[np.arange(len(best)), best].all()
    outside = [np.flatnonzero(row & (np.arange(NUM_ACTIONS) >= PICK)) for row in m.numpy()]
    assert all((b >= PICK) == bool(len(o)) for b, o in zip(best, outside))
    beyond = [int(b) for b, a in zip(best, advised) if b != a and b >= PICK]
    assert len(beyond) >= 3, beyond
    with pytest.raises(ValueError, match="moves must be one of choices, all, got 'some'"):
        RommePolicyNet((16,), "some")


def test_policy_files_keep_the_moves_a_network_scores(tmp_path):
    save_policy(RommePolicyNet((16,), "all"), tmp_path / "all.pt", "romme")
    assert load_policy(tmp_path / "all.pt")[0].moves_scored == "all"
    payload = torch.load(tmp_path / "all.pt", weights_only=True)
    payload.pop("moves")  # a file written before networks had a choice: the draws, discards and advice
    payload["state_dict"] = RommePolicyNet((16,)).state_dict()
    torch.save(payload, tmp_path / "before.pt")
    assert load_policy(tmp_path / "before.pt")[0].moves_scored == "choices"


# ---------------------------------------------------------------- hidden information


@pytest.mark.parametrize("n", [2, 4])
def test_agent_input_and_move_ignore_cards_the_player_cannot_know(n):
    """At every decision of heuristic hands, the cards the mover cannot know are dealt
    otherwise: the network's input (the advice in it too) is identical, and so is its move,
    greedy and sampled with the same seed; the network's weights are scaled so its own
    logits count."""
    torch.manual_seed(0)
    net = RommePolicyNet((32,))
    with torch.no_grad():
        net.logits.weight.mul_(300.0)
    rng = np.random.default_rng(10 + n)
    checked = moved = 0
    for state, legal in positions(n, 2, 20 + n):
        p = state.current_player
        other = state.redeal_hidden(p, rng)
        moved += other.card_places() != state.card_places()
        observation, info_a = observed(state, legal)
        info_b = {"information_set": other.information_set(p), "rules": RULES}
        for greedy in (True, False):
            a = RommePPOAgent.from_net(net, greedy=greedy, seed=checked)
            b = RommePPOAgent.from_net(net, greedy=greedy, seed=checked)
            assert np.array_equal(a.inputs(observation, info_a), b.inputs(observation, info_b))
            assert a.act(observation, info_a) == b.act(observation, info_b)
        checked += 1
    assert checked > 40 and moved > 0.5 * checked  # the redeals did move cards


# ---------------------------------------------------------------- training


def test_a_tiny_run_checkpoints_and_resuming_gives_the_straight_runs_weights(adapter, tmp_path):
    run = check_a_killed_run_resumes_to_the_straight_runs_weights(tiny, tmp_path)
    net, meta = load_policy(run / "policy.pt")
    assert meta["extra"]["update"] == 4 and not torch.equal(net.logits.weight, RommePolicyNet((16,)).logits.weight)
    agent = agents.make(f"ppo:{run / 'policy.pt'}", seed=0, game="romme")
    for n in (2, 4):
        seats = [agent] + [agents.make("heuristic", seed=s, game="romme") for s in range(1, n)]
        assert play_hand(seats, "romme", seed=n).outcome in GAME.outcomes


def test_the_warm_starts_inputs_are_what_the_runs_network_reads(adapter, tmp_path):
    config = tiny(tmp_path, imitation_teacher="heuristic", imitation_samples=40)
    data = adapter.imitation_data(config)
    assert data["obs"].shape[1] == adapter.make_net(config).obs_size == FLAT_SIZE + 1
    # the advice is the teacher's move but where its seeded tie-breaks fall otherwise
    assert (data["obs"][:, -1] == data["act"]).mean() > 0.9


def test_the_adapter_refuses_what_the_network_cannot_do(adapter, tmp_path):
    with pytest.raises(ValueError, match="'critic' = 'oracle': Rommé has no oracle critic"):
        tiny(tmp_path, critic="oracle")
    with pytest.raises(ValueError, match="'advice' = False: Rommé's network reads the heuristic's move: set true"):
        tiny(tmp_path, advice=False)
    with pytest.raises(ValueError, match="'scored_moves' = 'some': choose choices or all"):
        tiny(tmp_path, scored_moves="some")
    with pytest.raises(ValueError, match="'imitation_discards' = 'search': choose teacher or advice"):
        tiny(tmp_path, imitation_discards="search")
    for game in ("basic", "gin"):  # their networks score every move and are told no move
        with pytest.raises(ValueError, match="'scored_moves' = 'all': .* network scores every move: choose choices"):
            load_config(None, {"game": game, "scored_moves": "all"})
        with pytest.raises(ValueError, match="'imitation_discards' = 'advice': .* told no move to fall back on"):
            load_config(None, {"game": game, "imitation_discards": "advice"})


def test_the_warm_start_may_keep_the_heuristics_discards(adapter, tmp_path):
    """``imitation_discards: advice`` replaces the teacher's move by the advice exactly where
    both are discards and differ; the rest (draws, melds, a swap instead of a discard) stay
    the teacher's. A run with it and ``scored_moves: all`` fits and saves such a network."""
    advice = [DISCARD + 4, DISCARD + 4, 0, DISCARD + 9, PICK + 3, DISCARD + 1]
    act = [DISCARD + 7, DISCARD + 4, 1, SWAP + 9, PICK + 5, DISCARD + 1]
    obs = np.zeros((6, FLAT_SIZE + 1), dtype=np.float32)
    obs[:, -1] = advice
    data = {"obs": obs, "act": np.array(act), "mask": np.ones((6, NUM_ACTIONS), dtype=bool), "ret": np.zeros(6)}
    kept = adapter.imitation_targets(tiny(tmp_path), data)
    assert kept is data  # imitation_discards: teacher, the default
    fitted = adapter.imitation_targets(tiny(tmp_path, imitation_discards="advice"), data)
    assert fitted["act"].tolist() == [DISCARD + 4, DISCARD + 4, 1, SWAP + 9, PICK + 5, DISCARD + 1]
    assert data["act"].tolist() == act  # the teacher's moves themselves are left as they were
    config = tiny(tmp_path, scored_moves="all", imitation_discards="advice", imitation_teacher="heuristic",
                  imitation_samples=60, total_updates=1)
    from rummy_env.train.ppo import Trainer

    trainer = Trainer.start(config)
    trainer.train()
    trainer.close()
    net, _ = load_policy(trainer.run_dir / "policy.pt")
    assert net.moves_scored == "all" and load_policy(trainer.run_dir / "policy_imitation.pt")[0].moves_scored == "all"
    with pytest.raises(ValueError, match="scored_moves"):
        Trainer.start(tiny(tmp_path, init_policy=str(trainer.run_dir / "policy.pt"), name="other"))


# ---------------------------------------------------------------- the in-process source's pool


def test_pool_snapshots_are_built_once_and_follow_the_pool(adapter, tmp_path, monkeypatch):
    """A pool snapshot's network is made once and kept across updates (not a fresh
    ``make_net`` per update); a changed pool keeps the networks of the snapshots it still
    holds and builds the new ones; and the hands are the same as with every network rebuilt."""
    from rummy_env.train.hands import HandsWorker

    config = tiny(tmp_path, opponents={"pool": 1.0}, hands_per_update=4)
    torch.manual_seed(0)
    net = adapter.make_net(config)
    first = {k: v.clone() for k, v in net.state_dict().items()}
    second = {k: v + 0.01 for k, v in first.items()}
    built = []
    real = adapter.make_net
    monkeypatch.setattr(adapter, "make_net", lambda c: built.append(1) or real(c))
    kept, rebuilt = HandsWorker(config, 0, 4, net, adapter), HandsWorker(config, 0, 4, copy.deepcopy(net), adapter)
    kept.set_pool([first])
    batches = []
    for update in range(3):
        rebuilt.set_pool([{k: v.clone() for k, v in first.items()}])  # new objects: built afresh
        batches.append((kept.rollout(), rebuilt.rollout()))
    assert not built  # no network initialised for a snapshot
    held = kept._snapshots[0]
    assert held is not None and all(torch.equal(held.state_dict()[k], first[k]) for k in first)
    for a, b in batches:
        assert np.array_equal(a["act"], b["act"]) and np.array_equal(a["obs"], b["obs"])
    kept.set_pool([first, second])
    assert kept._snapshots[0] is held and kept._snapshots[1] is None
    kept.set_pool([second])
    assert kept._snapshots == [None]
    assert all(torch.equal(kept._snapshot(0).state_dict()[k], second[k]) for k in second)


# ---------------------------------------------------------------- the agent


def test_the_shipped_network_is_what_its_config_makes():
    """configs/romme_ppo.yaml is the recipe the docs give for the shipped file: its settings
    must be the ones the file records (network, moves, rules, labels)."""
    from pathlib import Path

    config = load_config(Path(__file__).resolve().parents[2] / "configs" / "romme_ppo.yaml")
    payload = torch.load(SHIPPED, weights_only=True)
    assert payload["format"] == "rummy-env-romme-policy-v1" and payload["moves"] == config.scored_moves == "all"
    assert list(payload["hidden"]) == list(config.hidden) and payload["rules"] == config.rules == "romme"
    assert payload["extra"]["samples"] == config.imitation_samples == 250_000
    assert config.imitation_discards == "advice" and config.imitation_teacher.startswith("search:")
    assert set(config.players) == {2, 4} and config.advice


def test_the_agent_refuses_bad_options(tmp_path, monkeypatch):
    save_policy(RommePolicyNet((16,)), tmp_path / "p.pt", None)
    for spec in (f"ppo:path={tmp_path / 'p.pt'}", f"ppo:{tmp_path / 'p.pt'}", f"ppo:path={tmp_path / 'p.pt'},greedy=false"):
        assert isinstance(agents.make(spec, seed=1, game="romme"), RommePPOAgent)
    with pytest.raises(ValueError, match="greedy"):
        agents.make(f"ppo:path={tmp_path / 'p.pt'},greedy=3", game="romme")
    with pytest.raises(FileNotFoundError):
        agents.make("ppo:path=no/such.pt", game="romme")
    shipped = agents.make("ppo", game="romme")
    assert shipped.path == SHIPPED and shipped.trained_rules == "romme"  # the shipped network, no file given
    monkeypatch.setattr("rummy_env.agents.romme.ppo.SHIPPED", tmp_path / "gone.pt")
    with pytest.raises(FileNotFoundError, match="the shipped Rommé ppo policy .* is missing"):
        agents.make("ppo", game="romme")
