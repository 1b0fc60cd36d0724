"""Where an agent's points come from against an opponent: the hands' outcomes by who
knocked, and the agent's knock decisions next to a reference agent's.

Why: two agents can win the same share of hands with very different points; the
difference usually lies in knock timing (knocking into undercuts, or waiting too long).
Over duplicate deals (each deal played twice, seats swapped) it prints:

1. the outcomes (knock, gin, big gin, undercut, draw) by who knocked, each with its
   share of the hands and its contribution to the agent's points per hand;
2. at every decision where the agent could knock, whether it knocked and whether the
   ``--reference`` agent (asked the same question with the same observation) would
   have, by turn and least deadwood, with the agent's points from the hands it ended by
   that knock.

    python benchmarks/bench_knocks.py --agent ppo --opponent heuristic --reference heuristic --hands 300
"""

from __future__ import annotations

import argparse
import collections
from typing import Any

import numpy as np

import agents
from agents.arena import play_hand
from agents.base import Agent, information
from agents.heuristic import DEFAULTS
from rummy_env import melds
from rummy_env.cards import NUM_CARDS
from rummy_env.game import BIG_GIN, KNOCK


def _knocks(action: int) -> bool:
    return KNOCK <= action < BIG_GIN


def _band(deadwood: int) -> str:
    low = DEFAULTS["late_knock_max"]  # the heuristic's late-knock limit
    return "0 (gin)" if deadwood == 0 else f"1-{low}" if deadwood <= low else f"{low + 1}-10"


class KnockSpy(Agent):
    """Plays as ``agent``; at each decision where a knock is legal it records (turn, least
    deadwood after a knock, agent knocks?, reference knocks?)."""

    def __init__(self, agent: Agent, reference: Agent) -> None:
        super().__init__(None)
        self.agent, self.reference, self.log = agent, reference, []

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        action = self.agent.act(observation, info)
        legal = np.flatnonzero(observation["action_mask"])
        knocks = [int(a) for a in legal if _knocks(a)]
        if knocks:
            infoset, rules = information(info)
            after = melds.discard_deadwood(infoset.hand, aces_high=rules.aces_high, five_under_ten=rules.five_under_ten)
            least = min(after[a - KNOCK] for a in knocks)
            self.log.append((infoset.turn, least, _knocks(action), _knocks(self.reference.act(observation, info))))
        return action


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--agent", default="ppo", help="the agent studied (an agent spec)")
    ap.add_argument("--opponent", default="heuristic")
    ap.add_argument("--reference", default="heuristic", help="whose knock decisions to compare with")
    ap.add_argument("--hands", type=int, default=300, help="hands (an even number: deals x 2)")
    ap.add_argument("--rules", default="classic")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--late-turn", type=int, default=DEFAULTS["late_turn"],
                    help="the turn from which a knock counts as late (default: the heuristic's, %(default)s)")
    args = ap.parse_args()
    if args.hands < 2 or args.hands % 2:
        ap.error(f"--hands must be an even number of at least 2 (each deal is played twice), got {args.hands}")
    for spec in (args.agent, args.opponent, args.reference):
        agents.make(spec)  # a bad spec fails here, before any work
    rng = np.random.default_rng(args.seed)
    outcomes: dict[str, list[float]] = collections.defaultdict(list)
    decisions: dict[tuple[str, str], list] = collections.defaultdict(lambda: [0, 0.0, 0])
    for deal in range(args.hands // 2):
        deck = rng.permutation(NUM_CARDS).tolist()
        for seat in (0, 1):
            seed = args.seed + 2 * deal + seat
            spy = KnockSpy(agents.make(args.agent, seed=seed), agents.make(args.reference, seed=seed))
            other = agents.make(args.opponent, seed=seed + 1_000_003)
            result = play_hand([spy, other] if seat == 0 else [other, spy], rules=args.rules, deck=deck, dealer=1)
            points = result.rewards[seat]
            who = "-" if result.knocker is None else args.agent if result.knocker == seat else args.opponent
            outcomes[f"{who} knocks: {result.outcome}" if result.knocker is not None else result.outcome].append(points)
            for i, (turn, least, mine, theirs) in enumerate(spy.log):
                if not (mine or theirs):
                    continue
                key = (f"{args.agent} {'knocks' if mine else 'waits'}, {args.reference} {'knocks' if theirs else 'waits'}",
                       f"turn {'>=' if turn >= args.late_turn else '<'} {args.late_turn}, deadwood {_band(least)}")
                entry = decisions[key]
                entry[0] += 1
                if mine and i == len(spy.log) - 1:  # the agent's knock ended the hand
                    entry[1] += points
                    entry[2] += 1
    total = sum(len(v) for v in outcomes.values())
    print(f"{args.agent} vs {args.opponent}, {args.rules}, {total} hands ({total // 2} deals, seats swapped): "
          f"{np.mean([p for v in outcomes.values() for p in v]):+.2f} points a hand to {args.agent}")
    print(f"\n{'outcome':40s} {'hands':>6s} {'share':>7s} {'points a hand':>14s}")
    for key in sorted(outcomes):
        values = outcomes[key]
        print(f"{key:40s} {len(values):6d} {len(values) / total:7.1%} {sum(values) / total:+14.2f}")
    print(f"\nknock decisions ({args.reference} asked the same question):")
    print(f"{'decision':50s} {'when':28s} {'n':>5s} {'points a knock':>15s}")
    for (what, when) in sorted(decisions):
        n, pts, knocked = decisions[(what, when)]
        shown = f"{pts / knocked:+15.1f}" if knocked else f"{'':>15s}"
        print(f"{what:50s} {when:28s} {n:5d} {shown}")


if __name__ == "__main__":
    main()
