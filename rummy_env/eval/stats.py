"""Statistics of a tournament: per pair results with 95% intervals, and ratings.

The unit of sampling is the deal: both games of a duplicate deal (seats swapped) are
averaged first, so the luck of the cards cancels out of the variance. Intervals are
normal approximations over deals. Ratings are a Bradley-Terry model fitted by maximum
likelihood (Hunter's MM algorithm) to the games won (a game without a winner counts half
to each side), on the Elo scale (400 points = 10:1 odds) and centred at 0, with half a
win added each way per pair so an agent that never loses still gets a finite rating.
Their intervals come from a bootstrap over deals.

Games won and points are different goals: an agent that knocks only when the knock pays
wins fewer, bigger hands. So every tournament also gets a **points rating** (``massey``):
each agent's expected points a game against an agent of rating 0 (the field's average),
fitted by least squares to the mean margin of every pair (the Massey rating), with the
same bootstrap. The reports list both and say which measures what.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

import numpy as np

from rummy_env.gin.scoring import OUTCOMES as _CODED

OUTCOMES = (*_CODED[1:], _CODED[0])  # the showdowns first, then "draw": the order of reports


def _interval(values: np.ndarray) -> tuple[float, float]:
    if len(values) == 0:
        return float("nan"), float("nan")
    if len(values) == 1:
        return float(values[0]), float("nan")
    return float(values.mean()), 1.96 * float(values.std(ddof=1)) / math.sqrt(len(values))


def _share(record: dict[str, Any], agent_seat: int) -> float:
    winner = record["winner"]
    return 0.5 if winner is None else float(winner == agent_seat)


def per_deal(records: list[dict[str, Any]]) -> dict[tuple[int, int], dict[int, list[tuple[float, float]]]]:
    """{(i, j): {deal: [(share of i, points of i) per game]}}."""
    out: dict[tuple[int, int], dict[int, list[tuple[float, float]]]] = defaultdict(lambda: defaultdict(list))
    for r in records:
        seat_i = r["swap"]  # agent i sits in seat 0 unless swapped
        margin = r["margin"] if seat_i == 0 else -r["margin"]
        out[(r["i"], r["j"])][r["deal"]].append((_share(r, seat_i), margin))
    return out


def pair_stats(records: list[dict[str, Any]], names: list[str]) -> list[dict[str, Any]]:
    by_pair = per_deal(records)
    games_by_pair: dict[tuple[int, int], list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        games_by_pair[(r["i"], r["j"])].append(r)
    rows = []
    for (i, j), deals in sorted(by_pair.items()):
        shares = np.array([np.mean([s for s, _ in games]) for games in deals.values()])
        points = np.array([np.mean([p for _, p in games]) for games in deals.values()])
        share, share_ci = _interval(shares)
        pts, pts_ci = _interval(points)
        hands = [h for r in games_by_pair[(i, j)] for h in r["hands"]]
        counts = {o: sum(h["result"]["outcome"] == o for h in hands) for o in OUTCOMES}
        rows.append({
            "a": names[i], "b": names[j], "games": len(games_by_pair[(i, j)]), "deals": len(deals),
            "a_win_share": share, "a_win_share_ci95": share_ci,
            "a_points": pts, "a_points_ci95": pts_ci,
            "hands": len(hands),
            "rates": {o: counts[o] / len(hands) for o in OUTCOMES} if hands else {},
            "mean_hand_length": float(np.mean([h["length"] for h in hands])) if hands else float("nan"),
        })
    return rows


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


def _wins(by_pair, n: int, pick=None) -> np.ndarray:
    wins = np.zeros((n, n))
    for (i, j), deals in by_pair.items():
        keys = list(deals) if pick is None else pick[(i, j)]
        for d in keys:
            for share, _ in deals[d]:
                wins[i, j] += share
                wins[j, i] += 1 - share
    return wins


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


def _margins(by_pair, n: int, pick=None) -> tuple[np.ndarray, np.ndarray]:
    margins, counts = np.zeros((n, n)), np.zeros((n, n))
    for (i, j), deals in by_pair.items():
        keys = list(deals) if pick is None else pick[(i, j)]
        for d in keys:
            for _, points in deals[d]:
                margins[i, j] += points / 2  # each game's margin, split so that margins - margins.T is the margin
                margins[j, i] -= points / 2
                counts[i, j] += 1
    return margins, counts


def _rows(names: list[str], point: np.ndarray, samples: list[np.ndarray]) -> list[dict[str, Any]]:
    low, high = (np.percentile(samples, q, axis=0) if samples else point for q in (2.5, 97.5))
    return [{"agent": names[k], "rating": float(point[k]), "ci95_low": float(low[k]), "ci95_high": float(high[k])}
            for k in np.argsort(-point)]


def ratings(records: list[dict[str, Any]], names: list[str], bootstrap: int = 200, seed: int = 0,
            kind: str = "wins") -> list[dict[str, Any]]:
    """Ratings with 95% bootstrap intervals over deals, best first: ``kind="wins"``
    (Bradley-Terry on games won, Elo scale) or ``"points"`` (``massey``: points a game
    above the field's average)."""
    n = len(names)
    by_pair = per_deal(records)

    def fit(pick=None) -> np.ndarray:
        return bradley_terry(_wins(by_pair, n, pick)) if kind == "wins" else massey(*_margins(by_pair, n, pick))

    rng = np.random.default_rng(seed)
    samples = [fit({pair: rng.choice(list(deals), size=len(deals)) for pair, deals in by_pair.items()})
               for _ in range(bootstrap)]
    return _rows(names, fit(), samples)


# ---------------------------------------------------------------------------------------
# Basic Rummy tables (game: rummy): per-agent results and ratings from finishing orders.
#
# A game at a table of k agents gives k (k - 1) / 2 pairwise results: the agent placed
# higher (the winner first, then by the points each loser paid) beats the lower one, and
# agents sharing a place (a stalemate, equal penalties) get half a win each. Bradley-Terry
# is fitted to those pairwise wins, exactly as for pairs; intervals come from a bootstrap
# over deals (every table's games of a resampled deal are kept together).

RUMMY_OUTCOMES = ("out", "rummy", "stalemate")


def _pairwise(record: dict[str, Any]) -> list[tuple[int, int, float]]:
    """(agent a, agent b, a's share) for every pair of seats of one rummy game."""
    place = {seat: p for p, group in enumerate(record["order"]) for seat in group}
    seats = record["seats"]
    out = []
    for s in range(len(seats)):
        for t in range(s + 1, len(seats)):
            share = 0.5 if place[s] == place[t] else float(place[s] < place[t])
            out.append((seats[s], seats[t], share))
    return out


def _table_wins(records: list[dict[str, Any]], n: int) -> np.ndarray:
    wins = np.zeros((n, n))
    for r in records:
        for a, b, share in _pairwise(r):
            wins[a, b] += share
            wins[b, a] += 1 - share
    return wins


def table_stats(records: list[dict[str, Any]], names: list[str]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Per agent (games, share of games won, points per game with 95% intervals over deals)
    and per pair (share of pairwise placings won), for rummy records."""
    n = len(names)
    by_deal: dict[int, dict[int, list[tuple[float, float]]]] = defaultdict(lambda: defaultdict(list))
    hands: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        for seat, agent in enumerate(r["seats"]):
            by_deal[agent][r["deal"]].append((float(r["winner"] == seat), float(r["points"][seat])))
            hands[agent].extend(r["hands"])
    agents_rows = []
    for a in range(n):
        deals = by_deal.get(a, {})
        wins = np.array([np.mean([w for w, _ in g]) for g in deals.values()])
        points = np.array([np.mean([p for _, p in g]) for g in deals.values()])
        share, share_ci = _interval(wins)
        pts, pts_ci = _interval(points)
        hs = hands[a]
        counts = {o: sum(h["result"]["outcome"] == o for h in hs) for o in RUMMY_OUTCOMES}
        agents_rows.append({
            "agent": names[a], "games": sum(len(g) for g in deals.values()), "deals": len(deals),
            "win_share": share, "win_share_ci95": share_ci, "points": pts, "points_ci95": pts_ci,
            "rates": {o: counts[o] / len(hs) for o in RUMMY_OUTCOMES} if hs else {},
            "mean_hand_length": float(np.mean([h["length"] for h in hs])) if hs else float("nan"),
        })
    wins = _table_wins(records, n)
    pairs = [{"a": names[i], "b": names[j], "placings": float(wins[i, j] + wins[j, i]),
              "a_win_share": float(wins[i, j] / (wins[i, j] + wins[j, i]))}
             for i in range(n) for j in range(i + 1, n) if wins[i, j] + wins[j, i] > 0]
    return agents_rows, pairs


def _table_margins(records: list[dict[str, Any]], n: int) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of seats of every game: the points margin between the two agents."""
    margins, counts = np.zeros((n, n)), np.zeros((n, n))
    for r in records:
        seats, points = r["seats"], r["points"]
        for s in range(len(seats)):
            for t in range(s + 1, len(seats)):
                a, b, margin = seats[s], seats[t], points[s] - points[t]
                margins[a, b] += margin / 2
                margins[b, a] -= margin / 2
                counts[a, b] += 1
    return margins, counts


def table_ratings(records: list[dict[str, Any]], names: list[str], bootstrap: int = 200, seed: int = 0,
                  kind: str = "wins") -> list[dict[str, Any]]:
    """Ratings from tables, best first, bootstrap over deals: ``kind="wins"`` (Bradley-Terry
    over pairwise finishing order, Elo scale) or ``"points"`` (``massey`` over the points
    margin of every pair of seats)."""
    n = len(names)

    def fit(chosen: list[dict[str, Any]]) -> np.ndarray:
        return bradley_terry(_table_wins(chosen, n)) if kind == "wins" else massey(*_table_margins(chosen, n))

    by_deal: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        by_deal[r["deal"]].append(r)
    deals = sorted(by_deal)
    rng = np.random.default_rng(seed)
    samples = [fit([r for d in rng.choice(deals, size=len(deals)) for r in by_deal[d]]) for _ in range(bootstrap)]
    return _rows(names, fit(records), samples)
