"""What the opponent probably holds: worlds sampled from an information set, weighted by
how the opponent has played. For the search agents (``mcts``) and ``heuristic``'s knock.

A uniform sample (every unseen card equally likely to be in the opponent's hand) gives
the opponent a random hand. Real opponents keep what melds and throw the rest away, so
by mid-hand their hands are far better than random: uniform worlds overstate the
opponent's deadwood by tens of points, more the later in the hand, and a search over
such worlds acts as if the opponent were never close to knocking; the ``mcts`` agent
given the opponent's true hand (the stock order still unknown) beats ``heuristic`` by
far more than with uniform worlds (docs/findings/search.md, "What limits it", has the
figures and the commands: ``benchmarks/bench_belief.py``, ``bench_search.py --peek``).

The model draws the opponent's unknown cards from

    P(hand) ~ exp(-beta * deadwood(hand))
              * THROWN_MELDS ** (cards it threw or passed on that meld with the hand)
              * TAKEN_ALONE ** (cards it took from the pile that meld with nothing in it)
              * NO_KNOCK if the hand could knock but the opponent discarded without knocking
                (only up to its NO_KNOCK_DISCARDS-th discard: late in a hand players often
                hold out for less deadwood or Gin, as ``heuristic`` does)

where ``beta`` grows with the number of cards the opponent has discarded (more turns to
organise the hand): ``BETA * min(1.5, discards / BETA_DISCARDS)``, so a fresh deal is
uniform. Cards thrown that meld with the opponent's *known* cards alone count in every
world alike and are left out. Sampled by Metropolis: each chain swaps one of the
opponent's unknown cards with an unseen card per step, all chains at once as arrays.

Then the opponent's last discard, which it made holding exactly its hand now plus that
card, weighs each hand (importance resampling of ``OVERSAMPLE`` times as many chains):
by the probability that a sensible player would have thrown that card, a softmax
(temperature ``LAST_DISCARD_TAU``) over the ``heuristic`` agent's discard scores from
the opponent's point of view then (``rummy_env.agents.gin.heuristic_terms``: the deadwood expected
after the next draw plus the danger of feeding this player); and, late in the hand, by
``LATE_NO_KNOCK`` if that hand could have knocked.

The constants were fitted on heuristic self-play with ``benchmarks/bench_belief.py``: the
sampled deadwood then tracks the true deadwood within about 2 points on average at
every stage of the hand, against 18 to 30 points too high for uniform worlds. They
model a sensible opponent, not one particular agent. Reads the information set only.

``rummy_env.agents.gin.knock_vector`` runs the same model for many games at once (the
heuristic's knock estimate on the vector engine); ``ChainDraws`` carries the random numbers
of one call so the two can be compared draw for draw.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple, Optional, Union

import numpy as np

from rummy_env.agents.draws import noise_table
from rummy_env.agents.gin import heuristic_terms
from rummy_env.core import melds
from rummy_env.core.cards import NUM_CARDS, mask_to_cards
from rummy_env.gin.game import GinRummyState, InformationSet
from rummy_env.gin.rules import Rules

BETA = 0.16  # per deadwood point at the opponent's BETA_DISCARDS-th discard (growing to 1.5x that)
BETA_DISCARDS = 6
THROWN_MELDS = 0.25
TAKEN_ALONE = 0.25
NO_KNOCK = 0.15
NO_KNOCK_DISCARDS = 6  # after this many discards players often hold out for less deadwood or Gin
STEPS = 40  # Metropolis steps per chain
OVERSAMPLE = 4  # chains per world when the last discard reweighs them
LAST_DISCARD_TAU = 1.0  # softmax temperature over the discard scores, in deadwood points
LATE_NO_KNOCK = 0.7  # after NO_KNOCK_DISCARDS discards: hands that could have knocked at the last discard

_BITS = np.uint64(1) << np.arange(NUM_CARDS, dtype=np.uint64)
_FULL = np.uint64((1 << NUM_CARDS) - 1)
_ZERO = np.uint64(0)
_LOG_LATE = math.log(LATE_NO_KNOCK)


def opponent_discards(info: InformationSet) -> int:
    """Cards the opponent has discarded this hand (the model's clock: more turns, a better hand)."""
    return sum(1 for seat, event, _ in info.public_history if seat == info.opponent and event == "discard")


class _Score:
    """The model's log-weight of opponent hands, for one information set."""

    def __init__(self, info: InformationSet, rules: Rules) -> None:
        opp, known = info.opponent, info.opponent_known
        self.opts = {"aces_high": rules.aces_high, "five_under_ten": rules.five_under_ten}
        discards = opponent_discards(info)
        self.beta = BETA * min(1.5, discards / BETA_DISCARDS)
        thrown = (info.passed[opp] | info.discarded[opp]) & ~known
        self.thrown = np.array(
            [c for c in mask_to_cards(thrown) if not melds.forms_meld(known, c, aces_high=rules.aces_high)], dtype=np.intp
        )
        self.taken = np.array(mask_to_cards(known), dtype=np.intp)
        # not knocking is evidence only between the opponent's first chance and the late hand
        self.knock_limit = info.knock_limit if 0 < discards <= NO_KNOCK_DISCARDS else -1

    def __call__(self, hands: np.ndarray) -> np.ndarray:
        dead = melds.min_deadwood(hands, **self.opts).astype(np.float64)
        score = -self.beta * dead
        score += math.log(NO_KNOCK) * (dead <= self.knock_limit)
        aces_high = self.opts["aces_high"]
        for cards, log_factor, when in ((self.thrown, math.log(THROWN_MELDS), True), (self.taken, math.log(TAKEN_ALONE), False)):
            if cards.size:
                n, k = hands.size, cards.size
                hit = melds.forms_meld_batch(np.repeat(hands, k), np.tile(cards, n), aces_high=aces_high).reshape(n, k)
                score += log_factor * (hit == when).sum(axis=1)
        return score


def sample_worlds(info: InformationSet, rules: Rules, rng: np.random.Generator, n: int,
                  weighted: bool = True, steps: int = STEPS) -> list[GinRummyState]:
    """``n`` full states consistent with ``info``; with ``weighted``, from the opponent model
    above (else uniform: ``GinRummyState.sample_from_information_set``)."""
    if n < 1:
        raise ValueError(f"n must be at least 1 world, got {n}")
    template = GinRummyState.sample_from_information_set(info, rules, rng)
    opp = info.opponent
    hands, stocks = _sample(info, rules, rng, n, weighted, steps)
    worlds = []
    for row in range(n):
        world = template.clone()
        world.hands[opp] = int(hands[row])
        world.stock = stocks[row].tolist()
        worlds.append(world)
    return worlds


def sample_opponent_hands(info: InformationSet, rules: Rules, rng: Optional[np.random.Generator], n: int,
                          draws: Optional["ChainDraws"] = None) -> np.ndarray:
    """``n`` hands (uint64 masks) the opponent may hold, from the weighted model above (what
    ``heuristic`` estimates a knock's points from). ``draws``: the random numbers to use
    instead of ``rng``'s (``ChainDraws``), so that the array version over many games
    (``rummy_env.agents.gin.knock_vector``) can be checked against this one draw for draw."""
    if n < 1:
        raise ValueError(f"n must be at least 1 hand, got {n}")
    return _sample(info, rules, rng, n, True, STEPS, draws)[0]


@dataclass(frozen=True)
class ChainDraws:
    """The random numbers of one ``sample_opponent_hands`` call, given by the caller.

    Why: the per-game sampler draws from a Generator in an order the array version over many
    games cannot follow (it draws for all games at once); given these, both compute the
    same hands from the same numbers, which is how the two are held equal. The numbers
    are uniforms in [0, 1) with shapes that do not depend on the position, so the array
    version can stack those of many games. ``chains`` = n * OVERSAMPLE (a position without
    a last discard to read uses the first n).
    """

    keys: np.ndarray  # (chains, 52): each chain starts with the unseen cards in the order of their keys, the opponent's first
    moves: np.ndarray  # (steps, 3, chains): per Metropolis step the card out, the card in and the acceptance
    resample: float  # the offset of the systematic resampling by the last discard

    @classmethod
    def random(cls, rng: np.random.Generator, n: int, steps: int = STEPS) -> "ChainDraws":
        """Draws for ``n`` hands from ``rng``."""
        chains = n * OVERSAMPLE
        return cls(rng.random((chains, NUM_CARDS)), rng.random((steps, 3, chains)), float(rng.random()))

    @classmethod
    def of_decision(cls, key: int, decision: int, n: int, steps: int = STEPS) -> "ChainDraws":
        """Draws for ``n`` hands that are a function of an agent's key and decision index
        (``counter_uniforms``): what the ``heuristic`` agent samples with, one game at a
        time and many at once alike."""
        keys, moves, resample = counter_uniforms(np.array([key], dtype=np.uint64), np.array([decision]), n, steps)
        return cls(keys[0], moves[0], float(resample[0]))


def counter_uniforms(keys: np.ndarray, decisions: np.ndarray, n: int,
                     steps: int = STEPS) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For K agents' (key, decision) pairs, the numbers of ``ChainDraws`` for ``n`` hands as
    counter-based draws (``rummy_env.agents.draws.noise_table``, options from 52 on: the
    decision's tie-break noise uses the card ids 0..51): chain keys (K, chains, 52), moves
    (K, steps, 3, chains) and resampling offsets (K,)."""
    chains = n * OVERSAMPLE
    size = chains * NUM_CARDS
    table = noise_table(keys, decisions, size + steps * 3 * chains + 1, start=NUM_CARDS)
    k = table.shape[0]
    return (table[:, :size].reshape(k, chains, NUM_CARDS), table[:, size:-1].reshape(k, steps, 3, chains),
            table[:, -1].copy())


def uniform_index(u: np.ndarray, low, count) -> np.ndarray:
    """Indices ``low`` + [0, ``count``) from uniforms ``u`` (scalars or arrays alike: the
    per-game sampler and the array version make their moves with this one rule)."""
    return low + np.minimum((u * count).astype(np.intp), count - 1)


def _sample(info: InformationSet, rules: Rules, rng: Optional[np.random.Generator], n: int, weighted: bool,
            steps: int, draws: Optional[ChainDraws] = None) -> tuple[np.ndarray, np.ndarray]:
    """The opponent's hands (n,) and the stocks (n, stock size), as ``GinRummyState.stock`` holds
    them; from ``rng``, or from ``draws`` (then the stocks stay in the order of the chains)."""
    unknown = np.array(mask_to_cards(info.unseen), dtype=np.intp)
    need = info.opponent_hand_size - info.opponent_known.bit_count()
    known = np.uint64(info.opponent_known)
    weigh = weighted and 0 < need < unknown.size and steps > 0
    last = _last_discard(info) if weigh else None
    chains = n * OVERSAMPLE if last is not None else n
    if draws is None:
        if rng is None:
            raise ValueError("sampling needs rng or draws")
        # [:need] the opponent's, the rest the stock
        pools = np.ascontiguousarray(rng.permuted(np.broadcast_to(unknown, (chains, unknown.size)), axis=1))

        def propose(size: int, count: int):
            return rng.integers(need, size=count), rng.integers(need, size, size=count), rng.random(count)
    else:
        if draws.keys.shape[0] != n * OVERSAMPLE or draws.moves.shape[:2] != (steps, 3):
            raise ValueError(f"draws are for {draws.keys.shape[0]} chains and {draws.moves.shape[0]} steps; "
                             f"this call needs {n * OVERSAMPLE} and {steps}")
        pools = unknown[np.argsort(draws.keys[:chains, unknown], axis=1, kind="stable")]
        moves = iter(draws.moves[:, :, :chains])

        def propose(size: int, count: int):
            out, into, accept = next(moves)
            return uniform_index(out, 0, need), uniform_index(into, need, size - need), accept
    if weigh:
        _mix(pools, need, _Score(info, rules), known, propose, steps)
        if last is not None:
            hands = known | np.bitwise_or.reduce(_BITS[pools[:, :need]], axis=1)
            offset = rng.random() if draws is None else draws.resample
            log_weight = _last_discard_log_weight(hands, info, rules, last)
            pools = pools[_resample(log_weight[None], n, np.array([offset]))[0]]
        if draws is None:
            pools[:, need:] = rng.permuted(pools[:, need:], axis=1)  # the stock order stays uniform
    return known | np.bitwise_or.reduce(_BITS[pools[:, :need]], axis=1), pools[:, need:]


class _LastDiscard(NamedTuple):
    """The opponent's last discard and what it saw then (its hand was its hand now plus the
    card): ints for one information set (``_last_discard``), or each field a (G,) array for
    G games (what ``_weigh_by_last_discard`` reads)."""

    card: Union[int, np.ndarray]
    taken: Union[int, np.ndarray]  # the card it had just taken from the pile (not its to throw, unless
    # discard_taken_card), or -1
    turn: Union[int, np.ndarray]
    pile: Union[int, np.ndarray]  # the discard pile under the card
    our_known: Union[int, np.ndarray]  # our cards it knew of: taken from the pile and still held
    our_thrown: Union[int, np.ndarray]  # cards we had discarded or passed on


def _last_discard(info: InformationSet) -> Optional[_LastDiscard]:
    """The opponent's last discard, if it is the opponent's last move (None otherwise: at
    the first upcard offer, or when its last move was a pass)."""
    opp, me, history = info.opponent, info.player, info.public_history
    moves = [i for i, (seat, _, _) in enumerate(history) if seat == opp]
    if not moves or history[moves[-1]][1] != "discard":
        return None
    at = moves[-1]
    card = history[at][2]
    taken = history[at - 1][2] if at >= 1 and history[at - 1][:2] == (opp, "take_discard") else -1
    our_known = 0
    for seat, event, c in history[:at]:
        if seat == me and event == "take_discard":
            our_known |= 1 << c
        elif seat == me and event == "discard":
            our_known &= ~(1 << c)
    # since that discard we have at most declined it by drawing from the stock
    our_thrown = info.discarded[me] | (info.passed[me] & ~(1 << card))
    return _LastDiscard(card, taken, info.turn - 1, info.discard_mask & ~(1 << card), our_known, our_thrown)


def _last_discard_log_weight(hands: np.ndarray, info: InformationSet, rules: Rules, last: _LastDiscard) -> np.ndarray:
    """Log-weight of each opponent hand (now) by its last discard: the log-softmax of minus
    the heuristic's discard score of that card over the 11 cards it held, plus the late
    no-knock factor (``_weigh_by_last_discard`` for this one game)."""
    opts = {"aces_high": rules.aces_high, "five_under_ten": rules.five_under_ten}
    u64 = lambda x: np.array([x], dtype=np.uint64)  # noqa: E731
    i64 = lambda x: np.array([x], dtype=np.int64)  # noqa: E731
    game = _LastDiscard(i64(last.card), i64(last.taken), i64(last.turn), u64(last.pile), u64(last.our_known),
                        u64(last.our_thrown))
    return _weigh_by_last_discard(hands, game, np.array([opponent_discards(info) > NO_KNOCK_DISCARDS]),
                                  i64(info.knock_limit), opts, rules.discard_taken_card)


def _weigh_by_last_discard(hands: np.ndarray, last: _LastDiscard, late: np.ndarray, knock_limit: np.ndarray, opts: dict,
                           discard_taken_card: bool) -> np.ndarray:
    """Log-weight of each of the (G * chains,) opponent ``hands`` of G games (the chains of
    each game together) by its game's last discard: the log-softmax of minus the
    heuristic's discard score of that card over the 11 cards the opponent then held, plus
    the no-knock factor where ``late`` (G,) (``LATE_NO_KNOCK`` for the hands within
    ``knock_limit`` (G,)). ``last``: the G games' last discards, each field a (G,) array
    (int64 cards and turn, uint64 masks). One game (``_last_discard_log_weight``) and many
    (``rummy_env.agents.gin.knock_vector``) are weighed by this one function."""
    g = last.card.size
    per = hands.size // g
    game = np.repeat(np.arange(g), per)
    card = last.card[game]
    held = hands | _BITS[card]
    after = melds.discard_deadwood(held, **opts).astype(np.float64)
    legal = after >= 0
    if not discard_taken_card:  # the card it had just taken was not its to throw
        taken = np.flatnonzero(last.taken[game] >= 0)
        legal[taken, last.taken[game][taken]] = False
    unseen = _FULL & ~(held | last.our_known[game] | last.pile[game])
    risk = heuristic_terms.danger(last.our_known, last.our_thrown, last.turn, opts["aces_high"])[game]
    scores = heuristic_terms.discard_scores(heuristic_terms.expected_deadwood(held, legal, after, unseen, opts), risk)
    z = np.where(legal, -scores / LAST_DISCARD_TAU, -np.inf)
    top = z.max(axis=1, keepdims=True)
    log_weight = z[np.arange(hands.size), card] - (top[:, 0] + np.log(np.exp(z - top).sum(axis=1)))
    late = late[game]
    if late.any():
        could_knock = melds.min_deadwood(hands, **opts) <= knock_limit[game]
        log_weight = np.where(late, log_weight + _LOG_LATE * could_knock, log_weight)
    return log_weight


def _resample(log_weight: np.ndarray, n: int, offset: np.ndarray) -> np.ndarray:
    """(G, n) chain indices: for each row of (G, chains) ``log_weight``, ``n`` indices drawn
    in proportion to exp(log-weight) by systematic resampling from the row's uniform of
    ``offset`` (G,). One game (``_sample``) and many (``knock_vector``) resample by this."""
    w = np.exp(log_weight - log_weight.max(axis=1, keepdims=True))
    edges = np.cumsum(w / w.sum(axis=1, keepdims=True), axis=1)
    edges[:, -1] = 1.0
    targets = (offset[:, None] + np.arange(n)) / n
    # searchsorted(side="right") per row: the number of edges at or below each target
    return (edges[:, None, :] <= targets[:, :, None]).sum(axis=2)


def _mix(pools: np.ndarray, need, score, known, propose, steps: int) -> None:
    """Metropolis over the split of each row of ``pools`` (in place): swap one card of the
    opponent's part (the first ``need``) with one of the stock's, accept with the ratio of
    model weights (``score``: log-weights of hands). ``propose(width, rows)`` gives each
    step's (out, into, uniform) per row, the positions within the row. ``need``, ``known``:
    scalars, or per row (the array version: rows of several games, each row's unseen cards
    first and padding after them, which its proposals never reach)."""
    n, width = pools.shape
    if not pools.flags.c_contiguous:
        raise ValueError("pools must be C-contiguous (they are changed in place through a flat view)")
    flat = pools.reshape(-1)
    base = np.arange(n) * width
    hands = known | np.bitwise_or.reduce(np.where(np.arange(width) < np.reshape(need, (-1, 1)), _BITS[pools], _ZERO),
                                         axis=1)
    current = score(hands)
    for _ in range(steps):
        i, j, u = propose(width, n)
        at_out, at_in = base + i, base + j
        out, into = flat[at_out], flat[at_in]
        proposal = (hands & ~_BITS[out]) | _BITS[into]
        proposed = score(proposal)
        accept = np.log(u) < proposed - current
        hands = np.where(accept, proposal, hands)
        current = np.where(accept, proposed, current)
        swap = np.flatnonzero(accept)
        flat[at_out[swap]] = into[swap]
        flat[at_in[swap]] = out[swap]
