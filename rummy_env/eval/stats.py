"""Statistics of a tournament: per agent and per pair results with 95% intervals, and ratings.

The unit of sampling is the deal: the games of a duplicate deal (seats swapped, or
every seat rotation at a table) are averaged first, so the luck of the cards cancels
out of the variance. Intervals are normal approximations over deals.

Every game is read as seats (``seat_view``): which agent sat where, each seat's points
and the finishing order. A game at a table of k agents gives k (k - 1) / 2 pairwise
results: the agent placed higher beats the lower one, and agents sharing a place (no
winner, equal scores) get half a win each; a game of a pair is the case k = 2.

Two ratings, both centred at 0, with intervals from a bootstrap over deals (every game of
a resampled deal kept together):

- **wins**: a Bradley-Terry model fitted by maximum likelihood (Hunter's MM algorithm)
  to the pairwise wins, on the Elo scale (400 points = 10:1 odds), with half a win added
  each way per pair so an agent that never loses still gets a finite rating;
- **points** (``massey``): each agent's expected points a game above an agent of rating
  0 (the field's average), fitted by least squares to every pair's mean margin (half the
  difference of their points at the table: for two players, the winner's score).

Games won and points are different goals: an agent that knocks only when the knock pays
wins fewer, bigger hands, so the reports list both and say which measures what.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from typing import Any, Callable

import numpy as np


def _interval(values: np.ndarray) -> tuple[float, float]:
    if len(values) == 0:
        return float("nan"), float("nan")
    if len(values) == 1:
        return float(values[0]), float("nan")
    return float(values.mean()), 1.96 * float(values.std(ddof=1)) / math.sqrt(len(values))


def seat_view(record: dict[str, Any]) -> tuple[list[int], list[list[int]]]:
    """(agent per seat, finishing order) of a game record of either kind."""
    if "seats" in record:  # a game at a table
        return record["seats"], record["order"]
    seats = [record["j"], record["i"]] if record["swap"] else [record["i"], record["j"]]
    winner = record["winner"]
    return seats, [[0, 1]] if winner is None else [[winner], [1 - winner]]


def seat_points(record: dict[str, Any]) -> list[float]:
    """Each seat's points of a game record of either kind (a pair's: the margin, negated)."""
    return record["points"] if "seats" in record else [record["margin"], -record["margin"]]


def _pairwise(record: dict[str, Any]) -> list[tuple[int, int, float]]:
    """(agent a, agent b, a's share of the placing) for every pair of seats of a game."""
    seats, order = seat_view(record)
    place = {seat: p for p, group in enumerate(order) for seat in group}
    out = []
    for s in range(len(seats)):
        for t in range(s + 1, len(seats)):
            share = 0.5 if place[s] == place[t] else float(place[s] < place[t])
            out.append((seats[s], seats[t], share))
    return out


def _pair_margins(record: dict[str, Any]) -> list[tuple[int, int, float]]:
    """(agent a, agent b, a's margin: half the difference of their points) for every pair of seats."""
    seats, points = seat_view(record)[0], seat_points(record)
    return [(seats[s], seats[t], (points[s] - points[t]) / 2)
            for s in range(len(seats)) for t in range(s + 1, len(seats))]


# ---------------------------------------------------------------------------------------
# results tables


def agent_stats(records: list[dict[str, Any]], names: list[str], outcomes: tuple[str, ...]) -> list[dict[str, Any]]:
    """Per agent: games, share of games won and points per game (95% intervals over deals),
    the rate of each of the game's ``outcomes`` among its hands, mean hand length, and for
    an agent that keeps its own counts (a record's ``agent_stats``, ``Agent.stats``) their
    sums over its games (``agent_stats``)."""
    by_deal: dict[int, dict[int, list[tuple[float, float]]]] = defaultdict(lambda: defaultdict(list))
    hands: dict[int, list[dict[str, Any]]] = defaultdict(list)
    counts: dict[int, dict[str, float]] = {}
    for r in records:
        seats, points = seat_view(r)[0], seat_points(r)
        own = r.get("agent_stats") or [None] * len(seats)
        for seat, agent in enumerate(seats):
            by_deal[agent][r["deal"]].append((float(r["winner"] == seat), float(points[seat])))
            hands[agent].extend(r["hands"])
            if own[seat] is not None:
                _add_counts(counts.setdefault(agent, {}), own[seat])
    rows = []
    for a in range(len(names)):
        deals = by_deal.get(a, {})
        wins = np.array([_mean([w for w, _ in g]) for g in deals.values()])
        points = np.array([_mean([p for _, p in g]) for g in deals.values()])
        share, share_ci = _interval(wins)
        pts, pts_ci = _interval(points)
        hs = hands[a]
        rows.append({
            "agent": names[a], "games": sum(len(g) for g in deals.values()), "deals": len(deals),
            "win_share": share, "win_share_ci95": share_ci, "points": pts, "points_ci95": pts_ci,
            **_outcome_stats(hs, outcomes),
        })
        if a in counts:
            rows[-1]["agent_stats"] = {k: round(v, 6) if isinstance(v, float) else v for k, v in counts[a].items()}
    return rows


def _add_counts(totals: dict[str, float], counts: dict[str, Any]) -> None:
    """Add a game's ``counts`` (an agent's ``stats()``: numbers by name) into ``totals``; a
    value that is not a number is not summed."""
    for key, value in counts.items():
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            totals[key] = totals.get(key, 0) + value


def _mean(values: list[float]) -> float:
    """The mean of a deal's few games (numpy's sum order for fewer than 8 values, without
    its per-call cost: a tournament has thousands of deals)."""
    return sum(values) / len(values) if len(values) < 8 else float(np.mean(values))


def _outcome_stats(hands: list[dict[str, Any]], outcomes: tuple[str, ...]) -> dict[str, Any]:
    tally = Counter(h["result"]["outcome"] for h in hands)
    counts = {o: tally[o] for o in outcomes}
    return {"rates": {o: counts[o] / len(hands) for o in outcomes} if hands else {},
            "mean_hand_length": float(np.mean([h["length"] for h in hands])) if hands else float("nan")}


def pair_stats(records: list[dict[str, Any]], names: list[str], outcomes: tuple[str, ...]) -> list[dict[str, Any]]:
    """Per pair of a pairs tournament (records with ``i``, ``j``): A's share of games won and
    points per game (95% intervals over deals), the rate of each of the game's
    ``outcomes`` among the pair's hands, mean hand length."""
    by_pair: dict[tuple[int, int], dict[int, list[tuple[float, float]]]] = defaultdict(lambda: defaultdict(list))
    games_by_pair: dict[tuple[int, int], list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        (a, _, share), = _pairwise(r)
        (_, _, margin), = _pair_margins(r)
        if a != r["i"]:  # agent j sat in seat 0
            share, margin = 1 - share, -margin
        by_pair[(r["i"], r["j"])][r["deal"]].append((share, margin))
        games_by_pair[(r["i"], r["j"])].append(r)
    rows = []
    for (i, j), deals in sorted(by_pair.items()):
        share, share_ci = _interval(np.array([_mean([s for s, _ in games]) for games in deals.values()]))
        pts, pts_ci = _interval(np.array([_mean([p for _, p in games]) for games in deals.values()]))
        hands = [h for r in games_by_pair[(i, j)] for h in r["hands"]]
        rows.append({
            "a": names[i], "b": names[j], "games": len(games_by_pair[(i, j)]), "deals": len(deals),
            "a_win_share": share, "a_win_share_ci95": share_ci, "a_points": pts, "a_points_ci95": pts_ci,
            "hands": len(hands), **_outcome_stats(hands, outcomes),
        })
    return rows


def placing_stats(records: list[dict[str, Any]], names: list[str]) -> list[dict[str, Any]]:
    """Per pair of agents that met at tables: the pairwise placings and A's share of them."""
    wins = _wins(records, len(names))
    return [{"a": names[i], "b": names[j], "placings": float(wins[i, j] + wins[j, i]),
             "a_win_share": float(wins[i, j] / (wins[i, j] + wins[j, i]))}
            for i in range(len(names)) for j in range(i + 1, len(names)) if wins[i, j] + wins[j, i] > 0]


# ---------------------------------------------------------------------------------------
# ratings


def bradley_terry(wins: np.ndarray, iterations: int = 500) -> np.ndarray:
    """Elo-scale ratings (centred at 0) from a matrix wins[i, j] = games i won against j."""
    n = wins.shape[0]
    w = wins + 0.5 * ((wins + wins.T) > 0)  # half a win each way per pair that met
    games = w + w.T
    strength = np.ones(n)
    for _ in range(iterations):
        denom = (games / (strength[:, None] + strength[None, :])).sum(axis=1)
        new = w.sum(axis=1) / np.where(denom > 0, denom, 1)
        new = np.where(new > 0, new, 1e-9)
        new /= math.exp(np.log(new).mean())
        if np.allclose(new, strength, rtol=1e-10, atol=0):
            strength = new
            break
        strength = new
    elo = 400 * np.log10(strength)
    return elo - elo.mean()


def massey(margins: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Points ratings (centred at 0) from margins[i, j] = i's summed points against j over
    counts[i, j] games: ``r_i - r_j`` fits each pair's mean margin by least squares,
    weighted by games (pairs that never met carry no weight)."""
    n = margins.shape[0]
    weight = counts + counts.T
    laplacian = np.diag(weight.sum(axis=1)) - weight
    target = (margins - margins.T).sum(axis=1)  # sum over pairs of weight * mean margin of i against j
    system = np.vstack([laplacian, np.ones(n)])
    solution, *_ = np.linalg.lstsq(system, np.append(target, 0.0), rcond=None)
    return solution - solution.mean()


def _wins(records: list[dict[str, Any]], n: int) -> np.ndarray:
    wins = np.zeros((n, n))
    for r in records:
        for a, b, share in _pairwise(r):
            wins[a, b] += share
            wins[b, a] += 1 - share
    return wins


def _margins(records: list[dict[str, Any]], n: int) -> tuple[np.ndarray, np.ndarray]:
    margins, counts = np.zeros((n, n)), np.zeros((n, n))
    for r in records:
        for a, b, margin in _pair_margins(r):
            margins[a, b] += margin / 2  # split so that margins - margins.T is the margin
            margins[b, a] -= margin / 2
            counts[a, b] += 1
    return margins, counts


KINDS: dict[str, Callable[[list[dict[str, Any]], int], np.ndarray]] = {
    "wins": lambda records, n: bradley_terry(_wins(records, n)),
    "points": lambda records, n: massey(*_margins(records, n)),
}
# per kind: the tallies of some records (matrices, each a sum over the records) and the
# fit of those tallies; KINDS[kind](records, n) is _FITS[kind](*_TALLIES[kind](records, n))
_TALLIES: dict[str, Callable[[list[dict[str, Any]], int], tuple[np.ndarray, ...]]] = {
    "wins": lambda records, n: (_wins(records, n),),
    "points": _margins,
}
_FITS: dict[str, Callable[..., np.ndarray]] = {"wins": bradley_terry, "points": massey}


def ratings(records: list[dict[str, Any]], names: list[str], kind: str = "wins", bootstrap: int = 200,
            seed: int = 0) -> list[dict[str, Any]]:
    """Ratings of ``kind`` ("wins" or "points", see the module docstring), best first, with
    95% bootstrap intervals over deals.

    Each deal's tallies are summed once; a bootstrap sample is then the deals' tallies
    weighted by how often it drew each deal, not a pass over its records (what made the
    reports of a tournament of thousands of games take seconds). The sums are exact (the
    tallies are multiples of a quarter), so the ratings are those of the records pooled."""
    tally, solve = _TALLIES[kind], _FITS[kind]
    n = len(names)
    by_deal: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        by_deal[r["deal"]].append(r)
    deals = sorted(by_deal)
    per_deal = [np.stack(parts) for parts in zip(*(tally(by_deal[d], n) for d in deals))] if deals else []

    def fit(weights: np.ndarray) -> np.ndarray:
        return solve(*(np.tensordot(weights, t, axes=1) for t in per_deal))

    rng = np.random.default_rng(seed)
    samples = [fit(np.bincount(rng.choice(len(deals), size=len(deals)), minlength=len(deals)).astype(np.float64))
               for _ in range(bootstrap)] if deals else []
    point = fit(np.ones(len(deals))) if deals else solve(*tally(records, n))
    low, high = (np.percentile(samples, q, axis=0) if samples else point for q in (2.5, 97.5))
    return [{"agent": names[k], "rating": float(point[k]), "ci95_low": float(low[k]), "ci95_high": float(high[k])}
            for k in np.argsort(-point)]
