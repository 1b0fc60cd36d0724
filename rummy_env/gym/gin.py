"""Gymnasium single-agent views of Gin Rummy: one seat learns, the other is a fixed policy.

- ``GinRummyEnv`` (``gymnasium.make("rummy_env/GinRummy-v0", opponent=...)``): one hand
  per episode on the pure game, the learner's observation (``flat`` or ``planes``, as
  ``gin_rummy_v0``) as a Box, ``action_masks()`` for sb3-contrib's ``MaskablePPO`` and
  ``info["action_mask"]``.
- ``VectorGinRummyEnv``: the batched counterpart on ``VectorGinRummy`` for our trainer, a
  ``gymnasium.vector.VectorEnv`` with same-step autoreset.

Opponents: ``"random"`` (uniform over legal actions, seeded by the env), or a callable.
For ``GinRummyEnv`` the opponent may also be any agent spec of ``agents.make``
(``"simple"``, ``"heuristic"``, ``"hard"``, ``"mcts:simulations=100"``, ...) or an
``agents.Agent``; a callable gets ``(observation, action_mask)`` of the opponent's seat
and returns an action id. For ``VectorGinRummyEnv`` the opponent may also be
``"simple"`` or ``"heuristic"``, those agents' array versions playing all the games at
once (``rummy_env.agents.gin.simple.simple_actions``,
``rummy_env.agents.gin.heuristic_vector``: the heuristic with its turn-based knock rule,
``heuristic:knock=turn``); a callable gets batches ``(observations (M, ...), masks (M,
108))`` and returns M action ids.

The learner's seat is ``seat`` (0 or 1) or ``"random"`` (drawn per hand). Rewards are the
learner's hand reward (``points``, ``scaled`` or ``win_loss``), given when the hand ends;
a drawn hand is terminated, never truncated.

Hands the learner never gets to play: when the learner deals, the opponent moves first
and may take the upcard and knock at once (about 1 hand in 300 against ``simple``). The
learner has no decision in such a hand, so it is not an episode: ``reset`` deals again
until the learner is to move, and reports the hands it dealt past in
``info["skipped_hands"]`` (each the ``hand_result`` plus the learner's ``reward`` in the
env's reward mode; an empty list as a rule). An evaluation that must count every hand
adds those rewards; training ignores them (no action of the learner's led to them). The
vector view does the same per game: such a hand never ends an episode; its count and the
learner's summed reward are in ``infos["skipped_hands"]`` and ``infos["skipped_rewards"]``.

Actions: an integer action id 0..107 (a Python or numpy integer, or a 0-d integer
array, as vector-env libraries pass them). Anything else raises ``IllegalActionError``
(as ``gin_rummy_v0`` does), since a wrong id is a bug in the caller. A valid id that is
not legal now ends the episode with ``illegal_reward`` (default -1) and a warning, as
PettingZoo's convention does; masked learners never hit it.

Render modes: ``ansi`` (the table as text, from the learner's seat while the hand is
on), ``human`` (that text printed after every step) and ``rgb_array`` (that text drawn
as an image, ``rummy_env.core.render``: what Gymnasium's ``RecordVideo`` and
Stable-Baselines3's ``make_vec_env``, which asks for ``rgb_array``, use).
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Union

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

from rummy_env.core.render import text_to_rgb
from rummy_env.gin import encoding as enc
from rummy_env.gin.game import NUM_ACTIONS, GinRummyState, IllegalActionError
from rummy_env.gin.rules import RulesSpec, load_rules
from rummy_env.gin.vector import VectorGinRummy

SingleOpponent = Union[str, Callable[[np.ndarray, np.ndarray], int]]
BatchOpponent = Union[str, Callable[[np.ndarray, np.ndarray], np.ndarray]]
OPPONENTS = ("random", "simple", "heuristic")  # by name, for VectorGinRummyEnv
REWARDS = ("points", "scaled", "win_loss")


def _check_opponent(opponent: Any) -> None:
    if isinstance(opponent, str):
        if opponent not in OPPONENTS:
            raise ValueError(f"unknown opponent {opponent!r}; allowed: {', '.join(OPPONENTS)} or a callable")
    elif not callable(opponent):
        raise TypeError(f"opponent must be a name ({', '.join(OPPONENTS)}) or a callable, got {type(opponent).__name__}")


def _single_opponent(opponent: Any) -> Any:
    """'random', a callable, or an agent (from a spec string or an Agent instance)."""
    if isinstance(opponent, str) and opponent != "random":
        from rummy_env import agents  # the layer above: loaded only when an agent is asked for by name

        return agents.make(opponent)
    if isinstance(opponent, str) or hasattr(opponent, "act") or callable(opponent):
        return opponent
    raise TypeError(f"opponent must be 'random', an agent spec, an Agent or a callable, got {type(opponent).__name__}")


def _check_seat(seat: Any) -> None:
    if seat not in (0, 1, "random"):
        raise ValueError(f"seat must be 0, 1 or 'random', got {seat!r}")


def action_id(action: Any) -> int:
    """``action`` as an int id 0..NUM_ACTIONS-1, or ``IllegalActionError`` naming what came."""
    if isinstance(action, np.ndarray) and action.shape == () or isinstance(action, np.generic):
        action = action.item()
    if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < NUM_ACTIONS:
        raise IllegalActionError(f"action must be an integer action id 0..{NUM_ACTIONS - 1}, got {action!r}")
    return action


def _reward_value(points: float, mode: str) -> float:
    if mode not in REWARDS:
        raise ValueError(f"reward must be one of {REWARDS}, got {mode!r}")
    if mode == "scaled":
        return points / 100.0
    if mode == "win_loss":
        return float(np.sign(points))
    return float(points)


class GinRummyEnv(gymnasium.Env):
    """One hand of Gin Rummy against a fixed opponent. See the module docstring."""

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 1}

    def __init__(
        self,
        opponent: SingleOpponent = "random",
        seat: Union[int, str] = 0,
        rules: RulesSpec = "classic",
        encoding: str = "flat",
        reward: str = "points",
        illegal_reward: float = -1.0,
        render_mode: Optional[str] = None,
    ) -> None:
        opponent = _single_opponent(opponent)
        _check_seat(seat)
        _reward_value(0, reward)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.rules = load_rules(rules)
        self.opponent = opponent
        self.seat_option = seat
        self.encoding = encoding
        self.reward_mode = reward
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        high = enc.observation_high(self.rules, encoding)
        self.observation_space = spaces.Box(0.0, high, high.shape, dtype=np.float32)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self.game: Optional[GinRummyState] = None
        self.seat = 0

    def _obs(self, seat: int) -> np.ndarray:
        assert self.game is not None
        return enc.encode(self.game.information_set(seat), self.rules, self.encoding)

    def action_masks(self) -> np.ndarray:
        """Bool mask of the learner's legal actions (sb3-contrib MaskablePPO's hook)."""
        assert self.game is not None, "call reset() first"
        if self.game.is_over or self.game.current_player != self.seat:
            return np.zeros(NUM_ACTIONS, dtype=bool)
        return self.game.legal_mask().astype(bool)

    def _opponent_action(self) -> int:
        assert self.game is not None
        mask = self.game.legal_mask()
        if isinstance(self.opponent, str):  # "random"
            return int(self.np_random.choice(np.flatnonzero(mask)))
        seat = 1 - self.seat
        if hasattr(self.opponent, "act"):
            info = {"information_set": self.game.information_set(seat), "rules": self.rules}
            return int(self.opponent.act({"observation": self._obs(seat), "action_mask": mask}, info))
        return int(self.opponent(self._obs(seat), mask))

    def _play_opponent(self) -> None:
        assert self.game is not None
        while not self.game.is_over and self.game.current_player != self.seat:
            self.game.step(self._opponent_action())

    def _info(self) -> dict[str, Any]:
        assert self.game is not None
        info: dict[str, Any] = {"action_mask": self.action_masks().astype(np.int8), "seat": self.seat}
        if self.game.result is not None:
            info["hand_result"] = self.game.result.to_dict()
        return info

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        super().reset(seed=seed)
        if seed is not None and hasattr(self.opponent, "reset"):
            self.opponent.reset(seed=seed + 1)
        skipped = []
        while True:  # deal until the learner has a move (see "Hands the learner never gets to play")
            self.seat = int(self.np_random.integers(2)) if self.seat_option == "random" else int(self.seat_option)
            dealer = int(self.np_random.integers(2))
            self.game = GinRummyState.new_hand(self.rules, self.np_random, dealer=dealer)
            self._play_opponent()
            if not self.game.is_over:
                break
            assert self.game.result is not None
            reward = _reward_value(self.game.result.rewards[self.seat], self.reward_mode)
            skipped.append({"hand_result": self.game.result.to_dict(), "seat": self.seat, "reward": reward})
        info = self._info()
        info["skipped_hands"] = skipped
        return self._obs(self.seat), info

    def step(self, action):
        assert self.game is not None, "call reset() first"
        if self.game.is_over:
            raise RuntimeError("the hand is over: call reset()")
        action = action_id(action)
        if not self.action_masks()[action]:
            gymnasium.logger.warn(f"illegal action {action} ends the episode with reward {self.illegal_reward}; "
                                  f"legal now: {np.flatnonzero(self.action_masks()).tolist()}")
            info = self._info()
            info["illegal_action"] = action
            return self._obs(self.seat), self.illegal_reward, True, False, info
        self.game.step(action)
        self._play_opponent()
        reward = 0.0
        if self.game.is_over:
            assert self.game.result is not None
            reward = _reward_value(self.game.result.rewards[self.seat], self.reward_mode)
        if self.render_mode == "human":
            self.render()
        return self._obs(self.seat), reward, self.game.is_over, False, self._info()

    def render(self) -> Union[str, np.ndarray, None]:
        if self.game is None or self.render_mode is None:
            return None
        text = self.game.render(perspective=None if self.game.is_over else self.seat)
        if self.render_mode == "human":
            print(text)
            return None
        return text_to_rgb(text) if self.render_mode == "rgb_array" else text


class VectorGinRummyEnv(VectorEnv):
    """``num_envs`` hands on the vector engine, learner vs a batched opponent policy.

    Same-step autoreset: when a hand ends, ``step`` returns its reward and termination
    with the first observation of the next hand (the final showdown is in ``infos``).
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self,
        num_envs: int,
        opponent: BatchOpponent = "random",
        seat: Union[int, str] = "random",
        rules: RulesSpec = "classic",
        encoding: str = "flat",
        reward: str = "points",
        seed: Optional[int] = None,
    ) -> None:
        _check_opponent(opponent)
        _check_seat(seat)
        _reward_value(0, reward)
        self.engine = VectorGinRummy(num_envs, rules=rules, encoding=encoding, reward=reward, seed=seed)
        self.num_envs = self.engine.num_envs
        self.opponent = opponent
        self.seat_option = seat
        high = enc.observation_high(self.engine.rules, encoding)
        self.single_observation_space = spaces.Box(0.0, high, high.shape, dtype=np.float32)
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, self.num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, self.num_envs)
        self._rng = np.random.default_rng(seed)
        self.seats = np.zeros(self.num_envs, dtype=np.int8)
        self._moved = np.zeros(self.num_envs, dtype=bool)  # whether the learner has moved in each game's hand
        self._last = None

    def _new_seats(self, rows: np.ndarray) -> None:
        if self.seat_option == "random":
            self.seats[rows] = self._rng.integers(0, 2, size=rows.size)
        else:
            self.seats[rows] = int(self.seat_option)

    def _opponent_actions(self, rows: np.ndarray, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        if self.opponent == "random":
            keys = self._rng.random(mask.shape, dtype=np.float32) * mask
            return keys.argmax(axis=1)
        if self.opponent == "simple":
            from rummy_env.agents.gin.simple import simple_actions  # the layer above, loaded only when asked for

            return simple_actions(self.engine, rows, self._rng)
        if self.opponent == "heuristic":
            from rummy_env.agents.gin.heuristic_vector import heuristic_actions

            return heuristic_actions(self.engine, rows, self._rng)
        return np.asarray(self.opponent(obs, mask))  # type: ignore[operator]

    def _advance(self, res, rewards: np.ndarray, ended: np.ndarray, final: dict[str, np.ndarray],
                 skipped: dict[str, np.ndarray]):
        """Let the opponent move wherever it is to play, until the learner is everywhere."""
        while True:
            waiting = res.player != self.seats
            if not waiting.any():
                return res
            rows = np.flatnonzero(waiting)
            actions = np.zeros(self.num_envs, dtype=np.int64)
            actions[rows] = self._opponent_actions(rows, res.observation[rows], res.action_mask[rows])
            res = self.engine.step(actions, active=waiting)
            self._collect(res, rewards, ended, final, skipped)

    def _collect(self, res, rewards: np.ndarray, ended: np.ndarray, final: dict[str, np.ndarray],
                 skipped: dict[str, np.ndarray]) -> None:
        """Book the hands that just ended: an episode's end where the learner moved in the
        hand, a skipped hand where it never did (module docstring)."""
        over = res.terminated
        if not over.any():
            return
        learner_reward = res.rewards[np.arange(self.num_envs), self.seats]
        done = np.flatnonzero(over & self._moved)
        rewards[done] += learner_reward[done]
        ended[done] = True
        for key in ("outcome", "winner", "points", "knocker_deadwood", "defender_deadwood"):
            final[key][done] = getattr(res, key)[done]
        final["learner_seat"][done] = self.seats[done]
        passed = np.flatnonzero(over & ~self._moved)
        skipped["skipped_hands"][passed] += 1
        skipped["skipped_rewards"][passed] += learner_reward[passed]
        self._moved[over] = False
        self._new_seats(np.flatnonzero(over))

    def _empty_final(self) -> dict[str, np.ndarray]:
        n = self.num_envs
        return {
            "outcome": np.full(n, -1, dtype=np.int8),
            "winner": np.full(n, -1, dtype=np.int8),
            "points": np.zeros(n, dtype=np.int32),
            "knocker_deadwood": np.full(n, -1, dtype=np.int32),
            "defender_deadwood": np.full(n, -1, dtype=np.int32),
            "learner_seat": np.full(n, -1, dtype=np.int8),
        }

    def _empty_skipped(self) -> dict[str, np.ndarray]:
        return {"skipped_hands": np.zeros(self.num_envs, dtype=np.int32),
                "skipped_rewards": np.zeros(self.num_envs, dtype=np.float32)}

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        res = self.engine.reset(seed=None if seed is None else seed + 1)
        self._new_seats(np.arange(self.num_envs))
        self._moved[:] = False
        rewards = np.zeros(self.num_envs, dtype=np.float32)
        ended = np.zeros(self.num_envs, dtype=bool)
        skipped = self._empty_skipped()
        res = self._advance(res, rewards, ended, self._empty_final(), skipped)
        self._last = res
        return res.observation, {"action_mask": res.action_mask, "seat": self.seats.copy(), **skipped}

    def action_masks(self) -> np.ndarray:
        """Bool (num_envs, 108): the learner's legal actions in each game."""
        assert self._last is not None, "call reset() first"
        return self._last.action_mask.astype(bool)

    def step(self, actions):
        assert self._last is not None, "call reset() first"
        rewards = np.zeros(self.num_envs, dtype=np.float32)
        ended = np.zeros(self.num_envs, dtype=bool)
        final = self._empty_final()
        skipped = self._empty_skipped()
        res = self.engine.step(np.asarray(actions, dtype=np.int64))
        self._moved[:] = True
        self._collect(res, rewards, ended, final, skipped)
        res = self._advance(res, rewards, ended, final, skipped)
        self._last = res
        infos = {"action_mask": res.action_mask, "seat": self.seats.copy(), "final": final, "ended": ended, **skipped}
        return res.observation, rewards, ended, np.zeros(self.num_envs, dtype=bool), infos
