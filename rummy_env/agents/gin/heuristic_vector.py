"""The ``heuristic`` agent's moves as array operations over many games of the vector engine.

Why: ``HeuristicAgent`` decides one game at a time, about a quarter of a millisecond a
move, most of it numpy call overhead on small arrays. Training against it and search
rollouts need thousands of its moves a second; here one call decides for all the games
given, feeding the batch meld solver one large array instead of many small ones. The
scoring terms it weighs (the danger of a discard, the deadwood expected after the next
draw, the deadwood after taking the face-up card) are those of
``rummy_env.agents.gin.heuristic_terms``, which the opponent model shares (``danger``,
``discard_scores`` and ``expected_deadwood`` can be imported from here too); this module
turns them into moves.

The decisions are the scripted agent's (``rummy_env/agents/gin/heuristic.py``'s docstring says what
they are): the same take-or-draw and knock choices, and the same discard scores, exactly
(tests compare them on many positions). ``heuristic_actions`` plays the turn-based knock
rule (``knock=turn``) unless asked for ``knock="estimate"``, the scripted agent's default:
that one samples the opponent's hand wherever a knock would keep some deadwood, for all
such games at once (``rummy_env.agents.gin.knock_vector``), a few milliseconds for each
such game, so training opponents, PPO's advice and search rollouts play the turn rule.
Among equally scored discards the card with the largest ``noise`` is played: given as the
agent's counter-based draws (``rummy_env.agents.draws``), the very card ``HeuristicAgent.act``
picks (tournaments: ``rummy_env.agents.gin.policies``); or noise search gives to make
every candidate move's tie-breaks the same in a world; or uniform draws from ``rng``
(training opponents). The knock estimate's sampled hands are equal to the per-game
agent's given the same random numbers, but drawn from different streams (the decisions
then agree in distribution).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Optional

import numpy as np

from rummy_env.agents.gin.heuristic_params import DEFAULTS, KNOCK_RULES, KNOCK_VALUE, KNOCK_WORLDS
from rummy_env.agents.gin.heuristic_terms import (
    danger, discard_bases, discard_expected, discard_scores, expected_deadwood, mean_over_unseen, take_values,
)
from rummy_env.agents.gin.knock_vector import counter_draws, knock_decisions
from rummy_env.core import melds
from rummy_env.core.cards import NUM_CARDS
from rummy_env.gin.game import BIG_GIN, DISCARD, DRAW_STOCK, KNOCK, PASS, TAKE_DISCARD, Phase
from rummy_env.gin.rules import Rules
from rummy_env.gin.vector import VectorGinRummy

__all__ = ["Analysis", "Positions", "actions_from", "analyse", "danger", "discard_scores", "estimate_knocks",
           "expected_deadwood", "heuristic_actions", "positions_of", "wall_knocks", "wall_rows"]

_ONE = np.uint64(1)
_BITS = _ONE << np.arange(NUM_CARDS, dtype=np.uint64)
_FULL = np.uint64((1 << NUM_CARDS) - 1)


@dataclass
class Positions:
    """What the heuristic reads of n positions, as arrays: the mover's side of each game.

    Built from the vector engine (``positions_of``) or from one information set
    (``rummy_env.agents.gin.heuristic_features.positions_from_infoset``); everything here is known to
    the player to move, so whatever is computed from it cannot leak hidden cards.
    """

    phase: np.ndarray  # (n,) Phase values
    mask: np.ndarray  # (n, NUM_ACTIONS) legal actions, 0/1
    hands: np.ndarray  # (n,) uint64 the mover's hand
    opponent_known: np.ndarray  # (n,) uint64 cards the opponent took and still holds
    opponent_thrown: np.ndarray  # (n,) uint64 cards the opponent discarded or passed on
    pile: np.ndarray  # (n,) uint64 the discard pile's cards
    top: np.ndarray  # (n,) int the pile's top card, -1 when empty
    turn: np.ndarray  # (n,) int
    after: np.ndarray  # (n, 52) deadwood left by discarding each card (discard phase; -1 elsewhere)
    knock_limit: np.ndarray  # (n,) int

    @property
    def unseen(self) -> np.ndarray:
        return _FULL & ~(self.hands | self.opponent_known | self.pile)

    def subset(self, index) -> "Positions":
        """The positions ``index`` (an index array or a slice) of these."""
        return Positions(**{f.name: getattr(self, f.name)[index] for f in fields(self)})


def positions_of(env: VectorGinRummy, rows: np.ndarray) -> Positions:
    """The positions of the players to move in games ``rows`` of ``env``."""
    rows = np.asarray(rows, dtype=np.intp)
    p = env.current[rows].astype(np.intp)
    q = 1 - p
    length = env.pile_len[rows]
    top = np.where(length > 0, env.pile[rows, np.maximum(length - 1, 0)], -1).astype(np.intp)
    return Positions(
        phase=env.phase[rows], mask=env.action_mask()[rows], hands=env.hands[rows, p],
        opponent_known=env.known[rows, q], opponent_thrown=env.discarded[rows, q] | env.passed[rows, q],
        pile=env.pile_mask[rows], top=top, turn=env.turn[rows], after=env.discard_deadwood()[rows],
        knock_limit=env.knock_limit[rows],
    )


@dataclass
class Analysis:
    """What the heuristic computes on its way to a move (``analyse``), per position.

    Draw rows (offer or draw phase, the upcard may be taken): ``take`` (its choice),
    ``after_take`` (least deadwood after taking the upcard) and ``stock_expected`` (expected
    least deadwood after a stock draw); NaN in other rows. Discard rows: ``expected``
    (``expected_deadwood``), ``risk`` (``danger``), ``scores`` (``discard_scores``; +inf
    where the card may not be discarded), ``knock`` and ``knock_card`` (its knock choice).
    Rows at the wall (``wall_knock``) where the discard may be taken: ``take`` (to knock)
    and ``knock_card`` (the card it would put face down after taking it).
    """

    take: np.ndarray
    after_take: np.ndarray
    stock_expected: np.ndarray
    expected: np.ndarray
    risk: np.ndarray
    scores: np.ndarray
    knock: np.ndarray
    knock_card: np.ndarray

    def subset(self, index) -> "Analysis":
        """The analysis of positions ``index`` (an index array or a slice) only."""
        return Analysis(**{f.name: getattr(self, f.name)[index] for f in fields(self)})


def analyse(
    pos: Positions,
    rules: Rules,
    *,
    take_margin: float = DEFAULTS["take_margin"],
    danger_weight: float = DEFAULTS["danger_weight"],
    late_turn: int = DEFAULTS["late_turn"],
    late_knock_max: int = DEFAULTS["late_knock_max"],
) -> Analysis:
    """The heuristic's evaluation of ``pos`` (see ``Analysis``), all rows at once."""
    opts = {"aces_high": rules.aces_high, "five_under_ten": rules.five_under_ten}
    n = pos.hands.size
    mask = pos.mask
    unseen = pos.unseen
    out = Analysis(
        take=np.zeros(n, dtype=bool), after_take=np.full(n, np.nan), stock_expected=np.full(n, np.nan),
        expected=np.full((n, NUM_CARDS), np.inf), risk=np.zeros((n, NUM_CARDS)), scores=np.full((n, NUM_CARDS), np.inf),
        knock=np.zeros(n, dtype=bool), knock_card=np.zeros(n, dtype=np.intp),
    )
    # the expected-deadwood term of draw rows (10-card hands) and of every legal discard of
    # discard rows goes through ``mean_over_unseen`` in one call: its cost is mostly per call
    bases, base_unseen, base_whole = [], [], []
    walls = wall_rows(pos)
    if walls.size:  # take the discard only to knock: the knock rule (turn), on the hand with the discard
        best, knock_card = wall_knocks(pos, walls, rules)
        out.knock_card[walls] = knock_card
        out.take[walls] = (best == 0) | (pos.turn[walls] < late_turn) | (best <= late_knock_max)
    at_wall = (pos.phase == Phase.DRAW) & (mask[:, PASS] == 1)
    can = np.flatnonzero((pos.phase != Phase.DISCARD) & (mask[:, TAKE_DISCARD] == 1) & ~at_wall)
    if can.size:
        after_take, now = take_values(pos.hands[can], pos.top[can], opts)
        bases.append(pos.hands[can])
        base_unseen.append(unseen[can])
        base_whole.append(now)
    d = np.flatnonzero(pos.phase == Phase.DISCARD)
    if d.size:
        after = pos.after[d].astype(np.float64)
        risk = danger(pos.opponent_known[d], pos.opponent_thrown[d], pos.turn[d], rules.aces_high)
        knockable = mask[d, KNOCK : KNOCK + NUM_CARDS] == 1
        legal = mask[d, DISCARD : DISCARD + NUM_CARDS] == 1
        best = np.where(knockable, after, np.inf).min(axis=1)
        # no face-up discard legal (the discard taken at the wall): knock
        out.knock[d] = knockable.any(axis=1) & ((best == 0) | (pos.turn[d] < late_turn) | (best <= late_knock_max)
                                                | ~legal.any(axis=1))
        # the least dangerous card among those leaving the least deadwood; the lowest id on ties
        out.knock_card[d] = np.argmin(np.where(knockable & (after == best[:, None]), risk, np.inf), axis=1)
        row, card, base, unseen_d, whole_d = discard_bases(pos.hands[d], legal, after, unseen[d])
        bases.append(base)
        base_unseen.append(unseen_d)
        base_whole.append(whole_d)
    if not bases:
        return out
    mean = mean_over_unseen(np.concatenate(bases), np.concatenate(base_unseen), opts, whole=np.concatenate(base_whole))
    if can.size:
        out.take[can], out.after_take[can], out.stock_expected[can] = _take_choice(
            after_take, now, mean[: can.size], unseen[can], take_margin)
    if d.size:
        out.expected[d] = discard_expected(legal.shape, row, card, unseen_d, whole_d, mean[can.size :])
        out.risk[d] = risk
        out.scores[d] = discard_scores(out.expected[d], risk, danger_weight)
    return out


def wall_rows(pos: Positions) -> np.ndarray:
    """The positions at the wall (``wall_knock``: the draw phase where PASS is legal) where
    the discard may be taken (to knock)."""
    return np.flatnonzero((pos.phase == Phase.DRAW) & (pos.mask[:, PASS] == 1) & (pos.mask[:, TAKE_DISCARD] == 1))


def wall_knocks(pos: Positions, walls: np.ndarray, rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """For the positions ``walls`` at the wall: the least deadwood a knock keeps after
    taking the discard, and the card it puts face down (the least dangerous of those
    leaving that deadwood, the lowest id on ties: ``HeuristicAgent._knocks_at_wall``)."""
    opts = {"aces_high": rules.aces_high, "five_under_ten": rules.five_under_ten}
    top = pos.top[walls]
    after = melds.discard_deadwood(pos.hands[walls] | _BITS[top], **opts)
    knockable = (after >= 0) & (after <= pos.knock_limit[walls, None])
    if not rules.discard_taken_card:
        knockable[np.arange(walls.size), top] = False
    best = np.where(knockable, after, np.iinfo(np.int16).max).min(axis=1)
    risk = danger(pos.opponent_known[walls], pos.opponent_thrown[walls], pos.turn[walls], rules.aces_high)
    return best, np.argmin(np.where(knockable & (after == best[:, None]), risk, np.inf), axis=1)


def heuristic_actions(
    env: VectorGinRummy,
    rows: np.ndarray,
    rng: Optional[np.random.Generator] = None,
    noise: Optional[np.ndarray] = None,
    *,
    knock: str = "turn",
    knock_value: float = KNOCK_VALUE,
    knock_worlds: int = KNOCK_WORLDS,
    draw_keys: Optional[tuple[np.ndarray, np.ndarray]] = None,
    **params: float,
) -> np.ndarray:
    """The ``heuristic`` agent's move (int64) for the player to move in games ``rows``.

    ``params``: the agent's settings (``take_margin``, ``danger_weight``, ``late_turn``,
    ``late_knock_max``; defaults ``rummy_env.agents.gin.heuristic_params.DEFAULTS``). Ties between equally
    scored discards go to the largest of ``noise`` (len(rows), 52) floats when given,
    else of uniform draws from ``rng``.

    ``knock``: ``"turn"`` (the default here: training opponents, search rollouts) or
    ``"estimate"``, the scripted agent's default rule (``rummy_env.agents.gin.knock_vector``
    samples the opponent's hand for every game that may knock with some deadwood, all at
    once; set by ``knock_value`` and ``knock_worlds``; it draws from ``rng``, after the
    tie-break noise, or with ``draw_keys``, the (keys, decisions) of the rows' agents, from
    their counter-based draws: then each game's knock is the per-game agent's with that key
    and decision index, exactly).
    """
    rows = np.asarray(rows, dtype=np.intp)
    if knock not in KNOCK_RULES:
        raise ValueError(f"knock must be one of {', '.join(KNOCK_RULES)}, got {knock!r}")
    if knock == "estimate":
        if {"late_turn", "late_knock_max"} & set(params):
            raise ValueError("late_turn and late_knock_max belong to the turn rule (knock=turn); the knock estimate "
                             "is set by knock_value and knock_worlds")
        if rng is None and draw_keys is None:
            raise ValueError("knock=estimate samples the opponent's hand: heuristic_actions needs rng or draw_keys")
        if not np.isfinite(knock_value) or knock_worlds < 1:
            raise ValueError(f"knock_value must be finite and knock_worlds >= 1, got {knock_value} and {knock_worlds}")
    elif (knock_value, knock_worlds) != (KNOCK_VALUE, KNOCK_WORLDS):
        raise ValueError("knock_value and knock_worlds set the knock estimate (knock=estimate), not knock=turn")
    if rows.size == 0:
        return np.full(0, DRAW_STOCK, dtype=np.int64)
    if noise is None:
        if rng is None:
            raise ValueError("heuristic_actions needs rng or noise to break ties between discards")
        noise = rng.random((rows.size, NUM_CARDS))
    elif np.shape(noise) != (rows.size, NUM_CARDS):
        raise ValueError(f"noise must have shape ({rows.size}, {NUM_CARDS}), got {np.shape(noise)}")
    unknown = sorted(set(params) - set(DEFAULTS))
    if unknown:
        raise TypeError(f"heuristic_actions got unknown settings {unknown}; allowed: {sorted(DEFAULTS)}")
    pos = positions_of(env, rows)
    analysis = analyse(pos, env.rules, **params)
    if knock == "estimate":
        estimate_knocks(env, rows, pos, analysis, rng, knock_value, knock_worlds, draw_keys)
    return actions_from(pos, analysis, noise)


def estimate_knocks(env: VectorGinRummy, rows: np.ndarray, pos: Positions, analysis: Analysis,
                    rng: Optional[np.random.Generator], value: float = KNOCK_VALUE, worlds: int = KNOCK_WORLDS,
                    draw_keys: Optional[tuple[np.ndarray, np.ndarray]] = None) -> np.ndarray:
    """Replace the turn rule's knock choice in ``analysis`` (of ``pos``, games ``rows`` of
    ``env``) by the knock estimate's, in place: Gin (0 deadwood left) always, else the
    estimate's decision for the card the analysis picked (``knock_vector.knock_decisions``),
    sampled from ``rng`` or from the counter-based draws of ``draw_keys`` (keys, decisions
    of the rows); at the wall, the take of the discard to knock likewise. Returns the
    positions (indices into ``rows``) that needed an estimate."""
    d = np.flatnonzero(pos.phase == Phase.DISCARD)
    knockable = pos.mask[d, KNOCK : KNOCK + NUM_CARDS] == 1
    best = np.where(knockable, pos.after[d], np.iinfo(np.int16).max).min(axis=1)
    may = knockable.any(axis=1)
    forced = ~(pos.mask[d, DISCARD : DISCARD + NUM_CARDS] == 1).any(axis=1)  # the discard taken at the wall
    analysis.knock[d] = may & ((best == 0) | forced)
    estimate = d[may & (best > 0) & ~forced & (pos.mask[d, BIG_GIN] == 0)]
    kept = pos.hands[estimate] & ~_BITS[analysis.knock_card[estimate]]
    # at the wall: take the discard to knock by the same estimate (Gin always)
    walls = wall_rows(pos)
    if walls.size:
        wall_best, _ = wall_knocks(pos, walls, env.rules)
        analysis.take[walls] = wall_best == 0
        walls = walls[wall_best > 0]
    estimate = np.concatenate([estimate, walls])
    kept = np.concatenate([kept, (pos.hands[walls] | _BITS[pos.top[walls]]) & ~_BITS[analysis.knock_card[walls]]])
    if estimate.size:
        stacked = None if draw_keys is None else counter_draws(draw_keys[0][estimate], draw_keys[1][estimate], worlds)
        knocks = knock_decisions(env, rows[estimate], kept, rng, worlds=worlds, value=value, draws=stacked)
        at_wall = pos.phase[estimate] == Phase.DRAW
        analysis.knock[estimate[~at_wall]] = knocks[~at_wall]
        analysis.take[estimate[at_wall]] = knocks[at_wall]
    return estimate


def actions_from(pos: Positions, analysis: Analysis, noise: np.ndarray) -> np.ndarray:
    """The heuristic's moves from its ``analysis`` of ``pos``; ties between discards go to
    the largest of ``noise`` (n, 52)."""
    mask = pos.mask
    draw = np.where(analysis.take, TAKE_DISCARD, np.where(mask[:, PASS] == 1, PASS, DRAW_STOCK))
    ties = analysis.scores <= analysis.scores.min(axis=1, keepdims=True) + 1e-9
    card = np.argmax(np.where(ties, noise + 1.0, 0.0), axis=1)
    discard = np.where(analysis.knock, KNOCK + analysis.knock_card, DISCARD + card)
    discard = np.where(mask[:, BIG_GIN] == 1, BIG_GIN, discard)
    return np.where(pos.phase == Phase.DISCARD, discard, draw).astype(np.int64)


def _take_choice(after_take: np.ndarray, now: np.ndarray, expected: np.ndarray, unseen: np.ndarray, margin: float):
    """Take the face-up card: its best deadwood beats the ``expected`` best after a stock draw
    (``mean_over_unseen`` of the hands) by ``margin``. Returns the choice, the least
    deadwood after taking, and the expected after a stock draw."""
    none = unseen == 0
    take = np.where(none, after_take < now, after_take + margin < expected)
    return take, after_take, np.where(none, now, expected)

