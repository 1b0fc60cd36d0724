"""A training run's evaluations, for every game: the learner (greedy) against the game's agents on duplicate deals.

Why duplicate deals: the luck of the cards dominates a few hundred hands; playing each
deal once with the learner in every seat (the other seats the opponent agent) takes most
of it out, so two evaluations of one run differ by the policy, not the deal. The deals
are the same at every evaluation of a run (seeded by the config's seed), and the hands of
one evaluation are played together (``rummy_env.train.hands.play_hands``: the learner's
moves of all of them one forward pass a round). Per opponent and table size: the share of
hands won and drawn, points a hand for the learner and the 95% half-width of the points
over deals.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from rummy_env.train.hands import Seat, play_hands

EVAL_SEED = 100_000  # the evaluation deals are seeded config.seed + EVAL_SEED (apart from the training deals)


def evaluate(net: Any, config: Any, adapter: Any) -> dict[str, dict[str, float]]:
    """The network against each of ``config.eval_opponents`` at each table size of ``players``:
    ``eval_hands`` hands each, ``eval_hands / N`` deals played N times. Keys: the opponent's
    spec, with ``/Np`` after it when ``players`` has more than one table size."""
    from rummy_env import agents

    game = adapter.game
    rules = game.load_rules(config.rules)
    sizes = sorted(config.table_sizes)
    seed = config.seed + EVAL_SEED
    deck_size = game.deck_size_of(rules)
    net.eval()
    out: dict[str, dict[str, float]] = {}
    for opponent in config.eval_opponents:
        for n in sizes:
            rng = np.random.default_rng([seed, n])
            deals = config.eval_hands // n
            states, seats = [], []
            for d in range(deals):
                deck = rng.permutation(deck_size).tolist()
                for learner in range(n):
                    states.append(game.deal(rules, n, deck=deck, dealer=n - 1))
                    other = Seat(agent=agents.make(opponent, seed=seed + n * d + learner, game=game.name))
                    seats.append([Seat(net=0) if s == learner else other for s in range(n)])
            played = play_hands(states, seats, [net], adapter, rules, rng, greedy=True)
            points = np.array([r.rewards[h % n] for h, r in enumerate(played.results)], dtype=np.float64)
            won = np.array([r.winner == h % n for h, r in enumerate(played.results)], dtype=np.float64)
            drawn = np.array([r.winner is None for r in played.results], dtype=np.float64)
            per_deal = points.reshape(deals, n).mean(axis=1)
            wins_per_deal = won.reshape(deals, n).mean(axis=1)
            key = opponent if len(sizes) == 1 else f"{opponent}/{n}p"
            out[key] = {"hands": float(len(points)), "win_rate": float(won.mean()), "win_ci95": _half(wins_per_deal),
                        "draw_rate": float(drawn.mean()), "points_per_hand": float(points.mean()),
                        "points_ci95": _half(per_deal)}
    return out


def _half(per_deal: np.ndarray) -> float:
    """The 95% half-width of a mean over deals (NaN for one deal)."""
    return 1.96 * float(per_deal.std(ddof=1)) / math.sqrt(len(per_deal)) if len(per_deal) > 1 else float("nan")
