"""No hidden information leaks in Basic Rummy: a player's observation, information set and
agent actions do not change when the cards they cannot know (other players' unknown
cards, the order of a stock not yet turned over) are dealt differently. Every phase, every
seat, 2 to 4 players."""

import numpy as np
import pytest

from conftest import play_checking_no_peeking
from rummy_env import rummy_v0
from rummy_env.basic import encoding as rummy_encoding
from rummy_env.core.cards import mask_to_cards
from rummy_env.basic.game import MELD, BasicRummyState, Phase


def redeal_hidden(s: BasicRummyState, player: int, rng: np.random.Generator) -> BasicRummyState:
    """A copy of ``s`` with the cards ``player`` cannot see shuffled among their places."""
    t = s.clone()
    shown = s.result is not None and s.result.winner is not None
    others = [q for q in range(s.num_players) if q != player]
    hidden = {q: [] if shown else mask_to_cards(s.hands[q] & ~s.known[q]) for q in others}
    stock = [] if s.stock_public else list(s.stock)
    pool = [c for q in others for c in hidden[q]] + stock
    rng.shuffle(pool)
    for q in others:
        k = len(hidden[q])
        t.hands[q] = (s.hands[q] & ~sum(1 << c for c in hidden[q])) | sum(1 << c for c in pool[:k])
        pool = pool[k:]
    if not s.stock_public:
        t.stock = pool
    t._legal = None
    return t


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("enc", rummy_encoding.ENCODINGS)
def test_observations_ignore_hidden_cards_in_every_phase(n, enc):
    rng = np.random.default_rng(n)
    env = rummy_v0.raw_env(num_players=n, encoding=enc, rules={"max_turns": 120})
    phases, public_stock, changed, views = set(), False, 0, 0
    for game in range(12):
        env.reset(seed=game)
        while True:
            g = env.game
            phases.add(g.phase)
            public_stock |= g.stock_public
            for seat, agent in enumerate(env.possible_agents):
                real, info = env.observe(agent), g.information_set(seat)
                env.game = redeal_hidden(g, seat, rng)
                if not (g.stock_public or g.is_over):  # else little or nothing is hidden
                    changed += env.game.hands != g.hands or env.game.stock != g.stock
                    views += 1
                alt = env.observe(agent)
                assert env.game.information_set(seat) == info
                env.game = g
                np.testing.assert_array_equal(real["observation"], alt["observation"])
                np.testing.assert_array_equal(real["action_mask"], alt["action_mask"])
            if g.is_over:
                break
            legal = g.legal_actions()
            plays = [a for a in legal if a >= MELD]
            env.step(int(rng.choice(plays)) if plays and rng.random() < 0.9 else int(rng.choice(legal)))
    assert phases == set(Phase) and public_stock and changed > 0.95 * views  # the redeals did change the cards


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("spec", ["rummy-random", "rummy-heuristic"])
def test_no_agent_peeks_at_hidden_cards(spec, n):
    """Same seed, same information set, other hidden cards: the same action, at every
    table size, with the env's own info (a match's scores and earlier results included)."""
    rng = np.random.default_rng(0)
    env = rummy_v0.raw_env(num_players=n, episode="match", rules={"target_score": 60, "max_turns": 80})
    checked = sum(play_checking_no_peeking(env, spec, game, redeal_hidden, rng, 300)[0] for game in range(2))
    assert checked > 100



@pytest.mark.parametrize("n", [2, 3, 4])
def test_infos_hold_only_the_players_own_information_and_public_results(n):
    """Every info entry is the agent's own information set, the rules, the game name or
    a public hand/match result (hands shown only after someone went out)."""
    allowed = {"information_set", "rules", "game", "hand_result", "hand_results", "match_points", "match_result"}
    env = rummy_v0.raw_env(num_players=n, episode="match", rules={"target_score": 40, "max_turns": 60})
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
