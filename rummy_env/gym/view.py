"""The Gymnasium single-seat view of any registered game: one seat learns, agents play the others.

Why one class for every game: the view needs only what the game interface gives
(``rummy_env.core.game.Game``: ``deal``, the hand's own protocol, ``encoding``,
``num_actions``, ``min_players..max_players``), so a game gets its view by registering
(``rummy_env.gym.env_id`` names it, ``rummy_env.gym.register_views`` registers it with
Gymnasium) and every game's view behaves alike.

``SingleSeatEnv(game, num_players=None, opponent="random", seat=0, rules=None,
encoding="flat", reward="points", illegal_reward=-1.0, render_mode=None)``, also
``gymnasium.make("rummy_env/BasicRummy-v0", num_players=3, opponent="heuristic")``:

- one hand per episode, dealt on the game itself; ``num_players`` within the game's
  range (default: its least);
- the observation is the learner's information set in the game's ``encoding`` (a name
  of ``Game.encodings``, ``flat`` by default), without match scores (single hands), as a
  Box; ``action_masks()`` is the learner's legal-action mask (sb3-contrib's
  ``MaskablePPO`` calls it), also in ``info["action_mask"]`` (int8);
- ``seat``: the learner's seat, ``0..num_players-1``, or ``"random"`` (drawn per hand);
  the dealer is drawn per hand;
- ``opponent``: who plays the other seats. One choice for all of them, or a list of
  ``num_players - 1``, one per seat in turn order after the learner (the player to the
  learner's left first). Each is ``"random"`` (uniform over the legal actions, drawn
  with the env's generator), an agent spec or level of ``agents.make`` for this game
  (``"heuristic"``, ``"medium"``, ...; one agent is made per seat), an ``Agent`` of this
  game, or a callable ``(observation, action_mask) -> action id`` given that seat's
  observation in the view's encoding. An ``Agent`` or callable given once for all seats
  plays all of them. ``reset(seed=s)`` re-seeds the k-th agent of that list with
  ``s + 1 + k``;
- ``reward``: the learner's reward when the hand ends, as the game's AEC env gives it:
  ``points`` (its hand reward), ``scaled`` (points / 100) or ``win_loss`` (+1 to the
  winner, -1/(N-1) to each other player, 0 without a winner or when the win scored
  nothing). A hand ends by ``terminated``, never ``truncated``;
- actions are integer ids ``0..num_actions-1`` (a Python or NumPy integer, or a 0-d
  integer array); anything else raises ``IllegalActionError``, a bug in the caller. A
  valid id that is not legal now ends the episode with ``illegal_reward`` and a
  warning, PettingZoo's convention; masked learners never hit it;
- render modes ``ansi``, ``human`` and ``rgb_array``: the table from the learner's seat
  while the hand is on (every hand at its end).

Hands the learner never gets to play: the players before the learner may end a hand
before its first move (a Gin opponent that takes the upcard and knocks at once). Such a
hand holds no decision of the learner's, so it is no episode: ``reset`` deals again until
the learner is to move, and reports the hands it dealt past in ``info["skipped_hands"]``
(each ``{"hand_result", "seat", "reward"}``, the reward in the env's reward mode; an
empty list as a rule). An evaluation that must count every hand adds those rewards;
training ignores them.

``info`` also holds ``seat`` (the learner's seat this hand), and once the hand is over
``hand_result`` (the game's ``HandResult.to_dict()``). The view never shows the learner
anything its information set does not hold: the observation and the info are built from
it and the public result alone.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence, Union

import gymnasium
import numpy as np
from gymnasium import spaces

from rummy_env.core.aec import POINTS_SCALE, REWARDS
from rummy_env.core.encoding import observation_space
from rummy_env.core.game import Encoding, Game, GameState, IllegalActionError, get_game
from rummy_env.core.masks import env_mask, mask_ids
from rummy_env.core.render import text_to_rgb

Opponent = Union[str, Any, Callable[[np.ndarray, np.ndarray], int]]  # "random", a spec, an Agent or a callable
RANDOM = "random"  # the opponent that plays uniformly with the env's own generator


def action_id(action: Any, num_actions: int) -> int:
    """``action`` as an int id ``0..num_actions-1``, or ``IllegalActionError`` naming what came."""
    if isinstance(action, np.ndarray) and action.shape == () or isinstance(action, np.generic):
        action = action.item()
    if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < num_actions:
        raise IllegalActionError(f"action must be an integer action id 0..{num_actions - 1}, got {action!r}")
    return action


def check_reward(mode: str) -> str:
    """``mode`` if it is a reward mode of the views, else a ValueError listing them."""
    if mode not in REWARDS:
        raise ValueError(f"reward must be one of {REWARDS}, got {mode!r}")
    return mode


def learner_reward(result: Any, seat: int, num_players: int, mode: str) -> float:
    """The reward of ``seat`` for a finished hand ``result`` in reward mode ``mode``, as the
    AEC envs count it (``rummy_env.core.aec``)."""
    if mode == "win_loss":
        if result.winner is None or result.points == 0:
            return 0.0
        return 1.0 if result.winner == seat else -1.0 / (num_players - 1)
    points = float(result.rewards[seat])
    return points / POINTS_SCALE if mode == "scaled" else points


def check_seat(seat: Any, num_players: int) -> Union[int, str]:
    """``seat`` if it is a seat of ``num_players`` or ``"random"``, else a ValueError."""
    if seat == RANDOM or (isinstance(seat, (int, np.integer)) and not isinstance(seat, bool) and 0 <= seat < num_players):
        return seat if seat == RANDOM else int(seat)
    allowed = "0, 1" if num_players == 2 else f"a seat 0..{num_players - 1}"
    raise ValueError(f"seat must be {allowed} or 'random', got {seat!r}")


def _make_agent(spec: str, game: Game) -> Any:
    """The agent ``spec`` names for ``game`` (the agents layer, imported only when asked)."""
    from rummy_env import agents

    return agents.make(spec, game=game.name)


def _opponent(choice: Any, game: Game) -> Any:
    """One seat's opponent: ``"random"``, an agent (made from a spec, or given) or a callable."""
    if isinstance(choice, str):
        return choice if choice == RANDOM else _make_agent(choice, game)
    if hasattr(choice, "act"):
        from rummy_env.agents import plays

        if plays(choice) != game.name:
            raise ValueError(f"opponent {choice!r} plays {get_game(plays(choice)).title}, not {game.title}")
        return choice
    if callable(choice):
        return choice
    raise TypeError(f"opponent must be 'random', an agent spec, an Agent or a callable, got {type(choice).__name__}")


def opponents(choice: Any, game: Game, num_players: int) -> list[Any]:
    """The opponents of the ``num_players - 1`` other seats, in turn order after the
    learner: one choice for all (a spec makes one agent per seat), or a list of them."""
    others = num_players - 1
    if isinstance(choice, (list, tuple)):
        if len(choice) != others:
            raise ValueError(f"opponent: a list needs one choice per other seat ({others} for {num_players} players), "
                             f"got {len(choice)}")
        return [_opponent(c, game) for c in choice]
    if isinstance(choice, str):
        return [_opponent(choice, game) for _ in range(others)]
    return [_opponent(choice, game)] * others


class SingleSeatEnv(gymnasium.Env):
    """One hand of a registered game, one seat learning. See the module docstring."""

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 1}

    def __init__(
        self,
        game: Union[str, Game],
        num_players: Optional[int] = None,
        opponent: Union[Opponent, Sequence[Opponent]] = RANDOM,
        seat: Union[int, str] = 0,
        rules: Any = None,
        encoding: Union[str, Encoding] = "flat",
        reward: str = "points",
        illegal_reward: float = -1.0,
        render_mode: Optional[str] = None,
    ) -> None:
        interface = get_game(game)
        num_players = interface.check_num_players(interface.min_players if num_players is None else num_players)
        self.seat_option = check_seat(seat, num_players)
        self.reward_mode = check_reward(reward)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.game_interface = interface
        self.num_players = num_players
        self.rules = interface.load_rules(rules)
        self.encoding = encoding
        self._encoder = interface.encoding(encoding)
        self.opponents = opponents(opponent, interface, num_players)
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        self.observation_space = observation_space(self._encoder, self.rules)
        self.action_space = spaces.Discrete(interface.num_actions)
        self._no_moves = np.zeros(interface.num_actions, dtype=bool)
        self.game: Optional[GameState] = None  # the hand being played
        self.seat = 0

    def policy_facts(self) -> dict[str, Any]:
        """What a policy trained on this view needs to play elsewhere, as plain data: the
        game, the player count, the encoding's name and the rules (``save_policy``)."""
        return {"game": self.game_interface.name, "num_players": self.num_players, "encoding": self._encoder.name,
                "rules": self.rules.to_dict()}

    # ------------------------------------------------------------------ what the learner sees

    def observe(self, seat: int) -> np.ndarray:
        """The observation of ``seat`` in the view's encoding: from its information set alone."""
        assert self.game is not None, "call reset() first"
        return self._encoder.encode(self.game.information_set(seat), self.rules)

    def action_masks(self) -> np.ndarray:
        """Bool mask of the learner's legal actions (sb3-contrib MaskablePPO's hook); all
        False when the learner is not to move (the hand is over)."""
        assert self.game is not None, "call reset() first"
        if self.game.is_over or self.game.current_player != self.seat:
            return self._no_moves.copy()
        return self.game.legal_mask().astype(bool)

    def _info(self) -> dict[str, Any]:
        assert self.game is not None
        info: dict[str, Any] = {"action_mask": env_mask(self.action_masks().astype(np.int8)), "seat": self.seat}
        if self.game.result is not None:
            info["hand_result"] = self.game.result.to_dict()
        return info

    def _reward(self) -> float:
        assert self.game is not None and self.game.result is not None
        return learner_reward(self.game.result, self.seat, self.num_players, self.reward_mode)

    # ------------------------------------------------------------------ the other seats

    def _opponent_action(self) -> int:
        assert self.game is not None
        seat = self.game.current_player
        mask = self.game.legal_mask()
        opponent = self.opponents[(seat - self.seat - 1) % self.num_players]
        if isinstance(opponent, str):  # RANDOM
            return int(self.np_random.choice(mask_ids(mask)))
        if hasattr(opponent, "act"):
            info = {"information_set": self.game.information_set(seat), "rules": self.rules}
            return int(opponent.act({"observation": self.observe(seat), "action_mask": mask}, info))
        return int(opponent(self.observe(seat), mask))

    def _play_opponents(self) -> None:
        assert self.game is not None
        while not self.game.is_over and self.game.current_player != self.seat:
            self.game.step(self._opponent_action())

    # ------------------------------------------------------------------ Gymnasium API

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            reseeded: set[int] = set()
            for k, opponent in enumerate(self.opponents):
                if hasattr(opponent, "reset") and id(opponent) not in reseeded:
                    reseeded.add(id(opponent))
                    opponent.reset(seed=seed + 1 + k)
        skipped = []
        n = self.num_players
        while True:  # deal until the learner has a move (the module docstring)
            self.seat = int(self.np_random.integers(n)) if self.seat_option == RANDOM else int(self.seat_option)
            dealer = int(self.np_random.integers(n))
            self.game = self.game_interface.deal(self.rules, n, seed=self.np_random, dealer=dealer)
            self._play_opponents()
            if not self.game.is_over:
                break
            assert self.game.result is not None
            skipped.append({"hand_result": self.game.result.to_dict(), "seat": self.seat, "reward": self._reward()})
        info = self._info()
        info["skipped_hands"] = skipped
        return self.observe(self.seat), info

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        assert self.game is not None, "call reset() first"
        if self.game.is_over:
            raise RuntimeError("the hand is over: call reset()")
        action = action_id(action, self.game_interface.num_actions)
        legal = self.action_masks()
        if not legal[action]:
            gymnasium.logger.warn(f"illegal action {action} ends the episode with reward {self.illegal_reward}; "
                                  f"legal now: {np.flatnonzero(legal).tolist()}")
            info = self._info()
            info["illegal_action"] = action
            return self.observe(self.seat), self.illegal_reward, True, False, info
        self.game.step(action)
        self._play_opponents()
        reward = self._reward() if self.game.is_over else 0.0
        if self.render_mode == "human":
            self.render()
        return self.observe(self.seat), reward, self.game.is_over, False, self._info()

    def render(self) -> Union[str, np.ndarray, None]:
        if self.game is None or self.render_mode is None:
            return None
        text = self.game.render(perspective=None if self.game.is_over else self.seat)
        if self.render_mode == "human":
            print(text)
            return None
        return text_to_rgb(text, self.game_interface.frame_lines) if self.render_mode == "rgb_array" else text
