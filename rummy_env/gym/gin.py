"""Gymnasium single-agent views of Gin Rummy: one seat learns, the other is a fixed policy.

- ``GinRummyEnv`` (``gymnasium.make("rummy_env/GinRummy-v0", opponent=...)``): one hand
  per episode on the pure game, the learner's observation (``flat`` or ``planes``, as
  ``gin_rummy_v0``) as a Box, ``action_masks()`` for sb3-contrib's ``MaskablePPO`` and
  ``info["action_mask"]``. It is the single-seat view every game has
  (``rummy_env.gym.view.SingleSeatEnv``) for the game ``gin``,
  with Gin's defaults: two players, the ``classic`` rules.
- ``VectorGinRummyEnv``: the batched counterpart on ``VectorGinRummy`` for our trainer, a
  ``gymnasium.vector.VectorEnv`` with same-step autoreset.

Opponents: ``"random"`` (uniform over legal actions, seeded by the env), or a callable.
For ``GinRummyEnv`` the opponent may also be any agent spec of ``agents.make``
(``"simple"``, ``"heuristic"``, ``"hard"``, ``"mcts:simulations=100"``, ...) or an
``agents.Agent``; a callable gets ``(observation, action_mask)`` of the opponent's seat
and returns an action id. For ``VectorGinRummyEnv`` the opponent may also be
``"simple"`` or ``"heuristic"``, those agents' array versions playing all the games at
once (``rummy_env.agents.gin.simple_vector.simple_actions``,
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

from rummy_env.gin import encoding as enc
from rummy_env.gin.game import NUM_ACTIONS
from rummy_env.gin.rules import RulesSpec
from rummy_env.gin.vector import VectorGinRummy
from rummy_env.gym.view import Opponent, SingleSeatEnv, check_reward, check_seat

BatchOpponent = Union[str, Callable[[np.ndarray, np.ndarray], np.ndarray]]
OPPONENTS = ("random", "simple", "heuristic")  # by name, for VectorGinRummyEnv


def _check_opponent(opponent: Any) -> None:
    if isinstance(opponent, str):
        if opponent not in OPPONENTS:
            raise ValueError(f"unknown opponent {opponent!r}; allowed: {', '.join(OPPONENTS)} or a callable")
    elif not callable(opponent):
        raise TypeError(f"opponent must be a name ({', '.join(OPPONENTS)}) or a callable, got {type(opponent).__name__}")


class GinRummyEnv(SingleSeatEnv):
    """One hand of Gin Rummy against a fixed opponent: the single-seat view
    (``rummy_env.gym.view.SingleSeatEnv``) of the game ``gin``. See the module docstring."""

    def __init__(
        self,
        opponent: Opponent = "random",
        seat: Union[int, str] = 0,
        rules: RulesSpec = "classic",
        encoding: str = "flat",
        reward: str = "points",
        illegal_reward: float = -1.0,
        render_mode: Optional[str] = None,
    ) -> None:
        super().__init__("gin", opponent=opponent, seat=seat, rules=rules, encoding=encoding, reward=reward,
                         illegal_reward=illegal_reward, render_mode=render_mode)


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
        check_seat(seat, 2)
        check_reward(reward)
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
            from rummy_env.agents.gin.simple_vector import simple_actions  # the layer above, loaded only when asked for

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

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple[np.ndarray, dict[str, Any]]:
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

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
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
