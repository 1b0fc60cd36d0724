"""The ``heuristic`` agent's knock estimate as array operations over many games at once.

Why: with its default knock rule (``knock=estimate``) ``HeuristicAgent`` samples 48 hands
the opponent may hold wherever it may knock with some deadwood (``rummy_env.agents.gin.belief``:
Metropolis chains over the unseen cards, then importance resampling by the opponent's last
discard), and scores the knock against each; about 8 ms a decision, one game at a time.
The array version of the rest of its play (``rummy_env.agents.gin.heuristic_vector``) could
therefore only play the cheaper turn rule. Here the sampling and scoring run for all the
games that need a knock decision together: every chain of every game is one row of the
same arrays (``K * OVERSAMPLE * worlds`` rows, cut into chunks of whole games of at most
``CHUNK_ROWS`` chains so the per-card tables stay small), with a Python loop over the
Metropolis steps only. What is left is mostly the meld solver's own work, about 20,000
solves a decision (41 scores of 192 chains, the discard scores of 192 eleven-card hands):
a fraction of the per-game cost, which was mostly numpy's per-call overhead
(docs/benchmarks.md, "Tournament throughput").

Games differ in how many cards are unseen and how many of them the opponent holds: a row
keeps all 52 card slots, the unseen cards first (in the order of the row's random keys),
the rest padding no move reaches; each row draws its moves within its own counts.

The numbers are the per-game version's exactly, given the same random numbers: both take
their draws as uniforms of fixed shape (``belief.ChainDraws``; ``draws`` here stacks one
per game), apply the same model terms in the same order, and tests compare the sampled
hands, the mean points and the decisions on positions of many games and rule sets. From
a Generator the streams differ (the per-game agent draws game by game, this draws for all
games at once), so the decisions agree in distribution, not game by game.

It reads only what the player to move knows (``KnockFacts``): from the vector engine, its
hand, the cards the opponent took and still holds, what each side threw or passed on, the
discard pile, the turn, and the card the opponent took at its last draw (the engine's
``took``: the one fact not recoverable from the engine's other arrays).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Optional, Sequence

import numpy as np

from rummy_env.agents.gin import belief
from rummy_env.agents.gin.heuristic_params import KNOCK_VALUE, KNOCK_WORLDS, knock_points, last_turn
from rummy_env.core import melds
from rummy_env.core.cards import NUM_CARDS, NUM_RANKS, SUIT_BITS, run_positions, run_ranks
from rummy_env.gin.game import HAND_SIZE, InformationSet, Phase
from rummy_env.gin.rules import Rules
from rummy_env.gin.vector import VectorGinRummy

CHUNK_ROWS = 1 << 13  # chains sampled together; a chunk's (rows, 52) tables near the caches (32k rows measured slower)
_BITS = np.uint64(1) << np.arange(NUM_CARDS, dtype=np.uint64)
_FULL = np.uint64((1 << NUM_CARDS) - 1)
_ZERO, _ONE, _TWO = np.uint64(0), np.uint64(1), np.uint64(2)
_SUIT = np.uint64(SUIT_BITS)
_EVERY_SUIT = np.uint64(sum(1 << (NUM_RANKS * s) for s in range(4)))
# the model's factors as belief applies them (math.log of the same constants: the same floats)
_LOG_NO_KNOCK = math.log(belief.NO_KNOCK)
_LOG_THROWN, _LOG_TAKEN = math.log(belief.THROWN_MELDS), math.log(belief.TAKEN_ALONE)


@dataclass
class KnockFacts:
    """What the knock estimate reads of K positions, the player to move in each about to
    knock with ``kept``; all of it known to that player (the model's inputs of
    ``rummy_env.agents.gin.belief``, per game). Built by ``facts_of_env`` or
    ``facts_of_infoset``."""

    kept: np.ndarray  # (K,) uint64: the 10 cards the knock keeps
    unseen: np.ndarray  # (K,) uint64: cards the player has not seen (the stock and the opponent's unknown cards)
    opponent_known: np.ndarray  # (K,) uint64: cards the opponent took from the pile and still holds
    opponent_thrown: np.ndarray  # (K,) uint64: cards the opponent discarded or passed on
    need: np.ndarray  # (K,) int: the opponent's cards not known
    discards: np.ndarray  # (K,) int: the opponent's discards this hand (the model's clock)
    knock_limit: np.ndarray  # (K,) int
    turn: np.ndarray  # (K,) int
    stock_size: np.ndarray  # (K,) int
    last_card: np.ndarray  # (K,) int: the opponent's last discard, its last move (-1: none, e.g. turn 0)
    last_taken: np.ndarray  # (K,) int: the card it had taken just before (not its to throw, unless
    # discard_taken_card), or -1
    last_pile: np.ndarray  # (K,) uint64: the discard pile under the last discard
    our_known: np.ndarray  # (K,) uint64: our cards the opponent knew of then (taken from the pile, still held)
    our_thrown: np.ndarray  # (K,) uint64: cards we had discarded or passed on by then

    def subset(self, index) -> "KnockFacts":
        """The facts of games ``index`` (an index array or a slice)."""
        return KnockFacts(**{f.name: getattr(self, f.name)[index] for f in fields(self)})

    @classmethod
    def concatenate(cls, parts: Sequence["KnockFacts"]) -> "KnockFacts":
        """The facts of several batches, in order."""
        return cls(**{f.name: np.concatenate([getattr(p, f.name) for p in parts]) for f in fields(cls)})


def facts_of_env(env: VectorGinRummy, rows: np.ndarray, kept: np.ndarray) -> KnockFacts:
    """The ``KnockFacts`` of the players to move in games ``rows`` of ``env`` (each in the
    discard phase, or at the wall about to take the discard to knock: the same facts),
    knocking with ``kept`` (K,) uint64.

    Derived from the engine's arrays where the information set would read the public
    history: the opponent's discards are (turn + 1) // 2 (discards alternate, and the mover
    makes the next one); its last move is a discard from turn 1 on, the card now the pile's
    top or the one the mover just took from it; what it knew of our cards then is what it
    knows now less that card. The card it had taken before that discard is the engine's
    ``took`` of its seat (no other array says it: the same pile, turn and masks can follow
    a stock draw or the take of the card we had discarded).
    """
    rows = np.asarray(rows, dtype=np.intp)
    kept = np.asarray(kept, dtype=np.uint64)
    if kept.shape != rows.shape:
        raise ValueError(f"kept must hold one hand per row, got shape {kept.shape} for {rows.shape} rows")
    wall = (env.phase[rows] == Phase.DRAW) & (NUM_CARDS - env.stock_next[rows] <= 2) & env.rules.wall_knock
    if np.any((env.phase[rows] != Phase.DISCARD) & ~wall):
        raise ValueError("knock facts are for players in the discard phase or at the wall")
    p = env.current[rows].astype(np.intp)
    q = 1 - p
    hand = env.hands[rows, p]
    known = env.known[rows, q]
    pile = env.pile_mask[rows]
    turn = env.turn[rows].astype(np.int64)
    length = env.pile_len[rows].astype(np.intp)
    top = np.where(length > 0, env.pile[rows, np.maximum(length - 1, 0)], -1).astype(np.int64)
    taken_now = env.taken[rows].astype(np.int64)
    card = np.where(turn >= 1, np.where(taken_now >= 0, taken_now, top), -1)
    bit = np.where(card >= 0, _BITS[np.maximum(card, 0)], _ZERO)
    last = card >= 0  # the facts of the last discard are zero without one, as facts_of_infoset has them
    return KnockFacts(
        kept=kept, unseen=_FULL & ~(hand | known | pile), opponent_known=known,
        opponent_thrown=env.discarded[rows, q] | env.passed[rows, q],
        need=HAND_SIZE - np.bitwise_count(known).astype(np.int64),  # between its turns the opponent holds 10 cards
        discards=(turn + 1) // 2, knock_limit=env.knock_limit[rows].astype(np.int64), turn=turn,
        stock_size=(NUM_CARDS - env.stock_next[rows]).astype(np.int64),
        last_card=card, last_taken=np.where(last, env.took[rows, q], -1).astype(np.int64),
        last_pile=np.where(last, pile & ~bit, _ZERO), our_known=np.where(last, env.known[rows, p] & ~bit, _ZERO),
        our_thrown=np.where(last, env.discarded[rows, p] | (env.passed[rows, p] & ~bit), _ZERO),
    )


def facts_of_infoset(info: InformationSet, kept: int) -> KnockFacts:
    """The one-row ``KnockFacts`` of an information set (read as the per-game model reads it)."""
    last = belief._last_discard(info)
    u64 = lambda x: np.array([x], dtype=np.uint64)  # noqa: E731
    i64 = lambda x: np.array([x], dtype=np.int64)  # noqa: E731
    opp = info.opponent
    return KnockFacts(
        kept=u64(kept), unseen=u64(info.unseen), opponent_known=u64(info.opponent_known),
        opponent_thrown=u64(info.discarded[opp] | info.passed[opp]),
        need=i64(info.opponent_hand_size - info.opponent_known.bit_count()), discards=i64(belief.opponent_discards(info)),
        knock_limit=i64(info.knock_limit), turn=i64(info.turn), stock_size=i64(info.stock_size),
        last_card=i64(-1 if last is None else last.card), last_taken=i64(-1 if last is None else last.taken),
        last_pile=u64(0 if last is None else last.pile), our_known=u64(0 if last is None else last.our_known),
        our_thrown=u64(0 if last is None else last.our_thrown),
    )


@dataclass(frozen=True)
class StackedDraws:
    """``belief.ChainDraws`` of K games stacked (``stack_draws``): the random numbers the
    per-game sampler would use for each, given to the array version instead of a Generator."""

    keys: np.ndarray  # (K, chains, 52)
    moves: np.ndarray  # (K, steps, 3, chains)
    resample: np.ndarray  # (K,)


def stack_draws(draws: Sequence[belief.ChainDraws]) -> StackedDraws:
    """One ``StackedDraws`` of per-game draws (all for the same number of hands and steps)."""
    return StackedDraws(np.stack([d.keys for d in draws]), np.stack([d.moves for d in draws]),
                        np.array([d.resample for d in draws], dtype=np.float64))


def counter_draws(keys: np.ndarray, decisions: np.ndarray, n: int) -> StackedDraws:
    """The ``belief.ChainDraws.of_decision`` of each (key, decision) pair, stacked: what the
    ``heuristic`` agent of each game samples its knock estimate with."""
    return StackedDraws(*belief.counter_uniforms(keys, decisions, n))


def sample_opponent_hands_batch(facts: KnockFacts, rules: Rules, n: int, rng: Optional[np.random.Generator] = None,
                                draws: Optional[StackedDraws] = None) -> np.ndarray:
    """(K, n) uint64: ``n`` hands the opponent may hold in each of the K positions of
    ``facts``, from the model of ``rummy_env.agents.gin.belief`` (``sample_opponent_hands``
    per game), from ``rng`` or from ``draws`` (then equal to the per-game version's with
    the same draws, hand for hand)."""
    if n < 1:
        raise ValueError(f"n must be at least 1 hand, got {n}")
    k = facts.kept.size
    if draws is None and rng is None:
        raise ValueError("sampling needs rng or draws")
    chains_per_game = n * belief.OVERSAMPLE
    if draws is not None and (draws.keys.shape[:2] != (k, chains_per_game) or draws.moves.shape[1:3] != (belief.STEPS, 3)):
        raise ValueError(f"draws must be stacked for {k} games of {chains_per_game} chains and {belief.STEPS} steps")
    unseen_count = np.bitwise_count(facts.unseen).astype(np.int64)
    # a hand with nothing to choose (all or none of the unseen cards) is the same in every world
    everything = np.where(facts.need >= unseen_count, facts.unseen, _ZERO)
    out = np.repeat((facts.opponent_known | everything)[:, None], n, axis=1)
    weigh = np.flatnonzero((facts.need > 0) & (facts.need < unseen_count))
    chains = np.where(facts.last_card[weigh] >= 0, chains_per_game, n)
    # chunks of whole games, each at most CHUNK_ROWS chains (or one game)
    ends = np.cumsum(chains)
    start = 0
    while start < weigh.size:
        base = ends[start - 1] if start else 0
        stop = max(start + 1, int(np.searchsorted(ends, base + CHUNK_ROWS, side="right")))
        games = weigh[start:stop]
        out[games] = _sample_chunk(facts.subset(games), games, chains[start:stop], rules, n, rng, draws)
        start = stop
    return out


def _sample_chunk(facts: KnockFacts, games: np.ndarray, chains: np.ndarray, rules: Rules, n: int,
                  rng: Optional[np.random.Generator], draws: Optional[StackedDraws]) -> np.ndarray:
    """(G, n) hands of G games that all need sampling (``_sample``'s weighted path, batched)."""
    opts = {"aces_high": rules.aces_high, "five_under_ten": rules.five_under_ten}
    g = games.size
    game = np.repeat(np.arange(g), chains)  # each row's game, in this chunk
    chain = np.arange(game.size) - np.repeat(np.cumsum(chains) - chains, chains)  # its chain within the game
    rows = game.size
    need = facts.need[game]
    size = np.bitwise_count(facts.unseen).astype(np.int64)[game]
    known = facts.opponent_known[game]
    # the starting deals: each row's unseen cards by its keys (stable: ties by card, as per game)
    keys = rng.random((rows, NUM_CARDS)) if draws is None else draws.keys[games[game], chain]
    unseen_row = (facts.unseen[game][:, None] & _BITS) != 0
    pools = np.argsort(np.where(unseen_row, keys, 2.0), axis=1, kind="stable").astype(np.int8)

    if draws is None:
        def propose(width: int, count: int):
            out, into, accept = rng.random((3, count))
            return belief.uniform_index(out, 0, need), belief.uniform_index(into, need, size - need), accept
    else:
        steps = iter(range(belief.STEPS))
        source = draws.moves

        def propose(width: int, count: int):
            out, into, accept = source[games[game], next(steps), :, chain].T
            return belief.uniform_index(out, 0, need), belief.uniform_index(into, need, size - need), accept

    belief._mix(pools, need, _BatchScore(facts, game, opts), known, propose, belief.STEPS)
    hands = known | np.bitwise_or.reduce(np.where(np.arange(NUM_CARDS) < need[:, None], _BITS[pools], _ZERO), axis=1)

    out = np.empty((g, n), dtype=np.uint64)
    first = np.cumsum(chains) - chains
    plain = np.flatnonzero(facts.last_card < 0)  # no last discard to read: the chains are the hands
    if plain.size:
        out[plain] = hands[first[plain][:, None] + np.arange(n)]
    read = np.flatnonzero(facts.last_card >= 0)
    if read.size:
        at = first[read][:, None] + np.arange(n * belief.OVERSAMPLE)  # (G', n * OVERSAMPLE) rows
        f = facts.subset(read)
        last = belief._LastDiscard(f.last_card, f.last_taken, f.turn - 1, f.last_pile, f.our_known, f.our_thrown)
        log_weight = belief._weigh_by_last_discard(hands[at.ravel()], last, f.discards > belief.NO_KNOCK_DISCARDS,
                                                   f.knock_limit, opts, rules.discard_taken_card).reshape(at.shape)
        offset = rng.random(read.size) if draws is None else draws.resample[games[read]]
        out[read] = hands[np.take_along_axis(at, belief._resample(log_weight, n, offset), axis=1)]
    return out


class _BatchScore:
    """``belief._Score`` for rows of several games: the model's log-weight of each row's hand."""

    def __init__(self, facts: KnockFacts, game: np.ndarray, opts: dict) -> None:
        self.opts = opts
        known = facts.opponent_known
        beta = belief.BETA * np.minimum(1.5, facts.discards / belief.BETA_DISCARDS)
        # thrown cards that meld with the known cards alone weigh every world alike: left out
        thrown = facts.opponent_thrown & ~known & ~melds.meld_completions(known, aces_high=opts["aces_high"])
        limit = np.where((facts.discards > 0) & (facts.discards <= belief.NO_KNOCK_DISCARDS), facts.knock_limit, -1)
        self.beta, self.thrown, self.limit, self.known = beta[game], thrown[game], limit[game], known[game]

    def __call__(self, hands: np.ndarray) -> np.ndarray:
        aces_high = self.opts["aces_high"]
        dead = melds.min_deadwood(hands, **self.opts).astype(np.float64)
        score = -self.beta * dead
        score += _LOG_NO_KNOCK * (dead <= self.limit)
        # a card the opponent threw or passed on lies in the pile or our hand, never in its hand:
        # the completions are forms_meld for those cards all at once
        thrown = np.bitwise_count(melds.meld_completions(hands, aces_high=aces_high) & self.thrown)
        score += _LOG_THROWN * thrown.astype(np.int64)
        score += _LOG_TAKEN * np.bitwise_count(self.known & ~in_melds(hands, aces_high)).astype(np.int64)
        return score


def in_melds(hands: np.ndarray, aces_high: bool) -> np.ndarray:
    """(N,) uint64: the cards of each hand that make a set or a run with other cards of it
    (``melds.forms_meld(hand, card)`` for every card held, as bit operations on the suit
    fields: a rank held three times or more, or a block of three adjacent run positions)."""
    h = np.asarray(hands, dtype=np.uint64)
    f = [(h >> np.uint64(NUM_RANKS * s)) & _SUIT for s in range(4)]
    three = (f[0] & f[1] & f[2]) | (f[0] & f[1] & f[3]) | (f[0] & f[2] & f[3]) | (f[1] & f[2] & f[3])
    out = three * _EVERY_SUIT
    for s in range(4):
        p = run_positions(f[s], aces_high)
        t = p & (p >> _ONE) & (p >> _TWO)
        out |= run_ranks((t | (t << _ONE) | (t << _TWO)) & _SUIT, aces_high) << np.uint64(NUM_RANKS * s)
    return out & h


def knock_estimates(facts: KnockFacts, rules: Rules, rng: Optional[np.random.Generator] = None, *,
                    worlds: int = KNOCK_WORLDS, value: float = KNOCK_VALUE,
                    draws: Optional[StackedDraws] = None) -> tuple[np.ndarray, np.ndarray]:
    """(knock? (K,) bool, mean points (K,) float) of knocking in the positions of ``facts``:
    ``heuristic.estimate_knock`` for all K at once (the knock when the mean over ``worlds``
    sampled opponent hands is at least ``value``, or above 0 on the last turn)."""
    if worlds < 1:
        raise ValueError(f"worlds must be >= 1 sampled hands, got {worlds}")
    if not np.isfinite(value):
        raise ValueError(f"value must be a finite number of points, got {value}")
    if facts.kept.size == 0:
        return np.zeros(0, dtype=bool), np.zeros(0)
    opponents = sample_opponent_hands_batch(facts, rules, worlds, rng, draws)
    mean = knock_points(facts.kept[:, None], opponents, rules).mean(axis=1)
    return np.where(last_turn(facts.stock_size, facts.turn, rules), mean > 0, mean >= value), mean


def knock_decisions(env: VectorGinRummy, rows: np.ndarray, kept: np.ndarray, rng: Optional[np.random.Generator], *,
                    worlds: int = KNOCK_WORLDS, value: float = KNOCK_VALUE,
                    draws: Optional[StackedDraws] = None) -> np.ndarray:
    """(K,) bool: whether the ``heuristic`` agent's knock estimate knocks with ``kept`` (K,)
    uint64 (the 10 cards left) for the players to move in games ``rows`` of ``env`` (in the
    discard phase, with more than 0 deadwood left). ``heuristic_vector.heuristic_actions``
    with ``knock="estimate"`` calls it for the games where it may knock; from ``rng``, or
    from ``draws`` stacked for the K games."""
    return knock_estimates(facts_of_env(env, rows, kept), env.rules, rng, worlds=worlds, value=value, draws=draws)[0]
