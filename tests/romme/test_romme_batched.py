"""Rommé tournaments played many hands at once (``Game.batched``): the batch player steps
hands on Rommé's vector engine with ``random``'s array policy, every hand replays through
the pure game to the same result, and a tournament writes the same results file as one
hand at a time."""

import numpy as np
import pytest

from rummy_env import agents
from rummy_env.core.game import get_game
from rummy_env.romme.game import RommeState
from engine_checks import check_batched_tournament_results

ROMME = get_game("romme")


def test_the_random_agent_and_its_array_policy_pick_the_same():
    rng = np.random.default_rng(0)
    engine = ROMME.vector(6, 3, seed=0, encoding=None)
    engine.reset()
    agent = agents.make("random", game="romme")
    policy = agent.batch_policy()
    keys = rng.integers(0, 2**63, 6, dtype=np.uint64)
    rows = np.arange(6)
    for decision in range(40):
        actions = policy(engine, rows, keys, np.full(6, decision))
        mask = engine.action_mask()
        for g in range(6):
            agent.reset(seed=int(keys[g]))
            agent.decision_index = decision
            assert actions[g] == agent.act({"action_mask": mask[g]}, {}), (decision, g)
        engine.step(actions)


@pytest.mark.parametrize("n, rules", [(2, None), (3, "romme_40_run"), (6, None)])
def test_the_batch_player_deals_the_decks_given_and_keeps_every_action(n, rules):
    """Hands played many at once (4 at a time, rows dealt again as hands finish) replay to
    the same results through the pure game."""
    rng = np.random.default_rng(n)
    m = 9
    size = ROMME.deck_size_of(rules)
    decks = np.stack([rng.permutation(size) for _ in range(m)])
    dealers = rng.integers(0, n, m)
    policy = agents.make("random", game="romme").batch_policy()
    seats = np.zeros((m, n), dtype=int)
    keys = rng.integers(0, 2**63, (m, n), dtype=np.uint64)
    done = [hand for hands in ROMME.play_batched(rules, decks, dealers, seats, keys, [policy], width=4)
            for hand in hands]
    assert sorted(h.index for h in done) == list(range(m))
    for hand in done:
        state = ROMME.deal(ROMME.load_rules(rules), n, deck=decks[hand.index].tolist(), dealer=int(dealers[hand.index]))
        assert isinstance(state, RommeState)
        for action in hand.actions:
            state.step(action)
        assert state.is_over and state.result == hand.result


def test_the_batch_player_refuses_bad_input():
    policy = agents.make("random", game="romme").batch_policy()
    deck = np.arange(108)[None]
    with pytest.raises(ValueError, match=r"seats must have a column per player \(2..6\), got shape \(1, 7\)"):
        ROMME.play_batched(None, deck, np.ones(1), np.zeros((1, 7)), np.zeros((1, 7)), [policy])


@pytest.mark.parametrize("players", [2, 4])
def test_a_tournament_played_many_hands_at_once_gives_the_same_results_file(tmp_path, players):
    check_batched_tournament_results(tmp_path, ["random", "random:seed=3", "random:seed=5", "random:seed=9"], "romme", players)
