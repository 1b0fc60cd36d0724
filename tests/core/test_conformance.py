"""The conformance suite every registered game passes by being registered
(``rummy_env.core.game``): PettingZoo's API and seed tests, invariants over random games,
whole matches through the env (for a game whose rules have matches), no hidden
information leaks (hidden cards dealt differently change nothing a player sees or any
agent does, and hidden cards swapped at the deal change no view at any step), worlds sampled from an information set that reproduce it, and tournament
records that replay exactly. A new game gets all of these without a line added here."""

import functools
import json
import warnings

import numpy as np
import pytest
from pettingzoo.test import seed_test

from conftest import assert_seats_see_nothing_hidden, run_api_test
from rummy_env import agents
from rummy_env.core.game import IllegalActionError, games, get_game
from rummy_env.core.masks import WIDE_MASK, ActionMask
from rummy_env.eval.games import TableGame, play_game, replay_hand

CASES = [(name, n) for name in games() for n in range(get_game(name).min_players, get_game(name).max_players + 1)]
IDS = [f"{name}-{n}p" for name, n in CASES]


def hands(game, count: int, least: int = 2) -> range:
    """Seeds for ``count`` random hands, fewer for a game whose hands cost more (``Game.hand_cost``)."""
    return range(max(least, count // game.hand_cost))


def cheap(spec: str, game: str) -> str:
    """``spec`` with a small budget when its agent buys thinking with ``simulations``
    (``Agent.budgets``): a search agent's moves in a few playouts. So few that the generic
    ``search`` plays its rollout agent's move here; tests/agents/test_search.py checks, for every
    registered game, that a real search's values and move do not change with the hidden
    cards."""
    if "simulations" in getattr(agents.factory_of(spec, game), "budgets", {}):
        return f"{spec}:simulations=4"
    return spec


def random_play(game, n: int, seed: int, on_step=None):
    """A hand of random legal moves from a seeded deal; ``on_step(state)`` before each move."""
    rng = np.random.default_rng(seed)
    state = game.deal(game.load_rules(), n, seed=rng, dealer=seed % n)
    while not state.is_over:
        if on_step is not None:
            on_step(state, rng)
        state.step(int(rng.choice(state.legal_actions())))
    return state


@pytest.mark.parametrize("name, n", CASES, ids=IDS)
def test_pettingzoo_api_and_seed_tests(name, n):
    game = get_game(name)
    for encoding in game.encodings:
        run_api_test(game.env(num_players=n, encoding=encoding), 200)
    if game.load_rules().match:
        run_api_test(game.env(num_players=n, episode="match"), 200)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        seed_test(lambda: game.env(num_players=n), num_cycles=100)


@pytest.mark.parametrize("name, n", CASES, ids=IDS)
def test_invariants_over_random_games(name, n):
    game = get_game(name)
    deck = sorted(range(game.deck_size))
    outcomes = set()

    def check(state, rng):
        places = state.card_places()
        assert sorted(c for cards in places.values() for c in cards) == deck, "the places must partition the deck"
        legal = state.legal_actions()
        mask = state.legal_mask()
        assert legal and mask.shape == (game.num_actions,) and set(np.flatnonzero(mask)) == set(legal)
        illegal = int(rng.choice(np.flatnonzero(mask == 0)))
        before = (state.current_player, state.actions, places)
        with pytest.raises(IllegalActionError):
            state.step(illegal)
        assert (state.current_player, state.actions, state.card_places()) == before
        for action in rng.choice(legal, size=min(3, len(legal)), replace=False):  # masked-in actions step
            state.clone().step(int(action))

    for seed in hands(game, 30):
        state = random_play(game, n, seed, check)
        result = state.result
        assert result is not None and state.legal_actions() == [] and not state.legal_mask().any()
        assert sum(result.rewards) == 0 and len(result.rewards) == n
        assert result.outcome in game.outcomes and result.to_dict()["outcome"] == result.outcome
        assert sorted(c for cards in state.card_places().values() for c in cards) == deck
        outcomes.add(result.outcome)
    assert outcomes


def match_preset(game):
    """The game's default preset if its rules have matches, else its first preset that has
    them (None: the game has no matches)."""
    return next((p for p in (game.default_preset, *game.presets) if game.load_rules(p).match), None)


# whole matches at the game's fewest players and at 4 (when it seats 4): a match is many hands
MATCH_CASES = [(name, n) for name in games()
               for n in sorted({get_game(name).min_players, min(4, get_game(name).max_players)})]


@pytest.mark.parametrize("name, n", MATCH_CASES, ids=[f"{name}-{n}p" for name, n in MATCH_CASES])
def test_match_episodes_play_whole_matches(name, n):
    """A whole match of random legal moves (``episode="match"``), in two envs stepped alike,
    rewards ``points`` and ``win_loss``: each hand's result and the running ``match_points``
    reach every agent's info, the deal passes to the left, no reward comes but at a hand's
    end, each ``points`` return is the seat's hand rewards plus the match's
    ``bonus_rewards`` (zero-sum), and ``win_loss`` gives the match winner +1 at the last
    hand (the others -1 / (N - 1); 0 to all without a winner); the episode ends exactly
    when the match is over, with ``match_result`` in every info."""
    game = get_game(name)
    preset = match_preset(game)
    if preset is None:
        pytest.skip(f"{game.title} has no rules with matches")
    envs = [game.raw_env(num_players=n, rules=preset, episode="match", reward=r) for r in ("points", "win_loss")]
    for env in envs:
        env.reset(seed=n)
    points, win_loss = envs
    agents_ = points.possible_agents
    rng = np.random.default_rng(n)
    returns = np.zeros((2, n))
    hand_rewards = np.zeros(n)
    hands = 0
    while not all(points.terminations.values()):
        hand = points.game
        assert win_loss.game.actions == hand.actions and win_loss.game.dealer == hand.dealer
        action = int(rng.choice(hand.legal_actions()))
        for row, env in enumerate(envs):
            env.step(action)
            returns[row] += [env.rewards[a] for a in agents_]
        if not hand.is_over:
            assert not any(points.rewards.values()) and not any(win_loss.rewards.values())
            continue
        hands += 1
        hand_rewards += hand.result.rewards
        for a in agents_:
            assert points.infos[a]["hand_result"] == hand.result.to_dict()
            assert points.infos[a]["match_points"] == list(points.match.points)
        if not points.match.is_over:
            assert not any(win_loss.rewards.values())
            assert points.game is not hand and points.game.dealer == points.match.dealer == (hand.dealer + 1) % n
            assert not any(points.terminations.values())
    final = points.match.result()
    assert hands >= 1 and points.match.is_over and all(win_loss.terminations.values())
    assert all(points.infos[a]["match_result"] == final.to_dict() for a in agents_)
    np.testing.assert_allclose(returns[0], hand_rewards + np.array(final.bonus_rewards))
    assert returns[0].sum() == pytest.approx(0)
    expected = [0.0] * n if final.winner is None else [1.0 if s == final.winner else -1 / (n - 1) for s in range(n)]
    np.testing.assert_allclose(returns[1], expected)


@pytest.mark.parametrize("name, n", CASES, ids=IDS)
def test_no_leak_when_hidden_cards_are_dealt_differently(name, n):
    """What a player sees (observation, mask, information set) and what every agent of the
    game does must not change when the cards that player cannot know are dealt otherwise."""
    game = get_game(name)
    specs = [cheap(s, name) for s in agents.available(game=name, levels=False, required=False)]
    env = game.raw_env(num_players=n)
    rng = np.random.default_rng(7)
    checked = changed = 0
    for episode in hands(game, 6):
        env.reset(seed=episode)
        while True:
            g = env.game
            changed += assert_seats_see_nothing_hidden(env, rng)[0]
            if g.is_over:
                break
            seat = g.current_player
            obs, _, _, _, info = env.last()
            if checked < 40:
                for spec in specs:
                    action = agents.make(spec, seed=episode, game=name).act(obs, info)
                    env.game = game.redeal_hidden(g, seat, rng)
                    alt_info = dict(info, information_set=env.game.information_set(seat))
                    assert agents.make(spec, seed=episode, game=name).act(env.observe(env.agent_selection), alt_info) == action
                    env.game = g
                checked += 1
            env.step(int(rng.choice(g.legal_actions())))
    assert checked > 10 and changed > 10  # the perturbation really moved hidden cards


@pytest.mark.parametrize("name, n", CASES, ids=IDS)
def test_sampled_worlds_reproduce_the_information_set(name, n):
    game = get_game(name)
    checked = 0

    def check(state, rng):
        nonlocal checked
        for seat in range(n):
            info = state.information_set(seat)
            world = game.sample_world(info, state.rules, rng)
            assert world.information_set(seat) == info
            if seat == state.current_player:
                assert world.legal_actions() == state.legal_actions()
            checked += 1

    for seed in hands(game, 8):
        random_play(game, n, seed, check)
    assert checked > 50


@pytest.mark.parametrize("name, n", CASES, ids=IDS)
def test_tournament_records_replay_move_for_move(name, n):
    game = get_game(name)
    specs = agents.available(game=name, levels=False)[:2]
    spec = {"game": name, "agents": specs, "rules": game.default_preset, "mode": "hands", "seed": 3, "record": True}
    table = tuple(range(len(specs)))
    seats = (table * n)[:n] if len(specs) < n else table[:n]
    for rotation in range(2):
        record = play_game(spec, TableGame(seats, deal=rotation, rotation=rotation % n))
        (hand,) = record["hands"]
        state = replay_hand(hand, game.default_preset, name, n)
        assert state.result.to_dict() == hand["result"] and state.actions == hand["actions"]
        assert record["points"] == list(state.result.rewards)


VIEW_KEYS = {"hand", "players", "table", "discard_pile", "stock", "facts", "showdown"}
TARGETS = {None, "hand", "stock", "pile"}


@pytest.mark.parametrize("name, n", CASES, ids=IDS)
def test_views_for_people_show_nothing_hidden(name, n):
    """``Game.view`` (what the web app draws) is plain JSON of the shape of
    ``rummy_env.core.view``, the same when the cards a seat cannot know are dealt otherwise;
    every legal move has a ``move_view``, a card it targets in the hand being in that hand
    (a joker shown standing for a card, ``JK:7D``, is the card ``JK``)."""
    game = get_game(name)
    rules = game.load_rules()
    checked = 0

    def check(state, rng):
        nonlocal checked
        for seat in range(n):
            view = game.view(state.information_set(seat), rules)
            assert set(view) == VIEW_KEYS and json.loads(json.dumps(view)) == view
            assert view["stock"] == len(state.card_places()["stock"]) and len(view["players"]) == n
            assert sum(len(g["cards"]) for g in view["hand"]["groups"]) == view["players"][seat]["cards"]
            other = game.redeal_hidden(state, seat, rng)
            assert game.view(other.information_set(seat), rules) == view
            if seat == state.current_player and not state.is_over:
                held = {c.split(":")[0] for g in view["hand"]["groups"] for c in g["cards"]}  # JK:7D is a JK
                for action in state.legal_actions():
                    move = game.move_view(action, rules)
                    assert move["label"] and move["target"] in TARGETS
                    assert move["target"] != "hand" or move["card"] in held
            checked += 1

    for seed in hands(game, 4):
        state = random_play(game, n, seed, lambda s, rng: check(s, rng) if len(s.actions) < 40 else None)
        check(state, np.random.default_rng(seed))
    assert checked > 40


def hidden_from(state, seat: int) -> set[int]:
    """The cards in places ``seat`` cannot see: the other players' hands and the stock
    (``GameState.card_places`` names them ``hand {seat}`` and ``stock``). A card can only be
    known in another hand after passing through a place everyone sees, and a stock turned
    over (its order public) holds only such cards."""
    places = state.card_places()
    return {c for name, cards in places.items() for c in cards if name == "stock"
            or (name.startswith("hand ") and name != f"hand {seat}")}


def assert_same_observation(one, other, where: str) -> None:
    """Two observations of an encoding are the same: arrays entry for entry, a text view
    (``rummy_env.core.textview``: a string, text or JSON) character for character, the
    first line that differs named."""
    if isinstance(one, np.ndarray):
        np.testing.assert_array_equal(one, other, err_msg=where)
        return
    assert isinstance(one, str) and isinstance(other, str), f"{where}: an observation is an array or a string"
    if one != other:
        lines = list(zip(one.splitlines(), other.splitlines())) + [("(end)", "(end)")]
        first = next(((x, y) for x, y in lines if x != y), ("(end)", "(more lines)"))
        raise AssertionError(f"{where}: the views differ: {first[0]!r} against {first[1]!r}")


def assert_same_views(envs, game, seats, step: int) -> None:
    """Every view of each of ``seats`` is the same in the two envs: the observation and mask
    the env gives, every encoding of its information set (arrays and text views), its env info (the information set
    agents read, hand results), the screen (``Game.view``), the terminal text
    (``render(perspective=...)``) and, once the hand is over, the result explained."""
    a, b = envs
    names = [f"player_{s}" for s in range(a.num_players)]
    for seat in seats:
        agent = a.possible_agents[seat]
        where = f"seat {seat} after {step} moves"
        infos = [env.game.information_set(seat) for env in envs]
        assert infos[0] == infos[1], f"{where}: the information set differs"
        assert a.infos[agent] == b.infos[agent], f"{where}: the env info differs"
        for key, value in a.observe(agent).items():
            np.testing.assert_array_equal(value, b.observe(agent)[key], err_msg=f"{where}: {key}")
        for name in game.encodings:
            encoding = game.encoding(name)
            assert_same_observation(encoding.encode(infos[0], a.rules), encoding.encode(infos[1], b.rules),
                                    f"{where}: the {name} encoding")
        if game.has_view:
            assert game.view(infos[0], a.rules) == game.view(infos[1], b.rules), f"{where}: the screen view differs"
        assert a.game.render(perspective=seat) == b.game.render(perspective=seat), f"{where}: the text differs"
        if a.game.is_over:
            told = [game.explain(env.game.result.to_dict(), names) for env in envs]
            assert told[0] == told[1], f"{where}: the result explained differs"


@pytest.mark.parametrize("name, n", CASES, ids=IDS)
def test_no_leak_when_hidden_cards_are_swapped_at_the_deal(name, n):
    """Two cards a player cannot see are swapped in the deck before the deal, and the same
    moves are replayed (random legal moves, while they stay legal): at every step every
    view of that player must be the same in both hands while neither card has reached a
    place that player sees. So a view that depends on the hidden cards through the history
    (which copy of a card a player held when it was played) is caught, which redealing
    the current position's hidden cards never tries. Cards of one kind (``Game.card_kind``:
    Rommé's two copies of a card) are identical for every rule: swapping two of them must
    change no view of any seat, at any step, to the end of the hand (while the hands hold
    the same kinds: a stock shuffled again after a turnover may come out otherwise); every
    seat's information set is compared at each step, and all the views of the observer
    and of one more seat in turn."""
    game = get_game(name)
    rules = game.load_rules()
    kind = functools.partial(game.card_kind, rules=rules)
    copies = len({kind(c) for c in range(game.deck_size_of(rules))}) < game.deck_size_of(rules)
    compared = identical = 0
    for seed in hands(game, 12, least=4):
        rng = np.random.default_rng(seed)
        envs = [game.raw_env(num_players=n) for _ in range(2)]
        dealer = seed % n
        envs[0].reset(seed=seed, options={"dealer": dealer})
        deck = list(envs[0].game.deck)
        observer = int(rng.integers(n))
        places = envs[0].game.card_places()
        hidden = sorted(hidden_from(envs[0].game, observer))
        place = {c: where for where, cards in places.items() for c in cards}
        pairs = [(x, y) for i, x in enumerate(hidden) for y in hidden[i + 1:]
                 if place[x] != place[y] or place[x] == "stock"]  # two cards of one hand: no swap
        same = [(x, y) for x, y in pairs if kind(x) == kind(y)]
        pool = same if same and seed % 2 == 0 else pairs  # half the hands swap two cards of one kind, if any
        x, y = pool[int(rng.integers(len(pool)))]
        swapped = [y if c == x else x if c == y else c for c in deck]
        envs[1].reset(seed=seed, options={"dealer": dealer, "deck": swapped})
        assert envs[1].game.card_places() != places
        alike = kind(x) == kind(y)
        identical += alike
        step = 0
        while True:
            states = [env.game for env in envs]
            if alike:
                if any(sorted(map(kind, cards)) != sorted(map(kind, states[1].card_places()[where]))
                       for where, cards in states[0].card_places().items()):
                    break  # the hands went apart (a stock shuffled again): no longer the same game
                for seat in range(n):  # the information set of every seat, every view of two seats
                    equal = states[0].information_set(seat) == states[1].information_set(seat)
                    assert equal, f"seat {seat} after {step} moves: the information set differs"
                assert_same_views(envs, game, {observer, step % n}, step)
            else:
                if states[0].is_over or not all({x, y} <= hidden_from(s, observer) for s in states):
                    break
                assert_same_views(envs, game, [observer], step)
            compared += 1
            if states[0].is_over:
                break
            action = int(rng.choice(states[0].legal_actions()))
            if not states[1].is_legal(action):
                assert not alike, f"move {step}: {action} is legal in one hand and not in the other"
                break
            for env in envs:
                env.step(action)
            step += 1
    assert compared > 20 and (identical or not copies)  # a game with copies of a card swapped some


@pytest.mark.filterwarnings("ignore:.*illegal action")  # the checkers play unmasked random actions
@pytest.mark.parametrize("name, n", CASES, ids=IDS)
def test_gymnasium_view_passes_check_env(name, n):
    """The game's single-seat Gymnasium view (``rummy_env.gym``, registered under
    ``env_id(game)``) passes Gymnasium's env checker, and Stable-Baselines3's where that is
    installed, at every player count, the learner's seat drawn per hand."""
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    from rummy_env.gym import env_id

    make = functools.partial(gymnasium.make, env_id(name), num_players=n, seat="random")
    check_env(make().unwrapped, skip_render_check=True)
    try:
        from stable_baselines3.common.env_checker import check_env as sb3_check_env
    except ImportError:  # sb3 is in the dev extra; without it Gymnasium's checker is the check
        return
    sb3_check_env(make(render_mode="rgb_array").unwrapped)


@pytest.mark.parametrize("name", games())
def test_the_one_trainer_trains_every_game(name, tmp_path):
    """``rummy train --game NAME`` for every registered game, through its training adapter
    (``Game.training_module``, or the generic one): two tiny updates at the smallest and the
    largest table, every opponent kind that fills whole tables (the learner in every seat,
    a pool snapshot, the generic random agent), an evaluation on duplicate deals, a
    checkpoint that resumes, and a policy file the adapter reads back."""
    pytest.importorskip("torch")
    from rummy_env.train.adapter import adapter_for
    from rummy_env.train.config import load_config
    from rummy_env.train.ppo import Trainer

    game = get_game(name)
    sizes = {game.min_players: 1.0, game.max_players: 1.0}
    config = load_config(None, {
        "game": name, "players": sizes, "num_envs": 4, "rollout_steps": 4, "hands_per_update": 3, "total_updates": 2,
        "hidden": [16], "card_hidden": 4, "minibatch_size": 64, "opponents": {"self": 1, "pool": 1, "random": 1},
        "snapshot_every": 1, "imitation_teacher": None, "eval_every": 2, "eval_hands": game.min_players * game.max_players,
        "eval_opponents": ["random"], "checkpoint_every": 1, "torch_threads": 1, "progress": False,
        "runs_dir": str(tmp_path)})
    trainer = Trainer.start(config, tmp_path / "run")
    last = trainer.train()
    trainer.close()
    assert trainer.update == 2 and trainer.global_step > 0 and len(trainer.pool) == 2
    assert set(last) == ({"random"} if len(sizes) == 1 else {f"random/{n}p" for n in sizes})
    assert all(0 <= r["win_rate"] <= 1 and np.isfinite(r["points_per_hand"]) for r in last.values())
    net, _ = adapter_for(name).load_policy(tmp_path / "run" / "policy.pt")
    assert net.num_actions == game.num_actions
    resumed = Trainer.resume(tmp_path / "run", {"total_updates": 3})
    resumed.train()
    resumed.close()
    assert resumed.update == 3


@pytest.mark.parametrize("name, n", CASES, ids=IDS)
def test_search_agent_plays_legal_moves(name, n):
    """The generic ``search`` (``rummy_env.agents.search``, written over the game interface
    alone) plays every registered game at every player count: a few of its moves at seat 0
    (a small budget, playouts cut at 20 moves), the others random, through the env that
    raises on an illegal move."""
    env = get_game(name).raw_env(num_players=n)
    env.reset(seed=n)
    search = agents.make("search:simulations=12,depth=20", seed=n, game=name)
    rng = np.random.default_rng(n)
    searched = 0
    while searched < 4 and not env.game.is_over:
        obs, _, _, _, info = env.last()
        if env.game.current_player == 0:
            action = search.act(obs, info)
            assert obs["action_mask"][action]
            searched += 1
        else:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
    assert searched == 4 or env.game.is_over


@pytest.mark.parametrize("name", games())
def test_the_envs_masks_are_int8_in_their_space_and_wide_ones_are_action_masks(name):
    """Every game's env hands out int8 masks its space contains, that Gymnasium's masked
    sample reads; from ``WIDE_MASK`` actions on as ``ActionMask``s, whose entries numpy
    finds as in the plain array (``tests/core/test_masks.py`` checks every byte value)."""
    env = get_game(name).raw_env()
    env.reset(seed=3)
    for agent in env.agents:
        env.action_space(agent).seed(3)
    for _ in range(20):
        for agent in env.agents:
            mask = env.observe(agent)["action_mask"]
            assert mask.dtype == np.int8 and env.observation_space(agent)["action_mask"].contains(mask)
            assert isinstance(mask, ActionMask) == (mask.shape[0] >= WIDE_MASK)
            assert np.flatnonzero(mask).tolist() == np.flatnonzero(np.asarray(mask)).tolist()
        obs = env.observe(env.agent_selection)
        action = env.action_space(env.agent_selection).sample(mask=obs["action_mask"])
        assert obs["action_mask"][action] == 1
        env.step(int(action))
        if env.game.is_over:
            break


@pytest.mark.parametrize("name", games())
def test_the_game_says_from_how_many_playouts_a_search_round_goes_to_its_engine(name, monkeypatch):
    """``Game.engine_playout_rows`` is a count of playouts (a whole number from 1), and the
    search's ``playouts=auto`` honours it: a round of fewer stays in Python (the engine is
    told to refuse it here), a round of that many or more is asked of the engine."""
    from rummy_env.agents import search

    game = get_game(name)
    rows = game.engine_playout_rows
    assert isinstance(rows, int) and not isinstance(rows, bool) and rows >= 1
    asked = []
    monkeypatch.setattr(search, "engine_rewards", lambda g, policy, states, *a: asked.append(len(states)) or
                        np.zeros((len(states), states[0].num_players)))
    agent = search.SearchAgent(game=name, seed=0, simulations=4)
    agent._batch = object()  # an array policy, whatever the rollout agent has
    agent._on_engine[2] = True  # an engine that loads states
    state = game.deal(game.load_rules(), 2, seed=0)
    if rows > 1:
        agent._play_outs([state.clone() for _ in range(rows - 1)], [1] * (rows - 1))
        assert asked == []
    agent._play_outs([state.clone() for _ in range(rows)], [1] * rows)
    assert asked == [rows]
