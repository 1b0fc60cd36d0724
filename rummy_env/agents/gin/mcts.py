"""``mcts``: Monte Carlo search over determinised information sets (PIMC).

Plain Monte Carlo search on the true state would peek at the opponent's cards. Here each
simulation samples a world consistent with the player's information set (the
opponent's unknown cards and the stock order dealt from the cards this player has not
seen, by the opponent model of ``rummy_env.agents.gin.belief``), plays each candidate move
in that world and then plays the hand out, both seats choosing from their own
information set in that world. It plays the heuristic's own move unless another
candidate scored clearly more points over the same worlds.

Choices that make it strong for its cost:
- rollouts by the ``heuristic`` agent with its turn-based knock rule (``heuristic:knock=turn``,
  the rule its array version plays; ``rollout=heuristic``, the default): the search
  is then a one-step policy improvement over a strong player; ``rollout=greedy`` is
  cheaper and weaker (the ``simple`` agent's play: take a face-up card that melds,
  discard the card leaving the least deadwood, knock as soon as legal);
  ``rollout=heuristic-estimate`` plays the heuristic with its default knock estimate
  (``rummy_env.agents.gin.knock_vector``: every playout that may knock samples the
  opponent's hand), closer to the ``heuristic`` agent and several times dearer;
  ``rollout=net`` plays a policy network's most probable move for both seats (the
  ``ppo`` agent's array policy on all the playouts at once; ``net=PATH`` a policy file,
  default the shipped ``ppo``): the search then improves on the network, the step that
  expert iteration (``rummy expert-iteration``, ``rummy_env.train.expert_iteration``)
  repeats as the network learns the search's moves;
- all playouts of a round at once: every (world, candidate) pair of a round is a row of
  the vector engine (``VectorGinRummy.load_states``) and both seats' moves are the array
  versions of the policies (``rummy_env.agents.gin.heuristic_vector``, ``rummy_env.agents.gin.simple_vector.simple_actions``),
  about five times as many playouts a second as playing them one by one;
- common random numbers: every candidate is tried in the same worlds with the same
  tie-breaks, so the comparison between moves is far less noisy than the points
  themselves;
- candidates: drawing, both draws (or take/pass); discarding, the ``heuristic`` agent's
  ``candidates`` best discards, its own choice, and the knock with the least deadwood,
  and with ``prior=K`` the network's ``K`` most probable moves (from the player's own
  observation), so that moves the network rates and the heuristic does not are tried;
- a confidence rule: the search plays the heuristic's own move unless another candidate
  beats it by more than ``confidence`` standard errors of the paired difference over
  the worlds (never on fewer than 4 worlds, and taking the deviation as at least one
  point), so too few worlds make it fall back to the heuristic rather than to noise;
- dropping losers: after every round (up to 64 worlds), candidates more than 2 standard
  errors worse than the heuristic's move stop being played, so the budget goes to the
  contenders, and the search ends early when none is left;
- worlds weighted by the opponent's play (``weighted=true``, ``rummy_env.agents.gin.belief``): the
  opponent's hand is drawn from a model in which hands with less deadwood grow more
  likely as the opponent discards (real hands organise over a hand; uniform worlds
  overstate the opponent's deadwood by 18 to 30 points once it has discarded), and
  hands that meld with cards it threw or passed on, leave cards it took unmelded, or
  could have knocked are less likely, and each hand is weighed by how likely a sensible
  player holding it would have made the opponent's last discard; ``weighted=false``
  deals the hidden cards uniformly;
- a knock is scored exactly in each world (the showdown needs no rollout);
- a win bonus: each playout is worth its points plus ``win_bonus`` (default 10) if the
  hand is won and minus it if lost, because points alone made the search win bigger
  hands but not more of them (51.7% of 600 hands against ``heuristic:knock=turn`` with
  no bonus, 53.3% of 2,000 with 10 points; +6.0 and +3.8 points a hand; docs/findings/search.md).

Budget: ``simulations`` playouts per move, over all candidates (reproducible with a
seed; the default 1,000 takes about 0.2 s a move on our 2-core machine), or ``time``
seconds per move when given (then the result depends on the machine's speed). This is
perfect-information Monte Carlo (PIMC): it averages over worlds instead of building one
tree over information sets (IS-MCTS). An earlier single-observer IS-MCTS with greedy
rollouts did worse than PIMC at equal cost in our trials (not kept in the repo).
"""

from __future__ import annotations

import os
import time as _time
from types import MappingProxyType
from typing import Any, Optional, Sequence

import numpy as np

from rummy_env.agents.gin import belief
from rummy_env.agents.base import Agent, game_input, legal_actions
from rummy_env.agents.gin.heuristic import HeuristicAgent
from rummy_env.agents.gin.heuristic_vector import heuristic_actions
from rummy_env.agents.gin.policies import PPOPolicy
from rummy_env.agents.gin.ppo import PPOAgent
from rummy_env.agents.gin.ppo_actions import _log_probs
from rummy_env.agents.gin.simple_vector import simple_actions
from rummy_env.core import melds
from rummy_env.core.cards import NUM_CARDS
from rummy_env.gin.game import BIG_GIN, KNOCK, NUM_ACTIONS, GinRummyState, InformationSet, Phase
from rummy_env.gin.rules import Rules
from rummy_env.gin.vector import VectorGinRummy

ROLLOUTS = ("heuristic", "greedy", "heuristic-estimate", "net")
BASES = ("heuristic", "net")  # whose move the search keeps unless another is clearly better
ROUND = 64  # worlds sampled and played out at once; clearly worse candidates are dropped after each round
ELIMINATE_SE = 2.0
MIN_WORLDS = 4  # fewer worlds than this: play the heuristic's move


class MCTSAgent(Agent):
    name = "mcts"
    game = "gin"
    file_options = ("net",)
    budgets = MappingProxyType({"simulations": 0.0002, "time": 1.0})  # 1,000 playouts: about 0.2 s a move

    def __init__(
        self,
        seed: Optional[int] = None,
        simulations: int = 1000,
        time: Optional[float] = None,
        candidates: int = 3,
        rollout: str = "heuristic",
        confidence: float = 1.0,
        weighted: bool = True,
        win_bonus: float = 10.0,
        net: Optional[str] = None,
        prior: int = 0,
        base: str = "heuristic",
    ) -> None:
        super().__init__(seed)
        if simulations < 1:
            raise ValueError(f"simulations must be >= 1, got {simulations}")
        if time is not None and not 0 < time < float("inf"):
            raise ValueError(f"time must be a number of seconds > 0, got {time}")
        if candidates < 1:
            raise ValueError(f"candidates must be >= 1, got {candidates}")
        if rollout not in ROLLOUTS:
            raise ValueError(f"rollout must be one of {', '.join(ROLLOUTS)}, got {rollout!r}")
        if confidence < 0:
            raise ValueError(f"confidence must be >= 0 standard errors, got {confidence}")
        if not isinstance(weighted, bool):
            raise ValueError(f"weighted must be true or false, got {weighted!r}")
        if win_bonus < 0:
            raise ValueError(f"win_bonus must be >= 0 points, got {win_bonus}")
        if prior < 0:
            raise ValueError(f"prior must be >= 0 moves of the network, got {prior}")
        if base not in BASES:
            raise ValueError(f"base must be one of {', '.join(BASES)}, got {base!r}")
        uses_net = rollout == "net" or prior > 0 or base == "net"
        if net is not None and not uses_net:
            raise ValueError(f"net={net!r} is only read with rollout=net, prior > 0 or base=net; set one of them")
        # the network (rollouts, prior, base move): the ppo agent's, loaded once per process
        self.network = _network_agent(seed, net) if uses_net else None
        self.simulations = simulations
        self.time = time
        self.candidates = candidates
        self.rollout = rollout
        self.confidence = confidence
        self.weighted = weighted
        self.win_bonus = float(win_bonus)
        self.prior = prior
        self.base = base
        # the move to improve on comes from the heuristic's turn-based knock rule, the one
        # its array version plays in the rollouts (sampling a knock estimate per playout
        # would cost more than the playouts)
        self.guide = HeuristicAgent(seed, knock="turn")
        # searched decisions, and those where it did not play the heuristic's move, over the
        # agent's life (not cleared by reset: for reports over many games)
        self.decisions = self.deviations = 0

    def reset(self, seed: Optional[int] = None) -> None:
        super().reset(seed)
        self.guide.reset(seed)

    def _moves(self, legal: set[int], infoset: InformationSet, rules: Rules, default: int,
               extra: Sequence[int] = ()) -> list[int]:
        """Candidate moves, the base move (``default``) first; ``extra``: the network's
        most probable moves (``prior``)."""
        if infoset.phase != Phase.DISCARD:
            return [default] + sorted(legal - {default})
        if BIG_GIN in legal:
            return [BIG_GIN]
        moves = [default] + self.guide.ranked_discards(infoset, rules, legal)[: self.candidates] + list(extra)
        knocks = [a for a in legal if KNOCK <= a < BIG_GIN]
        if knocks:
            after = melds.discard_deadwood(infoset.hand, aces_high=rules.aces_high, five_under_ten=rules.five_under_ten)
            moves.append(min(knocks, key=lambda a: (after[a - KNOCK], a)))
        return list(dict.fromkeys(moves))

    def _sample(self, infoset: InformationSet, rules: Rules, n: int) -> list[GinRummyState]:
        """``n`` worlds from the information set: the opponent model's (``rummy_env.agents.gin.belief``)
        with ``weighted``, else uniform."""
        return belief.sample_worlds(infoset, rules, self.rng, n, weighted=self.weighted)

    def _values(self, worlds: list[GinRummyState], moves: list[int], me: int) -> np.ndarray:
        """(worlds, moves): points to ``me`` when each move is played in each world and the
        hand played out (plus ``win_bonus`` if ``me`` won the hand, minus it if ``me``
        lost), all at once on the vector engine."""
        w, m = len(worlds), len(moves)
        encoding = "flat" if self.rollout == "net" else None  # the network reads the flat observations
        env = VectorGinRummy(w * m, rules=worlds[0].rules, encoding=encoding, seed=0)
        env.load_states(np.arange(w * m), [world for world in worlds for _ in range(m)])
        world_of = np.repeat(np.arange(w), m)
        values = np.zeros(w * m)
        live = np.ones(w * m, dtype=bool)
        actions = np.tile(np.asarray(moves, dtype=np.int64), w)
        rng = np.random.default_rng(int(self.rng.integers(1 << 62)))
        while True:
            result = env.step(actions, active=live)
            ended = live & result.terminated
            points = result.rewards[ended, me]
            values[ended] = points + self.win_bonus * np.sign(points)
            live &= ~result.terminated
            rows = np.flatnonzero(live)
            if rows.size == 0:
                return values.reshape(w, m)
            if self.rollout == "greedy":
                moved = simple_actions(env, rows, rng)
            elif self.rollout == "net":  # greedy: the same move in the same position, for every candidate
                assert self.network is not None
                unused = np.zeros(rows.size, dtype=np.uint64)  # greedy play draws nothing
                moved = PPOPolicy(self.network.nets, greedy=True)(env, rows, unused, unused.astype(np.int64))
            else:  # the same tie-breaks for every candidate in a world (common random numbers)
                noise = rng.random((w, NUM_CARDS))[world_of[rows]]
                knock = "estimate" if self.rollout == "heuristic-estimate" else "turn"
                moved = heuristic_actions(env, rows, rng, noise, knock=knock)
            actions = np.zeros(w * m, dtype=np.int64)
            actions[rows] = moved

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        legal = legal_actions(observation)
        decision = self.next_decision()  # counted as ``heuristic`` counts its decisions
        if legal.size == 1:
            return int(legal[0])
        infoset, rules = game_input(self, observation, info)
        legal_set = set(legal.tolist())
        # the heuristic's move with its tie-breaks at this decision under this agent's key:
        # with the same seed, the move ``heuristic:knock=turn`` plays
        default = self.guide.choose(infoset, rules, legal_set, decision=decision)
        extra: list[int] = []
        if self.network is not None and (self.prior > 0 or self.base == "net"):
            ranked = self._ranked_by_network(observation, info, legal)
            extra = ranked[: self.prior]
            if self.base == "net":
                default = ranked[0]
        moves = self._moves(legal_set, infoset, rules, default, extra)
        if len(moves) == 1:
            return moves[0]
        return self._search(infoset, rules, moves)

    def _ranked_by_network(self, observation: dict[str, np.ndarray], info: dict[str, Any],
                           legal: np.ndarray) -> list[int]:
        """The legal moves by the network's probability (ties: lowest id first), from this
        player's own observation and info, as the ``ppo`` agent reads them."""
        assert self.network is not None
        inputs = self.network.inputs(observation, info)[None]
        mask = np.zeros((1, NUM_ACTIONS), dtype=bool)
        mask[0, legal] = True
        logp = _log_probs(self.network.net, np.ascontiguousarray(inputs, dtype=np.float32), mask)[0]
        return sorted((int(a) for a in legal), key=lambda a: (-logp[a], a))

    def _search(self, infoset: InformationSet, rules: Rules, moves: list[int]) -> int:
        """Play ``moves`` (the heuristic's first) in sampled worlds; the best if clearly better.

        Worlds come in rounds of up to ``ROUND``; after each round, candidates clearly worse
        than the heuristic's move (by ``ELIMINATE_SE`` standard errors) stop being played,
        so the budget goes to the contenders; the search ends early when none is left.
        """
        me = infoset.player
        deadline = None if self.time is None else _time.perf_counter() + self.time
        values = np.zeros((0, len(moves)))
        active = list(range(len(moves)))
        spent = 0
        per_playout: Optional[float] = None  # seconds a playout took in the last round (time budget)
        while len(active) > 1:
            if deadline is None:
                left = self.simulations - spent
                if left <= 0 and len(values) >= 2:
                    break
                n = min(ROUND, max(1, -(-left // len(active)), 2 - len(values)))
            else:
                now = _time.perf_counter()
                if now >= deadline and len(values) >= 2:
                    break
                # as many worlds as the time left allows at the last round's pace (a small first round)
                n = ROUND // 4 if per_playout is None else int((deadline - now) / (per_playout * len(active)))
                n = min(ROUND, max(1, n, 2 - len(values)))
            started = _time.perf_counter()
            block = self._values(self._sample(infoset, rules, n), [moves[i] for i in active], me)
            per_playout = (_time.perf_counter() - started) / block.size
            rows = np.full((n, len(moves)), np.nan)
            rows[:, active] = block
            values = np.vstack([values, rows])
            spent += block.size
            mean, se = _paired(values)
            active = [0] + [i for i in active[1:] if mean[i] + ELIMINATE_SE * se[i] > 0]
        self.decisions += 1
        if len(values) < MIN_WORLDS or len(active) < 2:  # too few worlds to trust a standard error
            return moves[0]
        mean, se = _paired(values)
        best = max(active[1:], key=lambda i: mean[i])
        if mean[best] > 0 and mean[best] > self.confidence * se[best]:
            self.deviations += 1
            return moves[best]
        return moves[0]


def _network_agent(seed: Optional[int], path: Optional[str]) -> Any:
    """The ``ppo`` agent of policy file ``path`` (default: the shipped network), whose
    network the search plays in its rollouts and asks for its prior; torch is imported
    only here, when an option uses a network."""
    if path is not None and not os.path.isfile(path):
        raise ValueError(f"net={path!r}: no such policy file (a policy.pt written by rummy train, distill "
                         "or expert-iteration)")
    return PPOAgent(seed, path=path)


def _paired(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and standard error of each column minus column 0, over the rows (worlds) where
    the candidate was played (NaN after it was dropped). Needs at least two rows. The
    standard deviation is taken as at least one point, so that a few worlds that happen
    to agree exactly cannot look infinitely sure."""
    diff = values - values[:, :1]
    n = (~np.isnan(diff)).sum(axis=0)
    return np.nanmean(diff, axis=0), np.maximum(np.nanstd(diff, axis=0, ddof=1), 1.0) / np.sqrt(n)
