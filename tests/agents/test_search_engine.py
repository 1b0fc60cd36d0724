"""The generic search's playouts on a game's vector engine (``rummy_env.agents.search_playouts``):
Basic Rummy's engine loads pure states (``VectorBasicRummy.load_states``) and plays on from
them exactly as the pure hands do, and the search's values played there are the Python
playouts' entry for entry (so its moves are the same), at every table size, with ``depth``
and other rollout agents; where the engine cannot be used the search keeps the Python
playouts, and ``playouts=engine`` says why it cannot be honoured."""

import numpy as np
import pytest

from rummy_env import agents
from rummy_env.agents.basic.agents import RummyHeuristicAgent
from rummy_env.agents.search import SearchAgent
from rummy_env.basic import vector
from rummy_env.basic.game import LAYOFF, TAKE_DISCARD, Phase
from rummy_env.core.game import get_game
from rummy_env.core.vector_states import StatesEngine
from test_search import inputs  # what the env's last() gives the player to move
from engine_checks import check_load_refusals, play_on, world_stepped_on

BASIC = get_game("basic")
needs_compiled = pytest.mark.skipif(vector.compiled_engine() is None,
                                    reason="Basic Rummy's compiled engine is not used here (numba off or missing)")

# table size and rules: the defaults, and the options that change what is legal or how a hand ends
# (aces high, lay-offs without a meld, the last card melded, short hands, no turnover, a turn limit)
RULES = [
    (2, {}),
    (3, {"aces": "high", "layoff_needs_own_meld": False, "go_out_without_discard": False, "max_turns": 60}),
    (4, {"stock_turnovers": 0, "hand_size": 5}),
    (2, {"hand_size": 7, "rummy_multiplier": 3, "aces": "high"}),
]


def random_states(players: int, rules, count: int, seed: int) -> list:
    """``count`` live hands a random number of moves into a deal: half the moves the highest
    legal id (a meld or lay-off where there is one, and the stock drawn, so hands go out and the
    stock runs out and is turned over), half a random legal move; every other one a world
    sampled from the mover's information set (``Game.sample_world``) and stepped on."""
    rng = np.random.default_rng(seed)
    rules = BASIC.load_rules(rules)
    out = []
    while len(out) < count:
        state = BASIC.deal(rules, players, seed=int(rng.integers(1 << 30)))
        for _ in range(int(rng.integers(0, 160))):
            if state.is_over:
                break
            legal = state.legal_actions()
            move = max(legal) if rng.random() < 0.5 else int(rng.choice(legal))
            state.step(0 if move == TAKE_DISCARD and rng.random() < 0.5 and state.is_legal(0) else move)
        if state.is_over:
            continue
        if len(out) % 2:
            state = world_stepped_on(BASIC, state, rules, rng)
            if state.is_over:
                continue
        out.append(state)
    return out


@needs_compiled
@pytest.mark.parametrize("players, rules", RULES)
def test_loaded_rows_play_on_exactly_as_the_pure_hands(players, rules):
    """Loaded into rows of the engine (among rows holding other hands), every state's mask,
    observation (every seat's), player to move and, stepped alike until its hand ends, every
    later mask, observation, reward and result are the pure state's; the positions include
    melds and lay-offs on the table, a stock turned over and a card taken from the pile."""
    from rummy_env.core.vector import LoadsStates

    states = random_states(players, rules, 40, seed=players)
    seen = {"meld": 0, "layoff": 0, "turned over": 0, "taken": 0}
    for s in states:
        seen["meld"] += bool(s.table)
        seen["layoff"] += any(a >= LAYOFF for _, a in s.history)
        seen["turned over"] += s.turnovers > 0
        seen["taken"] += s.taken_card is not None
    if rules.get("stock_turnovers") == 0:
        del seen["turned over"]
    assert all(seen.values()), seen
    engine = BASIC.vector(2 * len(states) + 3, players, rules=rules, seed=1)
    assert isinstance(engine, vector.VectorBasicRummy) and isinstance(engine, LoadsStates)
    engine.reset()
    rows = np.random.default_rng(players).permutation(engine.num_envs)[: len(states)]
    engine.load_states(rows, [s.clone() for s in states])
    ended = play_on(engine, rows, states, 400, BASIC.encoding("flat"), np.random.default_rng(0),
                    lambda engine, mask, rng: engine.random_actions(rng))
    assert ended == len(states)


@needs_compiled
def test_loading_refuses_what_is_not_a_live_hand_of_the_engine():
    engine = BASIC.vector(4, 2, seed=0)
    engine.reset()
    check_load_refusals(engine, random_states(2, {}, 1, seed=3)[0], random_states(3, {}, 1, seed=3)[0],
                        random_states(2, {"aces": "high"}, 1, seed=3)[0],
                        get_game("gin").deal(get_game("gin").load_rules(), 2, seed=0), "Basic Rummy")


# ----------------------------------------------------------------------------- the search


def decisions(players: int, rules, count: int, seed: int) -> list:
    """``count`` positions of hands the heuristic plays in every seat, at decisions with a
    choice (draws, discards of up to 11 cards, melds and lay-offs), spread over the hands."""
    rules = BASIC.load_rules(rules)
    out = []
    hand = 0
    while len(out) < count:
        state = BASIC.deal(rules, players, seed=seed + hand)
        seats = [agents.make("heuristic", seed=seed + hand + p, game="basic") for p in range(players)]
        turn = 0
        while not state.is_over and len(out) < count:
            p = state.current_player
            obs, info = inputs(state)
            if len(state.legal_actions()) > 1 and turn % (3 + hand % 4) == hand % 3:
                out.append(state.clone())
            turn += 1
            state.step(int(seats[p].act(obs, info)))
        hand += 1
    return out


def engine_only(monkeypatch):
    """From here the Python playouts raise: a search that plays one played it on the engine."""
    def refused(self, state, seed):
        raise AssertionError("a playout was played in Python")

    monkeypatch.setattr(SearchAgent, "_play_out", refused)


def both_paths(monkeypatch, state, seed: int, **options):
    """The (move, candidates, values) of a search at ``state`` with its playouts in Python,
    then on the engine (Python playouts refused there)."""
    out = []
    for playouts in ("python", "engine"):
        if playouts == "engine":
            engine_only(monkeypatch)
        agent = SearchAgent(game="basic", seed=seed, playouts=playouts, **options)
        move = agent.act(*inputs(state))
        out.append((move, *agent.last_search))
    monkeypatch.undo()
    return out


@needs_compiled
@pytest.mark.parametrize("players, rules", RULES)
def test_the_engine_playouts_give_the_python_playouts_values(players, rules, monkeypatch):
    """Basic Rummy's ``expert`` (100 playouts, confidence 1.5): at draws and plays, the values
    matrix (worlds x candidates, NaN where a candidate was dropped) is the Python playouts'
    to the last entry, and so are the candidates and the move."""
    phases = set()
    for k, state in enumerate(decisions(players, rules, 8, seed=10 * players)):
        python, engine = both_paths(monkeypatch, state, seed=k, simulations=100, confidence=1.5)
        assert engine[:2] == python[:2]
        np.testing.assert_array_equal(engine[2], python[2])
        phases.add(state.phase)
    assert phases == {Phase.DRAW, Phase.PLAY}


@needs_compiled
@pytest.mark.parametrize("depth", [1, 6, 30])
@pytest.mark.parametrize("players", [2, 4])
def test_playouts_cut_at_a_depth_are_worth_nothing_on_the_engine_too(players, depth, monkeypatch):
    """With ``depth`` and no ``evaluate`` the hands that end within the horizon count and a cut
    playout is worth 0 to everyone, on the engine as in Python."""
    nonzero = 0
    for k, state in enumerate(decisions(players, {}, 3, seed=5 + depth)):
        python, engine = both_paths(monkeypatch, state, seed=k, simulations=60, depth=depth)
        assert engine[:2] == python[:2]
        np.testing.assert_array_equal(engine[2], python[2])
        nonzero += np.count_nonzero(np.nan_to_num(python[2]))
    if depth == 30:
        assert nonzero  # hands ended within the horizon: their points are in the values


@needs_compiled
@pytest.mark.parametrize("rollout", ["random", "heuristic:partial_weight=0,danger_weight=7"])
def test_other_rollout_agents_play_the_same_playouts_on_the_engine(rollout, monkeypatch):
    """A rollout agent's array policy with its own options and random draws (``random``'s
    counter-based ones, the heuristic's tie-breaks) from the key of each seat's seed."""
    for k, state in enumerate(decisions(3, {}, 3, seed=77)):
        python, engine = both_paths(monkeypatch, state, seed=k, simulations=40, rollout=rollout)
        assert engine[:2] == python[:2]
        np.testing.assert_array_equal(engine[2], python[2])


def count_engine_rounds(monkeypatch) -> list:
    """The rounds played on the engine from here: one entry each, its number of playouts."""
    from rummy_env.agents.search_playouts import engine_rewards as real

    calls = []

    def counted(game, policy, states, seeds, depth):
        calls.append(len(states))
        return real(game, policy, states, seeds, depth)

    monkeypatch.setattr("rummy_env.agents.search.engine_rewards", counted)
    return calls


@needs_compiled
def test_auto_plays_the_rounds_worth_an_engine_there(monkeypatch):
    """By default (``playouts=auto``) Basic Rummy's rounds of its ``engine_playout_rows``
    playouts or more go to the engine (also with worlds from a belief model), smaller ones
    stay in Python (the engine costs more there), with the values of the Python playouts
    either way."""
    from rummy_env.core.game import get_game

    rows = get_game("basic").engine_playout_rows
    assert rows > 1
    calls = count_engine_rounds(monkeypatch)
    played = []
    for k, state in enumerate(decisions(2, {}, 4, seed=3)):
        auto = SearchAgent(game="basic", seed=k, simulations=100, belief=lambda info, rules, rng: state.clone())
        python = SearchAgent(game="basic", seed=k, simulations=100, playouts="python",
                             belief=lambda info, rules, rng: state.clone())
        assert auto.playouts == "auto" and auto.act(*inputs(state)) == python.act(*inputs(state))
        np.testing.assert_array_equal(auto.last_search[1], python.last_search[1])
        values = auto.last_search[1]
        per_round = [np.count_nonzero(~np.isnan(values[w])) for w in range(len(values))]
        played.append(sum(per_round))
    assert calls and min(calls) >= rows
    assert sum(calls) < sum(played)  # some rounds were too small for the engine


def test_the_python_playouts_stay_where_the_engine_cannot_play_them(monkeypatch):
    """``evaluate`` (which only Python playouts call), ``playouts=python``, rollout agents
    without an array version (Basic Rummy's made so here) and rounds too small for the engine
    (Rommé's four playouts) keep the Python playouts under ``auto``."""
    calls = count_engine_rounds(monkeypatch)
    state = decisions(2, {}, 1, seed=3)[0]
    for options in ({"evaluate": lambda s: [0] * s.num_players, "depth": 4}, {"playouts": "python"}):
        SearchAgent(game="basic", seed=0, simulations=12, **options).act(*inputs(state))
    monkeypatch.setattr(RummyHeuristicAgent, "batch_policy", lambda self: None)
    SearchAgent(game="basic", seed=0, simulations=12).act(*inputs(state))
    romme = get_game("romme")
    other = romme.deal(romme.load_rules(), 2, seed=1)
    assert other.is_legal(SearchAgent(game="romme", seed=0, simulations=4, depth=4).act(*inputs(other)))
    assert calls == []


@pytest.mark.parametrize("rollout", ["heuristic:knock=turn", "random", "simple"])
def test_gin_rummy_playouts_go_to_its_engine_with_the_same_values(rollout, monkeypatch):
    """Gin Rummy's engine loads states too (``VectorGinRummy.load_states``, written for
    ``mcts``): the generic search plays its playouts there (``auto`` for large rounds), with
    the Python playouts' values."""
    gin = get_game("gin")
    rng = np.random.default_rng(8)
    for k in range(3):
        state = gin.deal(gin.load_rules(), 2, seed=k)
        for _ in range(int(rng.integers(2, 30))):
            if len(state.legal_actions()) > 1 and rng.random() < 0.2:
                break
            state.step(int(rng.choice(state.legal_actions())))
        while len(state.legal_actions()) < 2:
            state.step(state.legal_actions()[0])
        python = SearchAgent(game="gin", seed=k, simulations=24, rollout=rollout, playouts="python")
        python.act(*inputs(state))
        engine_only(monkeypatch)
        engine = SearchAgent(game="gin", seed=k, simulations=24, rollout=rollout, playouts="engine")
        engine.act(*inputs(state))
        monkeypatch.undo()
        assert engine.last_search[0] == python.last_search[0]
        np.testing.assert_array_equal(engine.last_search[1], python.last_search[1])


def test_without_the_compiled_engine_the_search_plays_in_python_and_engine_is_refused(monkeypatch):
    """Without numba (or with ``RUMMY_ENV_NO_NUMBA=1``) Basic Rummy's engine is the pure hands in
    a loop (``StatesEngine``), which cannot load states: ``auto`` plays in Python, the same
    values as ``python``, and ``engine`` is refused with the reason."""
    from rummy_env.core.vector import LoadsStates

    monkeypatch.setattr(vector.COMPILED_ENGINE, "chosen", None)
    assert isinstance(BASIC.vector(1, 2), StatesEngine) and not isinstance(BASIC.vector(1, 2), LoadsStates)
    calls = count_engine_rounds(monkeypatch)
    state = decisions(2, {}, 1, seed=4)[0]
    auto = SearchAgent(game="basic", seed=2, simulations=24)
    python = SearchAgent(game="basic", seed=2, simulations=24, playouts="python")
    assert auto.act(*inputs(state)) == python.act(*inputs(state))
    np.testing.assert_array_equal(auto.last_search[1], python.last_search[1])
    assert calls == []
    with pytest.raises(ValueError, match="playouts=engine cannot be honoured: the Basic Rummy vector engine here "
                                         r"cannot load states \(load_states"):
        SearchAgent(game="basic", playouts="engine")


@pytest.mark.parametrize("game, options, message", [
    ("basic", {"playouts": "gpu"}, "playouts must be one of auto, engine, python, got 'gpu'"),
    ("basic", {"playouts": "engine", "evaluate": lambda s: [0, 0], "depth": 3},
     "playouts=engine cannot be honoured: an evaluate plug-in"),
])
def test_playouts_engine_is_refused_where_it_cannot_be_honoured(game, options, message):
    with pytest.raises(ValueError, match=message):
        SearchAgent(game=game, **options)


def test_playouts_engine_is_refused_for_a_rollout_agent_without_an_array_version(monkeypatch):
    from rummy_env.agents.romme.agents import RommeHeuristicAgent

    monkeypatch.setattr(RommeHeuristicAgent, "batch_policy", lambda self: None)
    with pytest.raises(ValueError, match="the rollout agent 'heuristic' has no array version"):
        SearchAgent(game="romme", playouts="engine")


def test_the_option_is_taken_from_a_spec():
    assert agents.make("search:simulations=8,playouts=python", game="basic").playouts == "python"
    with pytest.raises(ValueError, match="playouts must be one of"):
        agents.make("search:playouts=fast", game="basic")
