"""Where an agent's points come from against an opponent: the hands' outcomes by who
knocked, each side's knocks, and the agent's knock decisions next to a reference agent's.

Why: two agents can win the same share of hands with very different points; the
difference usually lies in knock timing (knocking into undercuts, or waiting too long).
Over duplicate deals (each deal played twice, seats swapped) it prints:

1. the outcomes (knock, gin, big gin, undercut, draw) by who knocked ("agent" or
   "opponent"), each with its share of the hands and its part of the agent's points per
   hand (the parts add up to the agent's points per hand);
2. each side's knocks (Big Gin counts as a knock): the share of hands it knocked in,
   the points a knock brought the knocker, with a 95% half-width, and the share of its
   knocks that were undercut;
3. every decision where the agent or the ``--reference`` agent (asked the same question
   with the agent's own observation, after the agent chose) would knock: by turn and by
   the deadwood of the knock made (the agent's, else the reference's), with the points
   of the agent's knocks. These are points of the knocks made, not a comparison with
   what waiting would have brought.

``--knock-by reference`` answers that question: the agent then plays every move itself
except the choice to knock or not, which is the reference's (the reference's knock when
it knocks; the agent's own choice among the other moves when only the agent would
knock, and then no knock is made, so such decisions leave no row in table 3). The
points per hand against the agent's own run over the same deals show what its knock
choices are worth.

    python benchmarks/bench_knocks.py --agent ppo --opponent heuristic --reference heuristic --hands 1000
    python benchmarks/bench_knocks.py --agent ppo --opponent heuristic --hands 1000 --knock-by reference
"""

from __future__ import annotations

import argparse
import collections
import math
from typing import Any

import numpy as np

from rummy_env import agents
from rummy_env.agents.arena import play_hand
from rummy_env.agents.base import Agent, game_input
from rummy_env.agents.gin.heuristic import DEFAULTS
from rummy_env.core import melds
from rummy_env.core.cards import NUM_CARDS
from rummy_env.gin.game import BIG_GIN, KNOCK

SIDES = ("agent", "opponent")


def _knocks(action: int) -> bool:
    return KNOCK <= action <= BIG_GIN  # a knock with a card, or Big Gin


def _band(deadwood: int, low: int) -> str:
    return "0 (gin)" if deadwood == 0 else f"1-{low}" if deadwood <= low else f"{low + 1} or more"


def _mean_ci(values: list[float]) -> str:
    if len(values) < 2:
        return f"{np.mean(values):+.1f}" if values else "-"
    return f"{np.mean(values):+.1f} +- {1.96 * np.std(values, ddof=1) / math.sqrt(len(values)):.1f}"


class KnockSpy(Agent):
    """Plays as ``agent``; at each decision where the agent or ``reference`` knocks, it
    records (turn, deadwood of the knock made, knock played?, reference knocks?). The
    reference sees only the agent's own observation and info, after the agent chose.
    With ``follow_reference`` the reference decides whether to knock (module docstring)."""

    game = "gin"

    def __init__(self, agent: Agent, reference: Agent, follow_reference: bool = False) -> None:
        super().__init__(None)
        self.agent, self.reference, self.follow, self.log = agent, reference, follow_reference, []

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        action = self.agent.act(observation, info)
        if any(_knocks(a) for a in np.flatnonzero(observation["action_mask"])):
            other = self.reference.act(observation, info)
            if self.follow and _knocks(other):
                action = other
            elif self.follow and _knocks(action):  # only the agent would knock: its best other move
                mask = observation["action_mask"].copy()
                mask[KNOCK : BIG_GIN + 1] = 0
                action = self.agent.act({**observation, "action_mask": mask}, info)
            if _knocks(action) or _knocks(other):
                infoset, rules = game_input(self, observation, info)
                made = action if _knocks(action) else other
                deadwood = 0 if made == BIG_GIN else int(melds.discard_deadwood(
                    infoset.hand, aces_high=rules.aces_high, five_under_ten=rules.five_under_ten)[made - KNOCK])
                self.log.append((infoset.turn, deadwood, _knocks(action), _knocks(other)))
        return action


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--agent", default="ppo", help="the agent studied (an agent spec)")
    ap.add_argument("--opponent", default="heuristic")
    ap.add_argument("--reference", default="heuristic", help="whose knock decisions to compare with")
    ap.add_argument("--knock-by", choices=("agent", "reference"), default="agent",
                    help="who decides whether the agent knocks (reference: its other moves stay the agent's)")
    ap.add_argument("--hands", type=int, default=300, help="hands (an even number: deals x 2)")
    ap.add_argument("--rules", default="classic")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--late-turn", type=int, default=DEFAULTS["late_turn"],
                    help="the turn from which a knock counts as late (default: the heuristic's, %(default)s)")
    ap.add_argument("--low-deadwood", type=int, default=DEFAULTS["late_knock_max"],
                    help="the deadwood up to which a knock counts as low (default: the heuristic's late limit, %(default)s)")
    args = ap.parse_args()
    if args.hands < 2 or args.hands % 2:
        ap.error(f"--hands must be an even number of at least 2 (each deal is played twice), got {args.hands}")
    for spec in (args.agent, args.opponent, args.reference):
        agents.make(spec)  # a bad spec fails here, before any work
    rng = np.random.default_rng(args.seed)
    outcomes: dict[str, list[float]] = collections.defaultdict(list)
    knock_points: dict[str, list[float]] = {side: [] for side in SIDES}  # points to the knocker, per knock
    undercuts = dict.fromkeys(SIDES, 0)
    decisions: dict[tuple[str, str], list] = collections.defaultdict(lambda: [0, []])
    for deal in range(args.hands // 2):
        deck = rng.permutation(NUM_CARDS).tolist()
        for seat in (0, 1):
            seed = args.seed + 2 * deal + seat
            spy = KnockSpy(agents.make(args.agent, seed=seed), agents.make(args.reference, seed=seed),
                           follow_reference=args.knock_by == "reference")
            other = agents.make(args.opponent, seed=seed + 1_000_003)
            result = play_hand([spy, other] if seat == 0 else [other, spy], rules=args.rules, deck=deck, dealer=1)
            points = result.rewards[seat]
            if result.knocker is None:
                outcomes[result.outcome].append(points)
            else:
                side = SIDES[0] if result.knocker == seat else SIDES[1]
                outcomes[f"{side} knocks: {result.outcome}"].append(points)
                knock_points[side].append(result.rewards[result.knocker])
                undercuts[side] += result.outcome == "undercut"
            for i, (turn, deadwood, mine, theirs) in enumerate(spy.log):
                key = (f"agent {'knocks' if mine else 'waits'}, reference {'knocks' if theirs else 'waits'}",
                       f"turn {'>=' if turn >= args.late_turn else '<'} {args.late_turn}, "
                       f"deadwood {_band(deadwood, args.low_deadwood)}")
                entry = decisions[key]
                entry[0] += 1
                if mine and i == len(spy.log) - 1:  # a knock ends the hand: the last decision logged
                    entry[1].append(points)
    total = sum(len(v) for v in outcomes.values())
    every = [p for v in outcomes.values() for p in v]
    print(f"agent {args.agent} vs opponent {args.opponent}, {args.rules}, {total} hands ({total // 2} deals, seats "
          f"swapped): {np.mean(every):+.2f} points a hand to the agent; reference {args.reference}"
          + ("; knocks decided by the reference" if args.knock_by == "reference" else ""))
    print(f"\n{'outcome':32s} {'hands':>6s} {'share':>7s} {'points a hand':>14s}")
    for key in sorted(outcomes):
        values = outcomes[key]
        print(f"{key:32s} {len(values):6d} {len(values) / total:7.1%} {sum(values) / total:+14.2f}")
    print(f"\n{'knocker':10s} {'knocks':>7s} {'of hands':>9s} {'points a knock (95%)':>22s} {'undercut':>9s}")
    for side in SIDES:
        n = len(knock_points[side])
        share = f"{undercuts[side] / n:9.1%}" if n else f"{'-':>9s}"
        print(f"{side:10s} {n:7d} {n / total:9.1%} {_mean_ci(knock_points[side]):>22s} {share}")
    print(f"\ndecisions where either would knock (n: decisions; points: the agent's knocks, to the agent):")
    print(f"{'decision':34s} {'when':32s} {'n':>5s} {'points a knock (95%)':>22s}")
    for what, when in sorted(decisions):
        n, pts = decisions[(what, when)]
        print(f"{what:34s} {when:32s} {n:5d} {_mean_ci(pts) if pts else '':>22s}")


if __name__ == "__main__":
    main()
