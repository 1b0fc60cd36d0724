"""``rummy_env.compat.gin_rummy_v4``: PettingZoo 1.24.3's removed ``gin_rummy_v4`` (RLCard 1.0.5)
on this library's engine.

The old env's spaces, metadata and action meanings are written out here as constants, read
from PettingZoo 1.24.3's ``pettingzoo/classic/rlcard_envs/gin_rummy.py`` and
``rlcard_base.py`` and RLCard 1.0.5's ``games/gin_rummy/utils/action_event.py``,
``games/base.py`` (suits S, H, D, C; ranks A..K) and ``envs/gin_rummy.py``, so the test
needs neither installed. The two were also played in lockstep (a script outside the
repository, docs/compat.md says what it found): the same masks, observations and rewards
at every step but for the differences the page lists.
"""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo.test import api_test, seed_test

from conftest import DICT_OBS_WARNINGS
from rummy_env.compat import gin_rummy_v4
from rummy_env.core.cards import mask_to_cards, parse_cards
from rummy_env.core.errors import IllegalActionError
from rummy_env.gin.rules import PRESETS, load_rules

# PettingZoo 1.24.3, gin_rummy.py: raw_env.metadata
OLD_METADATA = {"render_modes": ["human", "rgb_array"], "name": "gin_rummy_v4", "is_parallelizable": False,
                "render_fps": 1}
OLD_AGENTS = ["player_0", "player_1"]
# rlcard_base.py: Box(0.0, 1.0, (planes, 52), int8) (RLCard's int64 planes cast to int8) and the mask
OLD_OBSERVATION_SPACES = {
    planes: spaces.Dict({"observation": spaces.Box(0.0, 1.0, (planes, 52), np.int8),
                         "action_mask": spaces.Box(0, 1, (110,), np.int8)})
    for planes in (4, 5)
}
RLCARD_RANKS, RLCARD_SUITS = "A23456789TJQK", "SHDC"  # rlcard/games/base.py Card.valid_rank / valid_suit
# action_event.py: the ids of the six fixed actions, then discard 6 + card, knock 58 + card
OLD_ACTIONS = {0: "score player 0", 1: "score player 1", 2: "draw card", 3: "pick up discard",
               4: "declare dead hand", 5: "gin"}
# PettingZoo's docstring table, spot checks: 6 A-Spades, 18 K-Spades, 19 A-Hearts, 57 K-Clubs, 58 knock A-Spades...
OLD_DOC_EXAMPLES = {6: "discard AS", 18: "discard KS", 19: "discard AH", 31: "discard KH", 32: "discard AD",
                    44: "discard KD", 45: "discard AC", 57: "discard KC", 58: "knock AS", 70: "knock KS",
                    71: "knock AH", 83: "knock KH", 84: "knock AD", 96: "knock KD", 97: "knock AC", 109: "knock KC"}


def rl(card_text: str) -> int:
    """RLCard's card id of a card written like ``7D``: rank index + 13 * suit index (S, H, D, C)."""
    return RLCARD_RANKS.index(card_text[0]) + 13 * RLCARD_SUITS.index(card_text[1])


def deck(non_dealer: str, dealer: str, eleventh: str, stock: str = "") -> list[int]:
    """A deal order for ``reset(options={"deck": ...})``: the non-dealer's 10 cards, the
    dealer's 10, the non-dealer's 11th, the stock from the top; the other cards after it."""
    named = parse_cards(non_dealer) + parse_cards(dealer) + parse_cards(eleventh) + parse_cards(stock)
    return named + [c for c in range(52) if c not in named]


def cards_of(plane: np.ndarray) -> set[str]:
    return {RLCARD_RANKS[i % 13] + RLCARD_SUITS[i // 13] for i in np.flatnonzero(plane)}


def legal(env) -> list[int]:
    return [int(a) for a in np.flatnonzero(env.observe(env.agent_selection)["action_mask"])]


def run_api_test(env) -> None:
    """PettingZoo's api_test, every warning an error but the dict-observation ones and the
    all-zero observation: the old env's observations are all zeros once the hand is over."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for message in (*DICT_OBS_WARNINGS, "Observation numpy array is all zeros"):
            warnings.filterwarnings("ignore", message=message)
        api_test(env, num_cycles=400, verbose_progress=False)


# ---------------------------------------------------------------------------- the old env's interface


@pytest.mark.parametrize("visible, planes", [(False, 4), (True, 5)])
def test_spaces_agents_and_metadata_are_the_old_envs(visible, planes):
    env = gin_rummy_v4.env(opponents_hand_visible=visible)
    assert env.possible_agents == OLD_AGENTS
    assert env.unwrapped.metadata == OLD_METADATA
    for agent in OLD_AGENTS:
        assert env.observation_space(agent) == OLD_OBSERVATION_SPACES[planes]
        assert env.action_space(agent) == spaces.Discrete(110)
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    assert obs["observation"].shape == (planes, 52) and obs["observation"].dtype == np.int8
    assert obs["action_mask"].dtype == np.int8


def test_action_names_are_rlcards_ids():
    for action, name in OLD_ACTIONS.items():
        assert gin_rummy_v4.action_name(action) == name
    for r in range(52):
        card = RLCARD_RANKS[r % 13] + RLCARD_SUITS[r // 13]
        assert gin_rummy_v4.action_name(6 + r) == f"discard {card}"
        assert gin_rummy_v4.action_name(58 + r) == f"knock {card}"
    for action, name in OLD_DOC_EXAMPLES.items():
        assert gin_rummy_v4.action_name(action) == name
    with pytest.raises(ValueError, match="action must be an integer in 0..109, got 110"):
        gin_rummy_v4.action_name(110)


def test_old_keyword_arguments_are_taken():
    env = gin_rummy_v4.env(knock_reward=0.25, gin_reward=2.0, opponents_hand_visible=False, render_mode="rgb_array",
                           screen_height=600)
    env.reset(seed=1)
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    with pytest.raises(ValueError, match="render_mode must be None or one of"):
        gin_rummy_v4.raw_env(render_mode="ansi")


def test_pettingzoo_api_test():
    run_api_test(gin_rummy_v4.env())
    run_api_test(gin_rummy_v4.env(opponents_hand_visible=True))


def test_seeds_repeat_episodes():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        seed_test(gin_rummy_v4.env, num_cycles=300)


# ---------------------------------------------------------------------------- actions mean what they meant


def test_the_first_turn_is_rlcards_eleven_cards_and_a_discard():
    env = gin_rummy_v4.env()
    env.reset(options={"dealer": 1, "deck": deck("KH QH 9S 8C 7C 5S 4C 3S 2D AH", "KS QS 6C 8D 7D 5H 4D 3H 2C AS",
                                                  "JS", "TD 9D")})
    assert env.agent_selection == "player_0"  # the non-dealer moves first, holding 11 cards, with no upcard
    obs = env.observe("player_0")["observation"]
    assert cards_of(obs[0]) == {"KH", "QH", "9S", "8C", "7C", "5S", "4C", "3S", "2D", "AH", "JS"}
    assert obs.shape == (4, 52) and obs.sum() == 11  # no discard pile, nothing known of the opponent
    # any of the 11 may be discarded, the 11th included; nothing else (no knock, no gin)
    assert legal(env) == sorted(6 + rl(c) for c in cards_of(obs[0]))
    env.step(6 + rl("JS"))
    dealer = env.observe("player_1")["observation"]
    assert cards_of(dealer[1]) == {"JS"} and not dealer[2].any()
    assert not dealer[3].any()  # the 11th card was dealt face down: the dealer does not know it
    assert legal(env) == [2, 3]
    env.step(3)  # pick up JS: it may not go back on the pile, and the opponent knows it
    assert 6 + rl("JS") not in legal(env) and all(6 <= a < 58 for a in legal(env)) and len(legal(env)) == 10
    assert cards_of(env.observe("player_1")["observation"][0]) >= {"JS"}
    env.step(6 + rl("KS"))
    p0 = env.observe("player_0")["observation"]
    assert cards_of(p0[1]) == {"KS"} and cards_of(p0[3]) == {"JS"}
    assert legal(env) == [2, 3]
    env.step(2)  # draw: the top of the stock, TD
    assert cards_of(env.observe("player_0")["observation"][0]) >= {"TD"}


def knock_deal() -> list[int]:
    # player_0 (non-dealer): runs AC-2C-3C and 4D-5D-6D, three sevens, 2H and KS: knock with KS, 2 deadwood.
    # player_1 (dealer): no meld; 7C would lay off on the sevens, but the old rewards count no lay-offs.
    return deck("AC 2C 3C 4D 5D 6D 7H 7S 7D 2H", "KH QH 9S 8C 7C 5S 4C 3S 2D AH", "KS")


def play_out(env, actions: list[int]) -> dict[str, float]:
    """Play ``actions`` in order, then step the terminated agents out; each agent's reward."""
    rewards = {}
    for action in actions:
        env.step(action)
    for agent in env.agent_iter():
        _, reward, terminated, truncated, _ = env.last()
        assert terminated and not truncated
        rewards[agent] = reward
        env.step(None)
    return rewards


def test_a_knock_pays_the_knock_reward_and_the_loser_its_deadwood_without_lay_offs():
    env = gin_rummy_v4.env()
    env.reset(seed=3, options={"dealer": 1, "deck": knock_deal()})
    knocks = [a for a in legal(env) if a >= 58]
    assert 58 + rl("KS") in knocks and 5 not in legal(env)
    env.step(58 + rl("KS"))
    # the two score steps: player_0 scores (action 0), then player_1 (action 1), then the hand is over
    assert env.agent_selection == "player_0" and legal(env) == [0]
    env.step(0)
    assert env.agent_selection == "player_1" and legal(env) == [1]
    # dealer's deadwood: K 10 + Q 10 + 9 + 8 + 7 + 5 + 4 + 3 + 2 + A 1 = 59 (7C counted: no lay-off)
    assert play_out(env, [1]) == {"player_0": 0.5, "player_1": -0.59}


def test_knock_reward_holds_after_a_seeded_reset():
    # the old env dropped knock_reward and gin_reward at reset(seed=...) (it rebuilt RLCard's env,
    # whose own payoffs are 0.2 and 1): here they always hold
    env = gin_rummy_v4.env(knock_reward=0.7)
    env.reset(seed=11, options={"dealer": 1, "deck": knock_deal()})
    assert play_out(env, [58 + rl("KS"), 0, 1]) == {"player_0": 0.7, "player_1": -0.59}


def test_gin_is_the_only_move_when_possible_and_pays_the_gin_reward():
    env = gin_rummy_v4.env(gin_reward=1.5)
    # player_1 (non-dealer here): AC-4C run, 5D-7D run, three nines, and KS: 10 cards melded
    env.reset(options={"dealer": 0, "deck": deck("AC 2C 3C 4C 5D 6D 7D 9H 9S 9D", "KH QH 8S 8C 7C 5S 4H 3S 2D AH",
                                                  "KS")})
    assert env.agent_selection == "player_1" and legal(env) == [5]
    env.step(5)
    # the hand's cards: gin put KS face down, gone from every plane
    obs = env.observe("player_0")["observation"]
    assert "KS" not in set().union(*(cards_of(p) for p in obs))
    # dealer: K 10 + Q 10 + 8 + 8 + 7 + 5 + 4 + 3 + 2 + A 1 = 58 (8S 8C without a third eight)
    assert play_out(env, [0, 1]) == {"player_0": -0.58, "player_1": 1.5}


def test_a_dead_hand_when_two_cards_are_left_costs_both_their_deadwood():
    env = gin_rummy_v4.env()
    env.reset(options={"dealer": 1, "deck": deck("KH QH 9S 8C 7C 5S 4C 3S 2D AH", "KS QS 6C 8D 7D 5H 4D 3H 2C AS",
                                                  "JS")})
    kept = {"player_0": cards_of(env.observe("player_0")["observation"][0]) - {"JS"}}
    env.step(6 + rl("JS"))
    kept["player_1"] = cards_of(env.observe("player_1")["observation"][0])
    draws = 0
    while legal(env) != [4]:  # each player draws and throws the drawn card away: the hands stay as dealt
        assert legal(env) == [2, 3]
        env.step(2)
        draws += 1
        agent = env.agent_selection
        (drawn,) = cards_of(env.observe(agent)["observation"][0]) - kept[agent]
        env.step(6 + rl(drawn))
    # 31 cards in the stock after the deal, 29 drawn: with 2 left the next player, player_0, cannot
    # draw; picking up the discard cannot make a knock, so declaring the dead hand is all there is
    assert draws == 29 and env.agent_selection == "player_0"
    # player_0: 10 + 10 + 9 + 8 + 7 + 5 + 4 + 3 + 2 + 1 = 59; player_1: 10 + 10 + 6 + 8 + 7 + 5 + 4 + 3 + 2 + 1 = 56
    assert play_out(env, [4, 0, 1]) == {"player_0": -0.59, "player_1": -0.56}


def test_the_turn_limit_makes_the_next_player_declare_a_dead_hand():
    env = gin_rummy_v4.env(rules={"preset": "rlcard", "max_turns": 2})
    env.reset(options={"dealer": 1, "deck": deck("KH QH 9S 8C 7C 5S 4C 3S 2D AH", "KS QS 6C 8D 7D 5H 4D 3H 2C AS",
                                                  "JS", "TD")})
    env.step(6 + rl("JS"))
    env.step(2)
    env.step(6 + rl("TD"))  # the second discard: the turn limit
    assert env.agent_selection == "player_0" and legal(env) == [4]
    assert play_out(env, [4, 0, 1]) == {"player_0": -0.59, "player_1": -0.56}


def test_illegal_moves_follow_the_old_wrappers_and_raw_env_names_the_legal_ones():
    env = gin_rummy_v4.env()
    env.reset(options={"dealer": 1, "deck": knock_deal()})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # TerminateIllegalWrapper's warning about the illegal move
        env.step(2)  # draw: not legal with 11 cards
    _, reward, terminated, _, _ = env.last()
    assert terminated and reward == -1
    raw = gin_rummy_v4.raw_env()
    raw.reset(options={"dealer": 1, "deck": knock_deal()})
    with pytest.raises(IllegalActionError,
                       match=r"action 2 \(draw card\) is not legal for player_0; legal: .*knock KS"):
        raw.step(2)


def test_rules_must_play_rlcards_deal_and_turns():
    assert gin_rummy_v4.raw_env().rules == PRESETS["rlcard"] == load_rules("rlcard")
    with pytest.raises(ValueError, match="gin_rummy_v4 needs rule option first_upcard_pass = False .* got True"):
        gin_rummy_v4.raw_env(rules="classic")
    with pytest.raises(ValueError, match="needs rule option discard_taken_card = True"):
        gin_rummy_v4.raw_env(rules={"preset": "rlcard", "discard_taken_card": False})


# ---------------------------------------------------------------------------- nothing hidden leaks


def redealt(env: gin_rummy_v4.raw_env, seat: int, rng: np.random.Generator) -> gin_rummy_v4.raw_env:
    """A copy of ``env`` with the cards ``seat`` cannot know dealt anew among their places:
    the opponent's cards not known (the 11th dealt card is not: it was dealt face down), the
    stock and a knocker's face-down card."""
    other = copy.deepcopy(env)
    game = other.game
    opp = 1 - seat
    known = game.known[opp]
    if env._dealt is not None and opp != game.dealer:
        known &= ~(1 << env._dealt)
    hidden = mask_to_cards(game.hands[opp] & ~known)
    face_down = [game.knock_card] if game.knock_card is not None and game.result.knocker == opp else []
    pool = hidden + list(game.stock) + face_down
    rng.shuffle(pool)
    game.hands[opp] = known | sum(1 << c for c in pool[: len(hidden)])
    game.stock = pool[len(hidden): len(hidden) + len(game.stock)]
    if face_down:
        game.knock_card = pool[-1]
    game.known[opp] = known
    other._dealt = None
    other._legal_now = None
    return other


@pytest.mark.parametrize("visible", [False, True])
def test_observations_ignore_the_opponents_hidden_cards(visible):
    rng = np.random.default_rng(7)
    env = gin_rummy_v4.raw_env(opponents_hand_visible=visible)
    phases, changed = set(), 0
    for episode in range(40):
        env.reset(seed=episode)
        while env.agents and env._phase != "over":
            phases.add(env._phase)
            for agent in env.possible_agents:
                seat = env.possible_agents.index(agent)
                if visible and env._phase in ("score 0", "score 1"):
                    continue  # plane 4 then tells which card was put face down (as the old env's did)
                mine = env.observe(agent)
                other = redealt(env, seat, rng)
                changed += other.game.hands[1 - seat] != env.game.hands[1 - seat]
                theirs = other.observe(agent)
                assert np.array_equal(mine["observation"], theirs["observation"]), (episode, agent, env._phase)
                assert np.array_equal(mine["action_mask"], theirs["action_mask"])
                assert mine["action_mask"].any() == (agent == env.agent_selection)
            moves = legal(env)
            outs = [a for a in moves if a == 5 or a >= 58]
            env.step(outs[0] if outs and rng.random() < 0.7 else int(rng.choice(moves)))
    assert phases == {"play", "score 0", "score 1"} and changed > 100
