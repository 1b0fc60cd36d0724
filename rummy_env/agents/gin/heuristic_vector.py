"""The ``heuristic`` agent's moves as array operations over many games of the vector engine.

Why: ``HeuristicAgent`` decides one game at a time, about a quarter of a millisecond a
move, most of it numpy call overhead on small arrays. Training against it and search
rollouts need thousands of its moves a second; here one call decides for all the games
given, feeding the batch meld solver one large array instead of many small ones. With
numba installed, its heaviest terms (the expected deadwood after the next draw, the
deadwood after taking the face-up card) run as compiled loops (``rummy_env/agents/gin/heuristic_jit.py``)
with the same numbers; the array versions here are the fallback and the reference.

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

import warnings
from dataclasses import dataclass, fields
from typing import Optional

import numpy as np

from rummy_env.agents.gin.heuristic import DEFAULTS, KNOCK_RULES, KNOCK_VALUE, KNOCK_WORLDS
from rummy_env.core import melds
from rummy_env.core.cards import NUM_CARDS, NUM_RANKS, card_value
from rummy_env.gin.game import BIG_GIN, DISCARD, DRAW_STOCK, KNOCK, PASS, TAKE_DISCARD, Phase
from rummy_env.gin.rules import Rules
from rummy_env.gin.vector import VectorGinRummy

_ONE = np.uint64(1)
_BITS = _ONE << np.arange(NUM_CARDS, dtype=np.uint64)
_FULL = np.uint64((1 << NUM_CARDS) - 1)
_CARDS = np.arange(NUM_CARDS)
_RANK, _SUIT = _CARDS % NUM_RANKS, _CARDS // NUM_RANKS
# _RELATED[c]: the cards f whose sight with the opponent bears on the danger of discarding
# c (same rank, or same suit within two ranks; the rule of ``HeuristicAgent._danger``), as
# a 52-bit mask. The relation is symmetric.
_RELATED = np.array([
    sum(1 << f for f in range(NUM_CARDS)
        if _RANK[c] == _RANK[f] or (_SUIT[c] == _SUIT[f] and abs(int(_RANK[c]) - int(_RANK[f])) <= 2))
    for c in range(NUM_CARDS)
], dtype=np.uint64)
# the deadwood values a card can have and, per value, the 52-bit mask of the cards worth
# it; without and with five_under_ten
_VALUE_MASKS = []
for _f in (False, True):
    _value = np.array([card_value(c, _f) for c in range(NUM_CARDS)])
    _worth = np.unique(_value)
    _VALUE_MASKS.append((_worth.astype(np.float64), np.array([_BITS[_value == v].sum() for v in _worth], dtype=np.uint64)))


_COMPILED: list = []  # [rummy_env.agents.gin.heuristic_jit or None], resolved on first use


def _compiled():
    """The compiled kernels (``rummy_env.agents.gin.heuristic_jit``) when the meld solver's are in use
    (``rummy_env.core.melds._kernels``: numba installed, not switched off, checked) and these
    compile and agree with the array versions on a few hands; else None. Decided once
    per process."""
    if not _COMPILED:
        kernels = None
        if melds._kernels() is not None:
            try:
                from rummy_env.agents.gin import heuristic_jit

                problem = "" if _kernels_agree(heuristic_jit) else "they disagree with the array operations"
            except Exception as exc:  # numba could not compile or cache them here
                problem = f"{type(exc).__name__}: {exc}"
            if problem:
                warnings.warn(f"agents: the heuristic's numba kernels are not used ({problem})", RuntimeWarning,
                              stacklevel=3)
            else:
                kernels = heuristic_jit
        _COMPILED.append(kernels)
    return _COMPILED[0]


def _kernels_agree(jit) -> bool:
    """The compiled expected deadwood and take values equal the array versions on a few
    random 10-card hands, under two rule options."""
    rng = np.random.default_rng(0)
    order = np.argsort(rng.random((40, NUM_CARDS)), axis=1)
    hands = (_BITS[order[:, :10]]).sum(axis=1, dtype=np.uint64)
    unseen = (_BITS[order[:, 10:40]]).sum(axis=1, dtype=np.uint64)
    unseen[0] = 0
    top = order[:, 45].astype(np.intp)
    for aces_high, five_under_ten in ((False, False), (True, True)):
        opts = {"aces_high": aces_high, "five_under_ten": five_under_ten}
        whole = melds.min_deadwood(hands, **opts).astype(np.float64)
        completions = melds.meld_completions(hands, aces_high=aces_high)
        if not np.array_equal(jit.mean_over_unseen(hands, unseen, completions, whole, aces_high, five_under_ten),
                              _mean_over_unseen_numpy(hands, unseen, completions, whole, opts), equal_nan=True):
            return False
        got, want = jit.take_values(hands, top, aces_high, five_under_ten), _take_values_numpy(hands, top, opts)
        if not all(np.array_equal(g, w) and g.dtype == w.dtype for g, w in zip(got, want)):
            return False
    return True


def _set_bits(masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every card of (n,) uint64 card masks as (row, card) index arrays, in ``np.nonzero``'s
    order (by row, then card), read off the masks' bytes rather than an (n, 52) comparison."""
    (flat,) = np.unpackbits(np.ascontiguousarray(masks, dtype="<u8").view(np.uint8), bitorder="little").view(bool).nonzero()
    return flat >> 6, flat & 63


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
    # discard rows goes through ``_mean_over_unseen`` in one call: its cost is mostly per call
    bases, base_unseen, base_whole = [], [], []
    walls = wall_rows(pos)
    if walls.size:  # take the discard only to knock: the knock rule (turn), on the hand with the discard
        best, knock_card = wall_knocks(pos, walls, rules)
        out.knock_card[walls] = knock_card
        out.take[walls] = (best == 0) | (pos.turn[walls] < late_turn) | (best <= late_knock_max)
    at_wall = (pos.phase == Phase.DRAW) & (mask[:, PASS] == 1)
    can = np.flatnonzero((pos.phase != Phase.DISCARD) & (mask[:, TAKE_DISCARD] == 1) & ~at_wall)
    if can.size:
        after_take, now = _take_values(pos.hands[can], pos.top[can], opts)
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
        row, card, base, unseen_d, whole_d = _discard_bases(pos.hands[d], legal, after, unseen[d])
        bases.append(base)
        base_unseen.append(unseen_d)
        base_whole.append(whole_d)
    if not bases:
        return out
    mean = _mean_over_unseen(np.concatenate(bases), np.concatenate(base_unseen), opts, whole=np.concatenate(base_whole))
    if can.size:
        out.take[can], out.after_take[can], out.stock_expected[can] = _take_choice(
            after_take, now, mean[: can.size], unseen[can], take_margin)
    if d.size:
        out.expected[d] = _discard_expected(legal.shape, row, card, unseen_d, whole_d, mean[can.size :])
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
    ``late_knock_max``; defaults ``rummy_env.agents.gin.heuristic.DEFAULTS``). Ties between equally
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
    from rummy_env.agents.gin.knock_vector import counter_draws, knock_decisions  # knock_vector builds on this module

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


def danger(opponent_known: np.ndarray, opponent_thrown: np.ndarray, turn: np.ndarray, aces_high: bool) -> np.ndarray:
    """(n, 52) float: ``HeuristicAgent._danger`` of discarding each card, from public facts
    only: the cards the opponent took and still holds, those it threw or passed on
    (uint64 masks), and the turn."""
    known = np.asarray(opponent_known, dtype=np.uint64)
    thrown = np.asarray(opponent_thrown, dtype=np.uint64) & ~known  # a card it took and holds counts as held
    # raw[b, c]: 2 for each related card it holds, -1 for each it threw or passed on; bit
    # counts, not a float matrix product (BLAS would start threads that spin against torch's)
    held = np.bitwise_count(known[:, None] & _RELATED).astype(np.float64)  # (uint8 counts: no subtraction in uint8)
    raw = 2.0 * held - np.bitwise_count(thrown[:, None] & _RELATED)
    turn = np.minimum(np.asarray(turn), 20).astype(np.float64)
    risk = np.maximum(raw, 0.0) * (0.5 + turn / 20)[:, None]
    some = np.flatnonzero(known != 0)
    if some.size:
        feeds = melds.forms_meld_batch(
            np.repeat(known[some], NUM_CARDS), np.tile(_CARDS, some.size), aces_high=aces_high
        ).reshape(some.size, NUM_CARDS)
        risk[some] = np.where(feeds, 8.0, risk[some])
    return risk


def _mean_over_unseen(base: np.ndarray, unseen: np.ndarray, opts: dict, whole: Optional[np.ndarray] = None) -> np.ndarray:
    """For each (n,) 10-card ``base`` hand: the mean over its ``unseen`` cards u of the
    least deadwood of base | u after the best discard (NaN where nothing is unseen).
    ``whole``: ``melds.min_deadwood(base)`` when the caller already has it.

    Only the u that make a meld with ``base`` go through the meld solver (a few of the
    thirty-odd): any other u is deadwood in every arrangement of base | u, so the best is
    to throw it (the deadwood of ``base``) or to keep it and throw base's best card
    (``best_discard_deadwood(base)`` plus u's value), exactly.
    """
    whole = (melds.min_deadwood(base, **opts) if whole is None else whole).astype(np.float64)
    completions = melds.meld_completions(base, aces_high=opts["aces_high"])
    if _compiled() is not None:
        return _compiled().mean_over_unseen(base, unseen, completions, whole, opts["aces_high"], opts["five_under_ten"])
    return _mean_over_unseen_numpy(base, unseen, completions, whole, opts)


def _mean_over_unseen_numpy(base: np.ndarray, unseen: np.ndarray, completions: np.ndarray, whole: np.ndarray,
                            opts: dict) -> np.ndarray:
    """``_mean_over_unseen`` as numpy array operations (without numba; the reference the
    compiled kernel is tested against)."""
    pair, card = _set_bits(unseen & completions)
    # one solver call for both: base's best discard, and that of base | u for each completion u
    solved = melds.best_discard_deadwood(np.concatenate([base, base[pair] | _BITS[card]]), **opts)
    kept = solved[: base.size].astype(np.float64)
    # a plain u adds min(whole, kept + value(u)) = kept + min(whole - kept, value(u)): summed
    # per card value, one popcount per value (10, or 2 with five_under_ten) instead of a pass
    # over 52 cards (integers: exact)
    worth, worth_masks = _VALUE_MASKS[int(opts["five_under_ten"])]
    plain = unseen & ~completions
    by_value = np.bitwise_count(plain[:, None] & worth_masks[None, :])
    sums = kept * np.bitwise_count(plain) + (by_value * np.minimum((whole - kept)[:, None], worth[None, :])).sum(axis=1)
    sums += np.bincount(pair, weights=solved[base.size :], minlength=base.size)
    counts = np.bitwise_count(unseen)
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums / counts


def _take_values(hands: np.ndarray, top: np.ndarray, opts: dict) -> tuple[np.ndarray, np.ndarray]:
    """For 10-card ``hands`` and the face-up card ``top``: the least deadwood after taking it
    (and discarding another card), and the hands' least deadwood now."""
    if _compiled() is not None:
        return _compiled().take_values(hands, top, opts["aces_high"], opts["five_under_ten"])
    return _take_values_numpy(hands, top, opts)


def _take_values_numpy(hands: np.ndarray, top: np.ndarray, opts: dict) -> tuple[np.ndarray, np.ndarray]:
    """``_take_values`` as numpy array operations (without numba; the reference)."""
    after = melds.discard_deadwood(hands | _BITS[top], **opts).astype(np.float64)
    after[after < 0] = np.inf
    after[np.arange(top.size), top] = np.inf  # the card just taken cannot be discarded
    return after.min(axis=1), melds.min_deadwood(hands, **opts)


def _take_choice(after_take: np.ndarray, now: np.ndarray, expected: np.ndarray, unseen: np.ndarray, margin: float):
    """Take the face-up card: its best deadwood beats the ``expected`` best after a stock draw
    (``_mean_over_unseen`` of the hands) by ``margin``. Returns the choice, the least
    deadwood after taking, and the expected after a stock draw."""
    none = unseen == 0
    take = np.where(none, after_take < now, after_take + margin < expected)
    return take, after_take, np.where(none, now, expected)


def discard_scores(expected: np.ndarray, risk: np.ndarray, danger_weight: float = DEFAULTS["danger_weight"]) -> np.ndarray:
    """(n, 52): the scripted agent's score of each discard (lower is better): the deadwood
    ``expected`` after the next draw (``expected_deadwood``; +inf for cards that cannot be
    discarded) plus ``danger_weight`` times ``risk`` (``danger``). The one place the two
    terms are weighed, for the agent (``analyse``) and for the opponent model (``rummy_env.agents.gin.belief``)."""
    return expected + danger_weight * risk


def expected_deadwood(hands: np.ndarray, legal: np.ndarray, after: np.ndarray, unseen: np.ndarray, opts: dict) -> np.ndarray:
    """(n, 52): for 11-card ``hands``, the deadwood expected after discarding each card and
    drawing one of the ``unseen`` cards (then discarding the best card): the scripted
    agent's meld-potential term. ``legal`` (n, 52) bool: the cards that may be discarded
    (+inf elsewhere); ``after``: ``melds.discard_deadwood`` of the hands (the deadwood
    of each hand without each card); ``opts``: the solver's rule options."""
    row, card, base, unseen_rows, whole = _discard_bases(hands, legal, after, unseen)
    mean = _mean_over_unseen(base, unseen_rows, opts, whole=whole)
    return _discard_expected(legal.shape, row, card, unseen_rows, whole, mean)


def _discard_bases(hands: np.ndarray, legal: np.ndarray, after: np.ndarray, unseen: np.ndarray):
    """The 10-card hands left by each legal discard: (row, card) of each, the hand, the
    unseen cards of its row and its least deadwood (``after``: no need to solve it again)."""
    row, card = np.nonzero(legal)
    return row, card, hands[row] & ~_BITS[card], unseen[row], after[row, card]


def _discard_expected(shape: tuple, row: np.ndarray, card: np.ndarray, unseen: np.ndarray, whole: np.ndarray,
                      mean: np.ndarray) -> np.ndarray:
    """``expected_deadwood``'s (n, 52) table from ``_mean_over_unseen`` of the ``_discard_bases``
    (``whole`` where nothing is unseen; +inf for cards that may not be discarded)."""
    scores = np.full(shape, np.inf)
    scores[row, card] = np.where(unseen == 0, whole, mean)
    return scores
