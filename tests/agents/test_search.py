"""The generic search (``rummy_env.agents.search``): legal, reproducible, blind to hidden
cards, checked against brute-force enumeration of the worlds of a small position, and its
plug-ins (belief model, evaluation at a depth) and options."""

import math
import time

import numpy as np
import pytest

from rummy_env import agents
from rummy_env.agents.search import ENCODING, MIN_WORLDS, SearchAgent, _choose, _Observation, paired
from rummy_env.core.game import games, get_game

GAMES = games()
# quick rollout policies where a game's default is dear: Gin's heuristic samples 48 opponent
# hands at every knock decision (5 ms); its turn-based knock rule plays the same otherwise
QUICK_ROLLOUT = {"gin": "heuristic:knock=turn"}


def position(game, num_players: int, seed: int, moves: int):
    """A hand dealt from ``seed`` after ``moves`` random legal moves (fewer if it ends)."""
    rng = np.random.default_rng(seed)
    state = game.deal(game.load_rules(), num_players, seed=seed)
    for _ in range(moves):
        if state.is_over:
            break
        state.step(int(rng.choice(state.legal_actions())))
    return state


def inputs(state):
    """What the env's ``last()`` gives the player to move (the observation's mask, the info)."""
    seat = state.current_player
    return {"action_mask": state.legal_mask()}, {"information_set": state.information_set(seat), "rules": state.rules}


def decision(game, num_players: int, seed: int):
    """A position with at least two legal moves, a few moves into a random hand."""
    for offset in range(50):
        state = position(game, num_players, seed + 1000 * offset, 6 + offset % 7)
        if not state.is_over and len(state.legal_actions()) >= 2:
            return state
    raise AssertionError("no position with a choice")


@pytest.mark.parametrize("name", GAMES)
def test_the_search_is_registered_for_every_game(name):
    agent = agents.make("search:simulations=8", seed=1, game=name)
    assert isinstance(agent, SearchAgent) and agent.game == get_game(name).name


def searched(name: str, state, seed: int) -> tuple[int, list[int], np.ndarray]:
    """The move a small search plays at ``state``, and its candidate moves and values."""
    agent = SearchAgent(game=name, seed=seed, simulations=12, rollout=QUICK_ROLLOUT.get(name))
    move = agent.act(*inputs(state))
    assert agent.last_search is not None
    return move, *agent.last_search


@pytest.mark.parametrize("name", GAMES)
def test_same_seed_same_search_and_only_legal_moves(name):
    """With one seed the worlds, the playouts and so the values are the same; another seed
    samples other worlds."""
    game = get_game(name)
    differs = 0
    for seed in range(3):
        state = decision(game, game.min_players, seed)
        move, moves, values = searched(name, state, seed)
        again = searched(name, state, seed)
        assert again[0] == move and again[1] == moves and np.array_equal(again[2], values, equal_nan=True)
        assert state.is_legal(move) and sorted(moves) == sorted(state.legal_actions())
        other = searched(name, state, seed + 100)[2]
        differs += other.shape != values.shape or not np.array_equal(other, values, equal_nan=True)
    assert differs


@pytest.mark.parametrize("name", GAMES)
def test_the_search_does_not_change_when_hidden_cards_are_dealt_otherwise(name):
    """The search reads the mover's information set alone: the true state with every card the
    mover cannot know dealt differently gives the same values and move, for the same seed."""
    game = get_game(name)
    rng = np.random.default_rng(5)
    moved = 0
    for seed in range(3):
        state = decision(game, game.max_players if seed == 2 else game.min_players, seed)
        move, moves, values = searched(name, state, seed)
        other = game.redeal_hidden(state, state.current_player, rng)
        moved += other.card_places() != state.card_places()
        again = searched(name, other, seed)
        assert again[0] == move and again[1] == moves and np.array_equal(again[2], values, equal_nan=True)
    assert moved  # the hidden cards really moved


# ----------------------------------------------------------------------------- brute force

# Basic Rummy, 2 players, deal seed 39: these 63 moves (the heuristic's play) lead to a
# position where player_1 holds 9C 2D 2S with 4 cards in the stock and 2 unknown cards in
# player_0's hand: 15 ways to split the 6 unseen cards times 4! stock orders, 360 worlds.
DEAL, MOVES = 39, [0, 40, 1, 316, 13, 0, 25, 0, 50, 0, 52, 0, 21, 0, 11, 0, 27, 0, 164, 36, 0, 53, 0, 56, 49, 0, 513,
                   22, 0, 14, 0, 35, 0, 19, 0, 51, 0, 20, 0, 72, 34, 0, 581, 48, 0, 12, 0, 26, 0, 24, 0, 439, 30, 0,
                   32, 0, 45, 0, 418, 43, 0, 23, 0]


def every_world(game, state):
    """Every world consistent with the mover's information set: distinct worlds drawn until
    no new one comes, checked against the count of ways to deal the unseen cards."""
    seat = state.current_player
    info = state.information_set(seat)
    rng = np.random.default_rng(0)
    found = {}
    for _ in range(4000):
        world = game.sample_world(info, state.rules, rng)
        found.setdefault(tuple(sorted((k, tuple(v)) for k, v in world.card_places().items())), world)
    opponent = 1 - seat
    hidden_in_hand = info.hand_sizes[opponent] - bin(info.known[opponent]).count("1")
    unseen = bin(info.unseen).count("1")
    assert len(found) == math.comb(unseen, hidden_in_hand) * math.factorial(info.stock_size)
    return list(found.values())


def test_the_search_finds_the_best_move_by_brute_force_over_every_world():
    """Every candidate played out in every world the mover cannot tell apart (the rollout
    policy's playouts, as the search plays them): one move is clearly best, it is not the
    rollout policy's own move, and the search, sampling worlds, plays it."""
    game = get_game("basic")
    state = game.deal(game.load_rules(), 2, seed=DEAL)
    for action in MOVES:
        state.step(action)
    worlds = every_world(game, state)
    legal = state.legal_actions()
    search = SearchAgent(game="basic", seed=0, simulations=200)
    exact = np.zeros(len(legal))
    for world in worlds:
        for i, move in enumerate(legal):
            after = world.clone()
            after.step(move)
            exact[i] += search._play_out(after, 0)[world.current_player] / len(worlds)
    order = np.argsort(-exact)
    best = legal[order[0]]
    assert exact[order[0]] - exact[order[1]] > 2  # clearly best: more than 2 points a hand over the next
    obs, info = inputs(state)
    policy = agents.make("heuristic", seed=0, game="basic")
    assert policy.act(obs, info) != best  # the rollout policy alone plays another move
    assert [SearchAgent(game="basic", seed=s, simulations=200).act(obs, info) for s in range(3)] == [best] * 3


# ----------------------------------------------------------------------------- how a move is chosen


def test_the_base_move_stays_unless_another_is_clearly_better():
    rng = np.random.default_rng(0)
    noise = rng.normal(0, 5, size=(40, 1))
    clear = np.hstack([noise, noise + 3 + rng.normal(0, 1, (40, 1)), noise - 1])  # move 1: 3 points better
    assert _choose(clear, confidence=2.0) == 1
    slight = np.hstack([noise, noise + rng.normal(0.05, 5, (40, 1))])  # within the noise
    assert _choose(slight, confidence=2.0) == 0
    assert _choose(clear[: MIN_WORLDS - 1], confidence=2.0) == 0  # too few worlds: the base move
    dropped = clear.copy()
    dropped[5:, 1] = np.nan  # move 1 was dropped after 5 worlds: only the moves still played compete
    assert _choose(dropped, confidence=0.0) == 0
    mean, se = paired(clear)
    assert mean[0] == 0 and mean[1] == pytest.approx((clear[:, 1] - clear[:, 0]).mean()) and se[1] > 0


def test_a_belief_model_replaces_uniform_worlds():
    """The plug-in deals every world (here: the true state, so the search sees the cards, as
    only a test may), as a callable or an object with ``sample_world``."""
    game = get_game("basic")
    state = decision(game, 2, 1)
    calls = []

    def oracle(info, rules, rng):
        calls.append(info)
        return state.clone()

    class Model:
        sample_world = staticmethod(oracle)

    obs, info = inputs(state)
    for belief in (oracle, Model()):
        calls.clear()
        SearchAgent(game="basic", seed=0, simulations=16, belief=belief).act(obs, info)
        assert calls and all(i == info["information_set"] for i in calls)


def test_an_evaluation_at_the_depth_values_the_cut_playouts():
    """With ``depth`` the playouts stop after that many moves and ``evaluate`` values them:
    an evaluation that rewards one move the rollout policy would not play makes the search
    play it; without an evaluation a cut playout is worth nothing to anyone."""
    game = get_game("basic")
    state = decision(game, 2, 2)
    obs, info = inputs(state)
    base = SearchAgent(game="basic", seed=0, simulations=64, depth=1).act(obs, info)
    assert base == SearchAgent(game="basic", seed=0, simulations=1).act(obs, info)  # all worth 0: the base move
    wanted = max(a for a in state.legal_actions() if a != base)
    start = len(state.actions)

    def evaluate(after):
        return [50 if after.actions[start] == wanted and s == state.current_player else 0
                for s in range(after.num_players)]

    assert SearchAgent(game="basic", seed=0, simulations=64, depth=2, evaluate=evaluate).act(obs, info) == wanted


@pytest.mark.parametrize("name", GAMES)
def test_a_rollout_agent_is_shown_what_the_env_shows(name):
    """The mask at once; the encoded observation (the env's default encoding) when read."""
    game = get_game(name)
    state = decision(game, game.min_players, 0)
    seat = state.current_player
    env = game.raw_env(num_players=game.min_players)
    env.reset(seed=0)
    env.game = state
    expected = env.observe(env.possible_agents[seat])
    shown = _Observation(game.encoding(ENCODING), state.information_set(seat), state.rules, state.legal_mask())
    assert "observation" not in shown  # not encoded until read
    np.testing.assert_array_equal(shown.get("observation"), expected["observation"])
    np.testing.assert_array_equal(shown["action_mask"], expected["action_mask"])
    assert shown.get("nothing", 3) == 3
    with pytest.raises(KeyError):
        shown["nothing"]


def test_time_bounds_a_move():
    game = get_game("romme")
    state = decision(game, 2, 0)
    agent = SearchAgent(game="romme", seed=0, simulations=100_000, time=0.05)
    started = time.process_time()  # the search's own work: other jobs on the machine do not count
    agent.act(*inputs(state))
    assert time.process_time() - started < 1.5  # 0.05 s and one world's playouts (about 0.4 s), not 100,000 playouts
    assert agent.last_search is not None and 1 <= len(agent.last_search[1]) < 20


@pytest.mark.parametrize("options, message", [
    ({"simulations": 0}, "simulations must be a whole number >= 1"),
    ({"time": 0}, "time must be a number of seconds > 0"),
    ({"confidence": -1}, "confidence must be >= 0"),
    ({"depth": 0}, "depth must be a whole number of moves >= 1"),
    ({"rollout": "search"}, "is a search itself"),
    ({"rollout": "nonesuch"}, "unknown agent 'nonesuch'"),
    ({"belief": "uniform"}, "belief must be a callable"),
    ({"evaluate": 3}, "evaluate must be a callable"),
])
def test_options_are_checked(options, message):
    with pytest.raises(ValueError, match=message):
        SearchAgent(game="basic", **options)
