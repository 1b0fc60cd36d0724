"""Gin Rummy: PettingZoo AEC environment (``gin_rummy_v0``).

| Import             | ``from rummy_env import gin_rummy_v0``                       |
|--------------------|--------------------------------------------------------------|
| Actions            | Discrete(108), masked                                        |
| Parallel API       | No                                                           |
| Agents             | ``agents = ['player_0', 'player_1']``                        |
| Observation shape  | ``flat``: (479,); ``planes``: (20, 4, 13)                    |
| Observation values | card slices 0/1; scalars >= 0                                |
| Action mask        | int8 (108,)                                                  |
| State shape        | (266,)                                                       |

Two-player Gin Rummy with the exact rules of ../shared/RULES.md: first-turn upcard
offer, knock / Gin / Big Gin, lay-offs, undercuts, the wall and ``max_turns``, and
optionally whole matches to the target score with game, line and shutout bonuses. Rule
options come from ``rules``: a preset name (``classic``, ``eaai``, ``openspiel``), a
YAML path, a mapping or a ``Rules``; ``reset(seed=...)`` never changes them.

Arguments: ``env(render_mode=None, rules="classic", encoding="flat", episode="hand",
reward="points", illegal_reward=-1)``.

Observation: ``{"observation": array, "action_mask": int8 (108,)}``, built only from
the observing player's information set (``rummy_env.encoding`` documents every slice
of both encodings). The mask is all zeros for the player who is not to move.

Actions (``rummy_env.game``): 0 draw from the stock; 1 take the top discard (or the
offered upcard); 2 pass on the upcard; 3 + c discard card c; 55 + c knock with card c
face down (Gin at 0 deadwood); 107 declare Big Gin. Card c = suit * 13 + rank.

Episodes: ``episode="hand"`` (default) ends after one hand; ``episode="match"`` plays
hands until a player reaches ``target_score``, dealing the next hand in the same episode.
The dealer of the first hand is drawn from the env's seeded generator (or given as
``reset(options={"dealer": 0 or 1})``; ``options={"deck": [52 ids]}`` deals a fixed
deck order for the first hand); the dealer alternates after each hand.

Rewards (zero-sum, given when a hand ends):
- ``points``: the hand score, +points to the winner and -points to the loser (0 on a
  draw or tie). In a match the last hand also carries the bonuses, so each player's
  return is their grand total minus the opponent's.
- ``scaled``: ``points`` / 100.
- ``win_loss``: +1 / -1 / 0 by who won the hand (``episode="hand"``) or the match.
A hand that ends in a draw (the wall, ``max_turns``) is terminal, never truncated.

Infos: the info of the agent to move (and of every agent when the episode ends) holds
its current ``information_set`` (``rummy_env.game.InformationSet``: what that player
knows, nothing more) and the ``rules``, which is what agents read. At the step that ends a hand, every agent's info also has ``hand_result``
(outcome, winner, points, both deadwoods, melds, lay-offs, the shown hands; nothing is
shown after a draw) and ``hand_results`` (every result since that agent last acted: in a
match a short hand can end before it acts), and in a match ``match_points`` and, at the
end, ``match_result``.

Illegal actions: ``raw_env()`` raises ``IllegalActionError`` naming the action and
the legal ones. ``env()`` follows PettingZoo's illegal-move convention: the offender
gets -1, the others 0, every agent is terminated and truncated, and a warning is logged
(exactly what ``TerminateIllegalWrapper`` does), then wraps the env in
``OrderEnforcingWrapper``. The -1 is PettingZoo's convention; with ``reward="points"``
hands are worth tens of points, so train with the action mask (or scaled rewards). The
convention is built into the env
(``raw_env(illegal_action="terminate", illegal_reward=-1)``) instead of stacking
``TerminateIllegalWrapper`` and ``AssertOutOfBoundsWrapper`` because each wrapper layer
forwards every attribute read and the three-layer stack costs about 44 microseconds a
step here, more than the env itself (benchmarks/bench_env.py shows both). An action
that is not an integer in 0..107 is always an error. Unknown ``reset`` options are
ignored (PettingZoo's ``api_test`` passes arbitrary ones).

Render modes: ``ansi`` returns the table as text (both hands: a spectator's view),
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

from rummy_env import encoding as enc
from rummy_env.game import NUM_ACTIONS, GinRummyState, IllegalActionError
from rummy_env.match import Match
from rummy_env.rules import RulesSpec, load_rules

EPISODES = ("hand", "match")
REWARDS = ("points", "scaled", "win_loss")
ILLEGAL_ACTIONS = ("raise", "terminate")
POINTS_SCALE = 100.0

__all__ = ["env", "raw_env", "IllegalActionError"]


def env(**kwargs: Any) -> AECEnv:
    """The env for users: illegal moves end the episode (-1 to the offender), order enforced."""
    kwargs.setdefault("illegal_action", "terminate")
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


class raw_env(AECEnv):
    metadata = {"render_modes": ["ansi", "human"], "name": "gin_rummy_v0", "is_parallelizable": False, "render_fps": 1}

    def __init__(
        self,
        render_mode: Optional[str] = None,
        rules: RulesSpec = "classic",
        encoding: str = "flat",
        episode: str = "hand",
        reward: str = "points",
        illegal_action: str = "raise",
        illegal_reward: float = -1.0,
    ) -> None:
        super().__init__()
        if illegal_action not in ILLEGAL_ACTIONS:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTIONS}, got {illegal_action!r}")
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}, got {render_mode!r}")
        if episode not in EPISODES:
            raise ValueError(f"episode must be one of {EPISODES}, got {episode!r}")
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}, got {reward!r}")
        self.rules = load_rules(rules)
        if episode == "match" and not self.rules.match:
            raise ValueError("episode='match' needs rules with target_score > 0")
        self.encoding = encoding
        obs_shape = enc.observation_shape(encoding)
        self.render_mode = render_mode
        self.episode = episode
        self.reward_mode = reward
        self.possible_agents = ["player_0", "player_1"]
        self.agents = []
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, enc.observation_high(self.rules, encoding), obs_shape, dtype=np.float32),
                    "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.state_space = spaces.Box(0.0, 1.0, (enc.STATE_SIZE,), dtype=np.float32)
        self._rng = np.random.default_rng()
        self.game: Optional[GinRummyState] = None
        self.match: Optional[Match] = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ API

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        options = dict(options or {})  # other keys are ignored, as PettingZoo's api_test expects
        dealer = options.get("dealer", int(self._rng.integers(2)))
        if dealer not in (0, 1):
            raise ValueError(f"reset option dealer must be 0 or 1, got {dealer!r}")
        self.match = Match.create(self.rules, first_dealer=dealer) if self.episode == "match" else None
        if "deck" in options:
            self.game = GinRummyState.from_deck(options["deck"], self.rules, dealer)
        else:
            self.game = GinRummyState.new_hand(self.rules, self._rng, dealer)
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
        scores = tuple(self.match.hand_points) if self.match is not None else None
        obs = enc.encode(self.game.information_set(seat), self.rules, self.encoding, scores)
        if not self.game.is_over and self.game.current_player == seat and not self.terminations[agent]:
            mask = self.game.legal_mask()
        else:
            mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        return {"observation": obs, "action_mask": mask}

    def state(self) -> np.ndarray:
        assert self.game is not None, "call reset() first"
        g = self.game
        stock = 0
        for c in g.stock:
            stock |= 1 << c
        return enc.state_vector((g.hands[0], g.hands[1]), stock, tuple(g.discard_pile), g.phase, g.current_player)

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
        self.rewards = {a: 0.0 for a in self.agents}
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
        current information set and the rules: what agents read."""
        assert self.game is not None
        over = all(self.terminations.values())
        for seat, agent in enumerate(self.agents):
            if over or agent == self.agent_selection:
                self.infos[agent]["information_set"] = self.game.information_set(seat)
                self.infos[agent]["rules"] = self.rules

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

    def _end_hand(self) -> None:
        assert self.game is not None and self.game.result is not None
        result = self.game.result
        points = [float(r) for r in result.rewards]
        info: dict[str, Any] = {"hand_result": result.to_dict()}
        episode_over = True
        win_loss = [float(np.sign(p)) for p in points]
        if self.match is not None:
            self.match.record(result)
            info["match_points"] = list(self.match.hand_points)
            if self.match.is_over:
                final = self.match.result()
                info["match_result"] = final.to_dict()
                bonus = [final.grand_total[p] - final.hand_points[p] for p in (0, 1)]
                points = [points[p] + bonus[p] - bonus[1 - p] for p in (0, 1)]
                win_loss = [0.0, 0.0] if final.winner is None else [1.0 if p == final.winner else -1.0 for p in (0, 1)]
            else:
                episode_over = False
                win_loss = [0.0, 0.0]
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
            self.terminations = {a: True for a in self.agents}
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
            text += f"\nmatch points: player_0 {self.match.hand_points[0]}, player_1 {self.match.hand_points[1]}"
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """Nothing to release: the env holds no files, windows or processes."""
