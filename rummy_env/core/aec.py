"""The AEC env every card game of the library shares (``gin_rummy_v0``, ``basic_rummy_v0``, ...).

Why one base: the envs differ only in their game, and must agree exactly on everything a
PettingZoo loop sees: argument checks, spaces, masks that are all zeros for players not
to move, the illegal-move convention, dealing (seeded, or an explicit deck and dealer),
matches, how rewards and hand results reach each agent's info, and rendering. All of
that goes through the game interface (``rummy_env.core.game.Game``), so a game's env
module is glue: a ``raw_env`` class naming its ``game_interface`` and ``metadata``, and
``env()`` (``user_env``); its docstring is the env's documentation page.
"""

from __future__ import annotations

from abc import ABC
from typing import Any, Optional, Union

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterable, AECOrderEnforcingIterator
from pettingzoo.utils.env_logger import EnvLogger

from rummy_env.core.encoding import observation_space
from rummy_env.core.game import Encoding, Game, IllegalActionError
from rummy_env.core.masks import env_mask
from rummy_env.core.render import text_to_rgb
from rummy_env.core.state import card_ids

EPISODES = ("hand", "match")
REWARDS = ("points", "scaled", "win_loss")
ILLEGAL_ACTIONS = ("raise", "terminate")
POINTS_SCALE = 100.0


def user_env(raw_env: type, **kwargs: Any) -> AECEnv:
    """The env for users, as PettingZoo's classic envs are: an illegal move ends the
    episode (``illegal_reward`` to the offender, a warning) instead of raising, and the
    call order is enforced (``OrderEnforcingWrapper``, as ``OrderEnforced``)."""
    kwargs.setdefault("illegal_action", "terminate")
    return OrderEnforced(raw_env(**kwargs))


def _checked_read(name: str) -> property:
    """A read (and write) of the wrapped env's ``name`` that refuses before ``reset``, as
    ``OrderEnforcingWrapper.__getattr__`` does, without its failed lookup first."""

    def get(self: "OrderEnforced") -> Any:
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self.env, name)

    def set_(self: "OrderEnforced", value: Any) -> None:
        setattr(self.env, name, value)

    return property(get, set_)


class OrderEnforced(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` (a subclass: the same checks, errors and
    warnings), with the attributes an ``agent_iter()`` / ``last()`` / ``step()`` loop reads
    at every step defined here instead of forwarded by ``__getattr__``.

    Why: the wrapper forwards every read through ``__getattr__``, which Python calls only
    after a failed lookup; the dozen such reads of a PettingZoo loop cost about 10
    microseconds a step, a third of the whole step of ``raw_env`` (benchmarks/bench_env.py).
    """

    agent_selection = _checked_read("agent_selection")
    agents = _checked_read("agents")
    rewards = _checked_read("rewards")
    terminations = _checked_read("terminations")
    truncations = _checked_read("truncations")
    infos = _checked_read("infos")
    _cumulative_rewards = property(lambda self: self.env._cumulative_rewards)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)

    def step(self, action: Any) -> None:
        if self._has_reset and self.env.agents:
            self._has_updated = True
            self.env.step(action)
        else:  # the wrapper's error before reset, or its warning after the end
            super().step(action)

    def agent_iter(self, max_iter: int = 2**63) -> AECOrderEnforcingIterable:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _OrderEnforcedIterable(self, max_iter)


class _OrderEnforcedIterable(AECOrderEnforcingIterable):
    def __iter__(self) -> AECOrderEnforcingIterator:
        return _OrderEnforcedIterator(self.env, self.max_iter)


class _OrderEnforcedIterator(AECOrderEnforcingIterator):
    """``AECOrderEnforcingIterator`` reading the wrapped env directly (same checks)."""

    def __next__(self) -> str:
        env = self.env
        raw = env.env
        if not raw.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert env._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        env._has_updated = False
        return raw.agent_selection


class CardGameEnv(AECEnv, ABC):
    """The AEC env of the game ``game_interface`` (a subclass sets it, with ``metadata``)."""

    metadata: dict[str, Any] = {}
    game_interface: Game
    info_extras: dict[str, Any] = {}  # added to the info of an agent to move, beside its information set

    def __init__(
        self,
        num_players: Optional[int] = None,
        render_mode: Optional[str] = None,
        rules: Any = None,
        encoding: Union[str, Encoding] = "flat",
        episode: str = "hand",
        reward: str = "points",
        illegal_action: str = "raise",
        illegal_reward: float = -1.0,
    ) -> None:
        """Check the arguments and build the spaces: ``num_players`` (default: the game's
        least), ``rules`` (a preset, YAML path, mapping or rules object; default: the
        game's default preset), the rest as the env's docstring says."""
        super().__init__()
        game = self.game_interface
        num_players = game.check_num_players(game.min_players if num_players is None else num_players)
        rules = game.load_rules(rules)
        if illegal_action not in ILLEGAL_ACTIONS:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTIONS}, got {illegal_action!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}, got {render_mode!r}")
        if episode not in EPISODES:
            raise ValueError(f"episode must be one of {EPISODES}, got {episode!r}")
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}, got {reward!r}")
        if episode == "match" and not rules.match:
            raise ValueError("episode='match' needs rules with target_score > 0")
        self._encoder = game.encoding(encoding)
        num_actions = game.num_actions
        self.num_players = num_players
        self.rules = rules
        self._num_actions = num_actions
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        self.encoding = encoding
        self.episode = episode
        self.reward_mode = reward
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self._seats = {a: i for i, a in enumerate(self.possible_agents)}
        self.agents = []
        self.action_spaces = {a: spaces.Discrete(num_actions) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": observation_space(self._encoder, rules),
                    "action_mask": spaces.Box(0, 1, (num_actions,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.state_space = spaces.Box(0.0, 1.0, (game.state_size,), dtype=np.float32)
        self._rng = np.random.default_rng()
        self._no_moves = env_mask(np.zeros(num_actions, dtype=np.int8))
        self.game: Any = None
        self.match: Any = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ API

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None) -> None:
        """Deal a hand (the first of a match with ``episode="match"``). ``seed`` reseeds the
        env; ``options={"dealer": seat}`` picks the dealer (else drawn from the env's
        generator), ``options={"deck": [ids]}`` deals that deck order (whole numbers: a
        list or an integer array); other keys are ignored, as PettingZoo's ``api_test``
        expects. A seed or deck of the wrong kind is refused, naming it."""
        if seed is not None:
            if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
                raise ValueError(f"reset seed must be a whole number >= 0 or None, got {seed!r}")
            self._rng = np.random.default_rng(seed)
        options = dict(options or {})
        game = self.game_interface
        deck = options.get("deck")
        if deck is not None:
            deck = card_ids(deck, game.deck_size_of(self.rules), "reset option deck")
        n = self.num_players
        dealer = options.get("dealer", int(self._rng.integers(n)))
        if isinstance(dealer, bool) or not isinstance(dealer, (int, np.integer)) or not 0 <= dealer < n:
            allowed = "0 or 1" if n == 2 else f"a seat 0..{n - 1}"
            raise ValueError(f"reset option dealer must be {allowed}, got {dealer!r}")
        dealer = int(dealer)
        self.match = game.new_match(self.rules, n, dealer) if self.episode == "match" else None
        self.game = game.deal(self.rules, n, seed=self._rng, deck=deck, dealer=dealer)
        self._begin()

    def state(self) -> np.ndarray:
        """The full state (every hand, the stock, the pile) for centralised critics."""
        assert self.game is not None, "call reset() first"
        return self.game_interface.state_vector(self.game)

    def _scores(self) -> Optional[tuple[int, ...]]:
        """Match points to encode in observations (None outside a match), as a tuple; a
        match whose ``points`` is a tuple already (a game's subclass may carry more, as
        Rommé's hands played) is passed on as it is."""
        if self.match is None:
            return None
        points = self.match.points
        return points if isinstance(points, tuple) else tuple(points)

    def _begin(self) -> None:
        """Fresh per-episode bookkeeping, once ``reset`` has dealt ``self.game``."""
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._rewarded = False  # whether ``rewards`` holds a hand's rewards (cleared at the next step)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[self.game.current_player]
        self._add_information_sets()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        assert self.game is not None, "call reset() first"
        seat = self._seats[agent]
        game = self.game
        obs = self._encoder.encode(game.information_set(seat), self.rules,
                                   None if self.match is None else self._scores())
        if not game.is_over and game.current_player == seat and not self.terminations[agent]:
            mask = env_mask(game.legal_mask())
        else:
            mask = self._no_moves.copy()
        return {"observation": obs, "action_mask": mask}

    def step(self, action: Optional[int]) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        assert self.game is not None
        n = self._num_actions
        if type(action) is not int and (isinstance(action, bool) or not isinstance(action, np.integer)) \
                or not 0 <= action < n:
            raise IllegalActionError(f"action must be an integer action id 0..{n - 1}, got {action!r}")
        if self.illegal_action == "terminate" and not self.game.is_legal(action):
            self._terminate_illegal(agent)
            return
        self.game.step(action)  # raises IllegalActionError naming the legal actions, changing nothing
        self._cumulative_rewards[agent] = 0.0
        if self._rewarded:  # only a hand's end gives rewards: a step after any other leaves them at 0
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self._rewarded = False
        self.infos[agent] = {}  # the others keep theirs (hand results) until they act
        if self.game.is_over:
            self._end_hand()
            self._accumulate_rewards()  # rewards come only when a hand ends: no other step adds any
        self.agent_selection = self.agents[self.game.current_player]
        self._add_information_sets()
        if self.render_mode == "human":
            self.render()

    def _add_information_sets(self) -> None:
        """The info of the agent to move (of every agent once the episode ends) carries its
        current information set and the rules: what agents read."""
        assert self.game is not None
        if self.terminations[self.agent_selection]:  # the episode is over: every agent is terminated
            seats = list(enumerate(self.agents))
        else:
            seats = [(self._seats[self.agent_selection], self.agent_selection)]
        for seat, agent in seats:
            info = self.infos[agent]
            info["information_set"] = self.game.information_set(seat)
            info["rules"] = self.rules
            if self.info_extras:
                info.update(self.info_extras)

    def _terminate_illegal(self, agent: str) -> None:
        """PettingZoo's illegal-move convention, as ``TerminateIllegalWrapper`` applies it."""
        EnvLogger.warn_on_illegal_move()
        self._cumulative_rewards[agent] = 0.0
        self.terminations = dict.fromkeys(self.agents, True)
        self.truncations = dict.fromkeys(self.agents, True)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards[agent] = self.illegal_reward
        self._rewarded = True
        self._accumulate_rewards()
        self._deads_step_first()

    def _win_loss(self, winner: Optional[int], points: float = 1.0) -> list[float]:
        """+1 to the winner, -1 / (N - 1) to each other player; 0 to all without a winner or
        when the win scored nothing (a 0-point undercut under ``undercut_bonus=0``), as the
        vector engine and the Gymnasium views count it (the sign of the points)."""
        n = self.num_players
        if winner is None or points == 0:
            return [0.0] * n
        return [1.0 if seat == winner else -1.0 / (n - 1) for seat in range(n)]

    def _end_hand(self) -> None:
        """Score the finished hand: its rewards, and in a match its booking, the match's
        bonuses on its last hand (so each return is what the match awards) and the next hand."""
        assert self.game is not None and self.game.result is not None
        result = self.game.result
        points = [float(r) for r in result.rewards]
        info: dict[str, Any] = {"hand_result": result.to_dict()}
        episode_over = True
        win_loss = self._win_loss(result.winner, result.points)
        if self.match is not None:
            self.match.record(result)
            info["match_points"] = list(self.match.points)
            if self.match.is_over:
                final = self.match.result()
                info["match_result"] = final.to_dict()
                points = [p + b for p, b in zip(points, final.bonus_rewards)]
                win_loss = self._win_loss(final.winner)
            else:
                episode_over = False
                win_loss = [0.0] * self.num_players
        self._settle(info, points, win_loss, episode_over)

    def _settle(self, info: dict[str, Any], points: list[float], win_loss: list[float], episode_over: bool) -> None:
        """Rewards in the env's reward mode, the hand's info to every agent (keeping earlier
        results an agent has not seen yet, in a match), then the end or the next hand."""
        if self.reward_mode == "win_loss":
            values = win_loss
        elif self.reward_mode == "scaled":
            values = [p / POINTS_SCALE for p in points]
        else:
            values = points
        self.rewards = {a: values[i] for i, a in enumerate(self.agents)}
        self._rewarded = True
        for a in self.agents:
            earlier = self.infos[a].get("hand_results", [])
            self.infos[a] = dict(info, hand_results=earlier + [info["hand_result"]])
        if episode_over:
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            assert self.match is not None
            self.game = self.match.new_hand(self._rng)

    def render(self) -> Union[str, np.ndarray, None]:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi', 'human' or 'rgb_array'")
            return None
        assert self.game is not None, "call reset() first"
        text = self.game.render()
        if self.match is not None:
            text += "\nmatch points: " + ", ".join(f"player_{i} {p}" for i, p in enumerate(self.match.points))
        if self.render_mode == "human":
            print(text)
            return None
        lines = self.game_interface.frame_lines + (self.match is not None)  # and the match line
        return text_to_rgb(text, lines) if self.render_mode == "rgb_array" else text

    def close(self) -> None:
        """Nothing to release: the env holds no files, windows or processes."""
