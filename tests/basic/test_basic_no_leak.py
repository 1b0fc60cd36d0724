"""No hidden information leaks in Basic Rummy: a player's observation, information set and
agent actions do not change when the cards they cannot know (other players' unknown
cards, the order of a stock not yet turned over) are dealt differently. Every phase, every
seat, 2 to 4 players."""

import numpy as np
import pytest

from conftest import assert_seats_see_nothing_hidden, play_checking_no_peeking
from rummy_env import basic_rummy_v0
from rummy_env.basic import encoding as rummy_encoding
from rummy_env.basic.game import MELD, Phase


def redeal_hidden(s, player: int, rng: np.random.Generator):
    """The cards ``player`` cannot see dealt otherwise (the state's own ``redeal_hidden``)."""
    return s.redeal_hidden(player, rng)


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("enc", rummy_encoding.ENCODINGS)
def test_observations_ignore_hidden_cards_in_every_phase(n, enc):
    rng = np.random.default_rng(n)
    env = basic_rummy_v0.raw_env(num_players=n, encoding=enc, rules={"max_turns": 120})
    phases, public_stock, changed, views = set(), False, 0, 0
    for game in range(12):
        env.reset(seed=game)
        while True:
            g = env.game
            phases.add(g.phase)
            public_stock |= g.stock_public
            moved, redeals = assert_seats_see_nothing_hidden(env, rng)
            if not (g.stock_public or g.is_over):  # else little or nothing is hidden
                changed, views = changed + moved, views + redeals
            if g.is_over:
                break
            legal = g.legal_actions()
            plays = [a for a in legal if a >= MELD]
            env.step(int(rng.choice(plays)) if plays and rng.random() < 0.9 else int(rng.choice(legal)))
    assert phases == set(Phase) and public_stock and changed > 0.95 * views  # the redeals did change the cards


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("spec", ["basic/random", "basic/heuristic"])
def test_no_agent_peeks_at_hidden_cards(spec, n):
    """Same seed, same information set, other hidden cards: the same action, at every
    table size, with the env's own info (a match's scores and earlier results included)."""
    rng = np.random.default_rng(0)
    env = basic_rummy_v0.raw_env(num_players=n, episode="match", rules={"target_score": 60, "max_turns": 80})
    checked = sum(play_checking_no_peeking(env, spec, game, redeal_hidden, rng, 300)[0] for game in range(2))
    assert checked > 100



@pytest.mark.parametrize("n", [2, 3, 4])
def test_infos_hold_only_the_players_own_information_and_public_results(n):
    """Every info entry is the agent's own information set, the rules, the game name or
    a public hand/match result (hands shown only after someone went out)."""
    allowed = {"information_set", "rules", "game", "hand_result", "hand_results", "match_points", "match_result"}
    env = basic_rummy_v0.raw_env(num_players=n, episode="match", rules={"target_score": 40, "max_turns": 60})
    rng = np.random.default_rng(n)
    ended = 0
    for game in range(3):
        env.reset(seed=game)
        for name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            g = env.game
            for seat, agent in enumerate(env.possible_agents):
                info = env.infos.get(agent, {})  # agents leave once terminated
                assert set(info) <= allowed, set(info) - allowed
                if "information_set" in info:
                    assert info["information_set"].player == seat
                    if agent == env.agent_selection and not term:
                        assert info["information_set"] == g.information_set(seat)  # fresh, not another seat's
                for result in info.get("hand_results", []) + ([info["hand_result"]] if "hand_result" in info else []):
                    ended += 1
                    if result["winner"] is None:  # a stalemate shows nothing
                        assert result["hands_left"] == [""] * n and set(result["penalties"]) == {0}
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            plays = legal[legal >= MELD]
            env.step(int(rng.choice(plays if plays.size and rng.random() < 0.9 else legal)))
    assert ended > 0
