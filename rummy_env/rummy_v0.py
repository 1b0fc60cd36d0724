"""Basic Rummy for 2 to 4 players: PettingZoo AEC environment (``rummy_v0``).

| Import             | ``from rummy_env import rummy_v0``                             |
|--------------------|----------------------------------------------------------------|
| Actions            | Discrete(1267), masked                                         |
| Parallel API       | No                                                             |
| Agents             | ``['player_0', ..., 'player_{N-1}']``, ``num_players`` N = 2..4  |
| Observation shape  | ``flat``: (910,); ``planes``: (43, 4, 13)                      |
| Observation values | card slices 0/1; scalars in [0, 1] (match points a little more)|
| Action mask        | int8 (1267,)                                                   |
| State shape        | (423,)                                                         |

Basic Rummy with the rules of ../shared/RULES.md (``rummy_env.rummy_game`` documents
the choices where the spec is silent): 10 cards each for 2 players, 7 for 3 or 4; draw
from the stock or the discard pile; meld sets and runs, lay off (once you have a meld of
your own on the table), discard (never the card just taken); go out with or without a
final discard; the discard pile turned over once, then a stalemate; the "rummy" double;
optionally whole matches to 100, 300 or 500. Rule options come from ``rules``: a preset
(``basic``, ``basic_300``, ``basic_500``), a YAML path
(``configs/rules/basic_rummy/*.yaml``), a mapping or a ``BasicRummyRules``;
``reset(seed=...)`` never changes them.

Arguments: ``env(num_players=2, render_mode=None, rules="basic", encoding="flat",
episode="hand", reward="points", illegal_reward=-1)``.

Actions (fixed, ``rummy_env.rummy_game``): 0 draw from the stock; 1 take the top
discard; 2 + c discard card c (ends the turn); 54 + m lay down meld m of the meld table
(65 sets then 264 runs); 383 + 52 * s + c lay off card c onto the table meld in slot s
(slots in the order melds were laid down, up to 17). Card c = suit * 13 + rank.

Observation: ``{"observation": array, "action_mask": int8 (1267,)}``, built only from
the observing player's information set (``rummy_env.rummy_encoding`` documents every
slice; seats are relative to the observer). The mask is all zeros for players not to move.

Episodes: ``episode="hand"`` (default) ends after one hand; ``episode="match"`` plays
hands until a player reaches ``target_score``. The first dealer is drawn from the env's
seeded generator (or ``reset(options={"dealer": seat})``; ``options={"deck": [52
ids]}`` deals a fixed deck order for the first hand); the deal passes to the left.

Rewards (zero-sum, given when a hand ends):
- ``points``: the player who went out gets the hand's points; every other player gets
  minus the value of the cards left in their own hand (times the rummy multiplier), so
  the rewards sum to zero. A stalemate gives 0 to everybody.
- ``scaled``: ``points`` / 100.
- ``win_loss``: +1 to the winner of the hand (``episode="hand"``) or the match, and
  -1 / (N - 1) to each other player; 0 to all on a stalemate.
A stalemate (the stock running out again, ``max_turns``) is terminal, never truncated.

Infos: the info of the agent to move (and of every agent when the episode ends) holds
its ``information_set`` (``rummy_env.rummy_game.RummyInformationSet``) and the
``rules``, which is what agents read, plus ``game: "basic_rummy"``. At the step that
ends a hand, every agent's info also has ``hand_result`` (outcome ``out``, ``rummy`` or
``stalemate``, winner, points, each seat's penalty and rewards, the hands shown) and
``hand_results`` (every result since that agent last acted), and in a match
``match_points`` and, at the end, ``match_result``.

Illegal actions: ``raw_env()`` raises ``IllegalActionError`` naming the action and the
legal ones. ``env()`` follows PettingZoo's convention (as ``gin_rummy_v0`` does): the
offender gets ``illegal_reward``, the others 0, every agent is terminated, a warning is
logged; then ``OrderEnforcingWrapper``. An action that is not an integer in 0..1266 is
always an error.

Render modes: ``ansi`` returns the table as text (every hand: a spectator's view),
``human`` prints it.

Version History
- v0: initial release.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from rummy_env import rummy_encoding as enc
from rummy_env.rummy_game import NUM_ACTIONS, BasicRummyMatch, BasicRummyState, IllegalActionError
from rummy_env.rummy_rules import RummyRulesSpec, check_num_players, load_rummy_rules

GAME = "basic_rummy"
EPISODES = ("hand", "match")
REWARDS = ("points", "scaled", "win_loss")
ILLEGAL_ACTIONS = ("raise", "terminate")
POINTS_SCALE = 100.0

__all__ = ["env", "raw_env", "IllegalActionError"]


def env(**kwargs: Any) -> AECEnv:
    """The env for users: illegal moves end the episode (``illegal_reward`` to the offender)."""
    kwargs.setdefault("illegal_action", "terminate")
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


class raw_env(AECEnv):
    metadata = {"render_modes": ["ansi", "human"], "name": "rummy_v0", "is_parallelizable": False, "render_fps": 1}

    def __init__(
        self,
        num_players: int = 2,
        render_mode: Optional[str] = None,
        rules: RummyRulesSpec = "basic",
        encoding: str = "flat",
        episode: str = "hand",
        reward: str = "points",
        illegal_action: str = "raise",
        illegal_reward: float = -1.0,
    ) -> None:
        super().__init__()
        self.num_players = check_num_players(num_players)
        if illegal_action not in ILLEGAL_ACTIONS:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTIONS}, got {illegal_action!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}, got {render_mode!r}")
        if episode not in EPISODES:
            raise ValueError(f"episode must be one of {EPISODES}, got {episode!r}")
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}, got {reward!r}")
        self.rules = load_rummy_rules(rules)
        if episode == "match" and not self.rules.match:
            raise ValueError("episode='match' needs rules with target_score > 0")
        obs_shape = enc.observation_shape(encoding)
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        self.encoding = encoding
        self.episode = episode
        self.reward_mode = reward
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self.agents = []
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        high = enc.observation_high(self.rules, encoding)
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, high, obs_shape, dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.state_space = spaces.Box(0.0, 1.0, (enc.STATE_SIZE,), dtype=np.float32)
        self._rng = np.random.default_rng()
        self._no_moves = np.zeros(NUM_ACTIONS, dtype=np.int8)
        self.game: Optional[BasicRummyState] = None
        self.match: Optional[BasicRummyMatch] = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ API

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        options = dict(options or {})  # other keys are ignored, as PettingZoo's api_test expects
        n = self.num_players
        dealer = options.get("dealer", int(self._rng.integers(n)))
        if isinstance(dealer, bool) or not isinstance(dealer, (int, np.integer)) or not 0 <= dealer < n:
            raise ValueError(f"reset option dealer must be a seat 0..{n - 1}, got {dealer!r}")
        dealer = int(dealer)
        self.match = BasicRummyMatch.create(n, self.rules, dealer) if self.episode == "match" else None
        if "deck" in options:
            self.game = BasicRummyState.from_deck(options["deck"], n, self.rules, dealer)
        else:
            self.game = BasicRummyState.new_hand(n, self.rules, self._rng, dealer)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[self.game.current_player]
        self._add_information_sets()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        assert self.game is not None, "call reset() first"
        seat = self.possible_agents.index(agent)
        scores = self.match.totals if self.match is not None else None
        obs = enc.encode(self.game.information_set(seat), self.rules, self.encoding, scores)
        if not self.game.is_over and self.game.current_player == seat and not self.terminations[agent]:
            mask = self.game.legal_mask()
        else:
            mask = self._no_moves.copy()
        return {"observation": obs, "action_mask": mask}

    def state(self) -> np.ndarray:
        assert self.game is not None, "call reset() first"
        return enc.state_vector(self.game)

    def step(self, action: Optional[int]) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        assert self.game is not None
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not 0 <= action < NUM_ACTIONS:
            raise IllegalActionError(f"action must be an integer action id 0..{NUM_ACTIONS - 1}, got {action!r}")
        if action not in self.game.legal_actions():
            if self.illegal_action == "terminate":
                self._terminate_illegal(agent)
                return
            self.game.step(action)  # raises IllegalActionError naming the legal actions; nothing changed
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.infos[agent] = {}  # the others keep theirs (hand results) until they act
        self.game.step(action)
        if self.game.is_over:
            self._end_hand()
        self.agent_selection = self.agents[self.game.current_player]
        self._add_information_sets()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _add_information_sets(self) -> None:
        """The info of the agent to move (of every agent once the episode ends) carries its
        information set and the rules: what agents read."""
        assert self.game is not None
        over = all(self.terminations.values())
        for seat, agent in enumerate(self.agents):
            if over or agent == self.agent_selection:
                info = self.infos[agent]
                info["information_set"] = self.game.information_set(seat)
                info["rules"] = self.rules
                info["game"] = GAME

    def _terminate_illegal(self, agent: str) -> None:
        """PettingZoo's illegal-move convention, as ``TerminateIllegalWrapper`` applies it."""
        EnvLogger.warn_on_illegal_move()
        self._cumulative_rewards[agent] = 0.0
        self.terminations = dict.fromkeys(self.agents, True)
        self.truncations = dict.fromkeys(self.agents, True)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards[agent] = self.illegal_reward
        self._accumulate_rewards()
        self._deads_step_first()

    def _win_loss(self, winner: Optional[int]) -> list[float]:
        n = self.num_players
        if winner is None:
            return [0.0] * n
        return [1.0 if seat == winner else -1.0 / (n - 1) for seat in range(n)]

    def _end_hand(self) -> None:
        assert self.game is not None and self.game.result is not None
        result = self.game.result
        points = [float(r) for r in result.rewards]
        info: dict[str, Any] = {"hand_result": result.to_dict()}
        episode_over = True
        win_loss = self._win_loss(result.winner)
        if self.match is not None:
            self.match.record(result)
            info["match_points"] = list(self.match.totals)
            if self.match.is_over:
                final = self.match.result()
                info["match_result"] = final.to_dict()
                win_loss = self._win_loss(final.winner)
            else:
                episode_over = False
                win_loss = [0.0] * self.num_players
        if self.reward_mode == "win_loss":
            values = win_loss
        elif self.reward_mode == "scaled":
            values = [p / POINTS_SCALE for p in points]
        else:
            values = points
        self.rewards = {a: values[i] for i, a in enumerate(self.agents)}
        for a in self.agents:  # keep earlier results an agent has not seen yet (match mode)
            earlier = self.infos[a].get("hand_results", [])
            self.infos[a] = dict(info, hand_results=earlier + [info["hand_result"]])
        if episode_over:
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            assert self.match is not None
            self.game = self.match.new_hand(self._rng)

    def render(self) -> Optional[str]:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'")
            return None
        assert self.game is not None, "call reset() first"
        text = self.game.render()
        if self.match is not None:
            text += "\nmatch points: " + ", ".join(f"player_{i} {t}" for i, t in enumerate(self.match.totals))
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release: the env holds no files, windows or processes."""
