"""PettingZoo's removed ``pettingzoo.classic.gin_rummy_v4``, played on this library's engine.

| Import             | ``from rummy_env.compat import gin_rummy_v4``                     |
|--------------------|-------------------------------------------------------------------|
| Actions            | Discrete(110), masked, RLCard's ids                               |
| Agents             | ``agents = ['player_0', 'player_1']``                             |
| Observation shape  | (4, 52); (5, 52) with ``opponents_hand_visible=True``             |
| Observation values | int8 0/1, cards in RLCard's order                                 |
| Action mask        | int8 (110,)                                                       |

Why: PettingZoo shipped ``gin_rummy_v4`` (a wrapper of RLCard 1.0.5's gin rummy) until
1.27 removed it, and code and benchmarks still import it. Changing the import line to
``from rummy_env.compat import gin_rummy_v4`` keeps such code running: the same spaces,
action ids, observation planes, agent names, ``env()`` arguments, ``metadata``, reward
convention and step structure (the two "score player" steps that end every hand), on
this library's exact engine (``rummy_env.gin.game``) under the ``rlcard`` rules preset.
docs/compat.md is the page for people: every difference from the old env is there.

Arguments (by name): ``env(knock_reward=0.5, gin_reward=1.0, opponents_hand_visible=False,
render_mode=None, screen_height=1000, rules="rlcard")``; ``screen_height`` is accepted
and unused (the old env's pygame window size), ``rules`` is this library's: any Gin
rules with the deal and turns RLCard plays (``check_rules``).

Actions (RLCard's ``action_event.py``; card ids ``rlcard_card``):

| id       | action                                                                 |
|----------|------------------------------------------------------------------------|
| 0        | score player 0 (the first step after a hand ends; player_0 only)       |
| 1        | score player 1 (the second; player_1 only; the episode then ends)      |
| 2        | draw a card from the stock                                             |
| 3        | pick up the top discard                                                |
| 4        | declare a dead hand (2 cards left in the stock, or the turn limit)     |
| 5        | gin (the only legal action whenever a gin is possible)                 |
| 6 + r    | discard card r                                                         |
| 58 + r   | knock, putting card r face down                                        |

Observation planes (RLCard's ``GinRummyEnv._extract_state``), each 52 cards: 0 the
agent's hand, 1 the top discard, 2 the rest of the discard pile, 3 the opponent's known
cards (taken from the pile and still held), 4 (only with ``opponents_hand_visible``) the
unknown cards: the stock and the opponent's other cards. All zeros once the hand is over.

Rewards, at the end (after both score steps): ``knock_reward`` to a player who knocked,
``gin_reward`` to one who went gin, and ``-deadwood / 100`` (least deadwood of their 10
cards, no lay-offs) to every other player, both players after a dead hand.
"""

from __future__ import annotations

from typing import Any, Optional, Union

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from rummy_env.core import melds
from rummy_env.core.cards import NUM_CARDS, NUM_RANKS, card_str, distinct_cards_mask, format_hand
from rummy_env.core.errors import IllegalActionError
from rummy_env.core.render import text_to_rgb
from rummy_env.core.state import card_ids
from rummy_env.gin.game import BIG_GIN, DISCARD, DRAW_STOCK, KNOCK, PASS, TAKE_DISCARD, GinRummyState, Phase
from rummy_env.gin.rules import Rules, RulesSpec, load_rules

__all__ = ["env", "raw_env", "action_name", "rlcard_card", "check_rules", "IllegalActionError", "NUM_ACTIONS"]

NUM_ACTIONS = 110
SCORE_PLAYER_0 = 0
SCORE_PLAYER_1 = 1
DRAW_CARD = 2
PICK_UP_DISCARD = 3
DECLARE_DEAD_HAND = 4
GIN = 5
DISCARD_CARD = 6  # + RLCard card id
KNOCK_CARD = 58  # + RLCard card id
NAMES = ("score player 0", "score player 1", "draw card", "pick up discard", "declare dead hand", "gin")

# The rule options that make the engine play RLCard's deal and turns, and why (check_rules).
REQUIRED = {
    "first_upcard_pass": (False, "RLCard deals no upcard to offer: the non-dealer starts with 11 cards and discards"),
    "oklahoma": (False, "RLCard deals no upcard to set the knock limit"),
    "discard_taken_card": (True, "RLCard's first player may discard any of 11 cards, and a card just picked up may "
                                 "be knocked with"),
    "max_upcard_draws": (0, "RLCard has no limit on picking up discards"),
}

PLAY, DEAD_HAND, SCORE_0, SCORE_1, OVER = "play", "dead hand", "score 0", "score 1", "over"


def rlcard_card(card: int) -> int:
    """RLCard's id of this library's card id ``card``, and this library's of RLCard's (the
    map is its own inverse): ranks ace..king in both, but RLCard orders the suits spades,
    hearts, diamonds, clubs and this library clubs, diamonds, hearts, spades."""
    if not 0 <= card < NUM_CARDS:
        raise ValueError(f"card id must be 0..{NUM_CARDS - 1}, got {card!r}")
    return (3 - card // NUM_RANKS) * NUM_RANKS + card % NUM_RANKS


_TO_RLCARD = np.array([rlcard_card(c) for c in range(NUM_CARDS)])


def action_name(action: int) -> str:
    """What one of the old env's action ids means, e.g. ``'knock 7D'`` (58 + RLCard's id of 7D)."""
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)) \
            or not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action must be an integer in 0..{NUM_ACTIONS - 1}, got {action!r}")
    if action < DISCARD_CARD:
        return NAMES[action]
    kind, first = ("discard", DISCARD_CARD) if action < KNOCK_CARD else ("knock", KNOCK_CARD)
    return f"{kind} {card_str(rlcard_card(int(action) - first))}"


def check_rules(rules: RulesSpec) -> Rules:
    """``rules`` loaded, if they let the engine play RLCard's deal and turns; else a
    ValueError naming the option, the value needed and why (``REQUIRED``)."""
    rules = load_rules(rules)
    for name, (value, why) in REQUIRED.items():
        if getattr(rules, name) != value:
            raise ValueError(f"gin_rummy_v4 needs rule option {name} = {value!r} ({why}), got {getattr(rules, name)!r}")
    return rules


def _plane(mask: int) -> np.ndarray:
    """A 52-bit card mask as RLCard's plane: int8 (52,), RLCard's card order."""
    bits = np.unpackbits(np.frombuffer(int(mask).to_bytes(8, "little"), dtype=np.uint8), bitorder="little")
    return bits[:NUM_CARDS][_TO_RLCARD].astype(np.int8)


def env(**kwargs: Any) -> AECEnv:
    """The env wrapped as the old ``gin_rummy_v4.env()`` was: an illegal move ends the game
    with -1 to the mover (``TerminateIllegalWrapper``), out-of-range actions are asserted
    against and the call order is enforced."""
    e: AECEnv = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)


class raw_env(AECEnv):
    """``raw_env(knock_reward=0.5, gin_reward=1.0, opponents_hand_visible=False, render_mode=None,
    screen_height=1000, rules="rlcard")``: see the module docstring. An illegal action
    raises ``IllegalActionError`` naming the legal ones."""

    metadata = {"render_modes": ["human", "rgb_array"], "name": "gin_rummy_v4", "is_parallelizable": False,
                "render_fps": 1}

    def __init__(
        self,
        knock_reward: float = 0.5,
        gin_reward: float = 1.0,
        opponents_hand_visible: Optional[bool] = False,
        render_mode: Optional[str] = None,
        screen_height: Optional[int] = 1000,
        rules: RulesSpec = "rlcard",
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.rules = check_rules(rules)
        self._knock_reward = float(knock_reward)
        self._gin_reward = float(gin_reward)
        self._opponents_hand_visible = bool(opponents_hand_visible)
        self.render_mode = render_mode
        self.screen_height = screen_height  # the old env's pygame window; frames here are text (render)
        self._num_planes = 5 if self._opponents_hand_visible else 4
        self.agents = ["player_0", "player_1"]
        self.possible_agents = self.agents[:]
        shape = (self._num_planes, NUM_CARDS)
        self.observation_spaces = {
            a: spaces.Dict({"observation": spaces.Box(low=0.0, high=1.0, shape=shape, dtype=np.int8),
                            "action_mask": spaces.Box(low=0, high=1, shape=(NUM_ACTIONS,), dtype=np.int8)})
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self._rng = np.random.default_rng()
        self.game: Optional[GinRummyState] = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ API

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None) -> None:
        """Deal a hand as RLCard does: 11 cards to the non-dealer, who moves first and
        discards, 10 to the dealer, no upcard. ``seed`` reseeds the env. Options, as
        ``gin_rummy_v0`` takes them: ``dealer`` (0 or 1; else drawn) and ``deck`` (52 of
        this library's card ids: 10 to the non-dealer, 10 to the dealer, the non-dealer's
        11th, then the stock from the top); other keys are ignored."""
        if seed is not None:
            if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
                raise ValueError(f"reset seed must be a whole number >= 0 or None, got {seed!r}")
            self._rng = np.random.default_rng(seed)
        options = dict(options or {})
        dealer = options.get("dealer", int(self._rng.integers(2)))
        if isinstance(dealer, (bool, np.bool_)) or not isinstance(dealer, (int, np.integer)) or dealer not in (0, 1):
            raise ValueError(f"reset option dealer must be 0 or 1, got {dealer!r}")
        deck = options.get("deck")
        if deck is None:
            game = GinRummyState.new_hand(self.rules, seed=self._rng, dealer=int(dealer))
        else:
            game = GinRummyState.from_deck(card_ids(deck, NUM_CARDS, "reset option deck"), self.rules, int(dealer))
        # RLCard's 11th card: the engine's upcard, taken by the non-dealer at once. It was
        # dealt face down there, so it stays hidden from the dealer (``_dealt``) until it
        # leaves the non-dealer's hand.
        self._dealt: Optional[int] = game.discard_pile[-1]
        game.step(TAKE_DISCARD)
        self.game = game
        self._phase = PLAY
        self._dead_seat = 0  # who must declare the dead hand (phase DEAD_HAND)
        self._went_out: Optional[tuple[int, int]] = None  # (seat, KNOCK_CARD or GIN)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._legal_now: Optional[list[int]] = None
        self.agent_selection = self.agents[self._mover()]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s planes and, for the agent to move, its mask (zeros for the other:
        the old env gave any agent the mover's planes and mask, a leak not kept)."""
        assert self.game is not None, "call reset() first"
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        if self._phase == OVER:
            return {"observation": np.zeros((self._num_planes, NUM_CARDS), dtype=np.int8), "action_mask": mask}
        seat = self.possible_agents.index(agent)
        if seat == self._mover():
            mask[self.legal_actions()] = 1
        return {"observation": self._planes(seat), "action_mask": mask}

    def legal_actions(self) -> list[int]:
        """The old env's legal action ids for the agent to move, ascending."""
        if self._legal_now is None:
            self._legal_now = self._compute_legal()
        return list(self._legal_now)

    def step(self, action: Optional[int]) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        assert self.game is not None, "call reset() first"
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)) \
                or not 0 <= action < NUM_ACTIONS:
            raise IllegalActionError(f"action must be an integer action id 0..{NUM_ACTIONS - 1}, got {action!r}")
        action = int(action)
        legal = self.legal_actions()
        if action not in legal:
            names = ", ".join(f"{a} ({action_name(a)})" for a in legal)
            raise IllegalActionError(f"action {action} ({action_name(action)}) is not legal for {agent}; "
                                     f"legal: {names}")
        seat = self._mover()
        if self._phase == PLAY:
            self._play(seat, action)
        elif self._phase == DEAD_HAND:
            self._phase = SCORE_0
        elif self._phase == SCORE_0:
            self._phase = SCORE_1
        else:
            self._phase = OVER
        self._legal_now = None
        self._cumulative_rewards[agent] = 0.0
        if self._phase == OVER:  # as RLCard's base: player_1 scored last, then the dead agents step out
            self.rewards = dict(zip(self.agents, self._payoffs()))
            self.terminations = dict.fromkeys(self.agents, True)
            self.agent_selection = self.agents[SCORE_PLAYER_1]
        else:
            self.agent_selection = self.agents[self._mover()]
        self._accumulate_rewards()
        self._deads_step_first()
        if self.render_mode == "human":
            self.render()

    def render(self) -> Union[np.ndarray, None]:
        """The table as text (both hands: a spectator's view): printed for ``human``, drawn
        as an image (uint8, height x width x 3) for ``rgb_array``."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='human' or 'rgb_array'")
            return None
        assert self.game is not None, "call reset() first"
        text = self._text()
        if self.render_mode == "human":
            print(text)
            return None
        return text_to_rgb(text, 4)

    def close(self) -> None:
        """Nothing to release: the env holds no files, windows or processes."""

    # ------------------------------------------------------------------ the old env's turns

    def _mover(self) -> int:
        assert self.game is not None
        if self._phase == PLAY:
            return self.game.current_player
        return {DEAD_HAND: self._dead_seat, SCORE_0: 0}.get(self._phase, 1)

    def _gin_cards(self) -> list[int]:
        """The cards whose knock leaves no deadwood (a gin), legal for the engine, by RLCard id."""
        game = self.game
        assert game is not None
        after = melds.discard_deadwood(game.hands[game.current_player], aces_high=self.rules.aces_high,
                                       five_under_ten=self.rules.five_under_ten)
        cards = [a - KNOCK for a in game.legal_actions() if KNOCK <= a < BIG_GIN and after[a - KNOCK] == 0]
        return sorted(cards, key=rlcard_card)

    def _compute_legal(self) -> list[int]:
        if self._phase != PLAY:
            return {DEAD_HAND: [DECLARE_DEAD_HAND], SCORE_0: [SCORE_PLAYER_0], SCORE_1: [SCORE_PLAYER_1]}.get(
                self._phase, [])
        game = self.game
        assert game is not None
        legal = game.legal_actions()
        if game.phase == Phase.DRAW:  # PASS is legal only at the wall: there it declares the dead hand
            return sorted({DRAW_STOCK: DRAW_CARD, TAKE_DISCARD: PICK_UP_DISCARD, PASS: DECLARE_DEAD_HAND}[a]
                          for a in legal)
        if self._gin_cards():  # RLCard offers nothing but the gin when one is possible
            return [GIN]
        out = []
        for a in legal:
            if DISCARD <= a < KNOCK:
                # the card just picked up may not go back (RLCard); the first turn's "taken"
                # card is RLCard's 11th dealt card, free to discard
                if a - DISCARD != game.taken_card or game.turn == 0:
                    out.append(DISCARD_CARD + rlcard_card(a - DISCARD))
            elif KNOCK <= a < BIG_GIN:
                out.append(KNOCK_CARD + rlcard_card(a - KNOCK))
        return sorted(out)

    def _play(self, seat: int, action: int) -> None:
        """Play ``action`` on the engine; a hand it ends goes on to the old env's endings."""
        game = self.game
        assert game is not None
        if action == GIN:
            move = KNOCK + self._gin_cards()[0]
        elif action >= KNOCK_CARD:
            move = KNOCK + rlcard_card(action - KNOCK_CARD)
        elif action >= DISCARD_CARD:
            move = DISCARD + rlcard_card(action - DISCARD_CARD)
        else:
            move = {DRAW_CARD: DRAW_STOCK, PICK_UP_DISCARD: TAKE_DISCARD, DECLARE_DEAD_HAND: PASS}[action]
        game.step(move)
        nondealer = 1 - game.dealer
        if self._dealt is not None and not game.hands[nondealer] >> self._dealt & 1:
            self._dealt = None
        if not game.is_over:
            return
        if game.result.outcome != "draw":  # a knock or gin: the score steps follow
            self._went_out = (seat, GIN if action == GIN else KNOCK_CARD)
            self._phase = SCORE_0
        elif action == DECLARE_DEAD_HAND:  # the pass at the wall
            self._phase = SCORE_0
        else:  # drawn at a discard (the turn limit, or the wall without wall_knock): the next player declares it
            self._dead_seat = 1 - seat
            self._phase = DEAD_HAND

    def _payoffs(self) -> list[float]:
        """RLCard's payoffs under PettingZoo's rewards: the fixed reward to who went out,
        minus a hundredth of the least deadwood of their cards to each other player."""
        game = self.game
        assert game is not None
        out = []
        for seat in (0, 1):
            if self._went_out is not None and self._went_out[0] == seat:
                out.append(self._gin_reward if self._went_out[1] == GIN else self._knock_reward)
            else:
                deadwood = melds.min_deadwood(game.hands[seat], aces_high=self.rules.aces_high,
                                              five_under_ten=self.rules.five_under_ten)
                out.append(-deadwood / 100)
        return out

    # ------------------------------------------------------------------ observations and text

    def _planes(self, seat: int) -> np.ndarray:
        game = self.game
        assert game is not None
        opp = 1 - seat
        pile = game.discard_pile
        known = game.known[opp]
        if self._dealt is not None and opp != game.dealer:
            known &= ~(1 << self._dealt)
        masks = [
            game.hands[seat],
            1 << pile[-1] if pile else 0,
            distinct_cards_mask(pile[:-1]),
            known,
            distinct_cards_mask(game.stock) | (game.hands[opp] & ~known),
        ]
        return np.stack([_plane(m) for m in masks[: self._num_planes]])

    def _text(self) -> str:
        game = self.game
        assert game is not None
        lines = []
        for seat in (0, 1):
            dealer = " (dealer)" if seat == game.dealer else ""
            deadwood = melds.min_deadwood(game.hands[seat], aces_high=self.rules.aces_high,
                                          five_under_ten=self.rules.five_under_ten)
            lines.append(f"player_{seat}{dealer}: {format_hand(game.hands[seat], symbols=True)}  deadwood {deadwood}")
        top = card_str(game.discard_pile[-1], symbols=True) if game.discard_pile else "-"
        lines.append(f"discard pile: {len(game.discard_pile)}, top {top}; stock: {len(game.stock)}")
        if self._phase == OVER:
            rewards = ", ".join(f"player_{s} {r:+g}" for s, r in enumerate(self._payoffs()))
            ended = "dead hand" if self._went_out is None else \
                f"player_{self._went_out[0]} {'went gin' if self._went_out[1] == GIN else 'knocked'}"
            lines.append(f"hand over: {ended}; rewards {rewards}")
        else:
            moves = ", ".join(f"{a} {action_name(a)}" for a in self.legal_actions()[:6])
            more = " ..." if len(self.legal_actions()) > 6 else ""
            lines.append(f"player_{self._mover()} to move: {moves}{more}")
        return "\n".join(lines)
