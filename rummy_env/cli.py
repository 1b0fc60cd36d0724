"""The ``rummy`` command: one entry point whose subcommands call into the library.

- ``rummy demo``: play a short batch of random-vs-random hands through the PettingZoo
  env and print a summary (outcomes, points, speed). The README's main job until agents
  and training exist.
- ``rummy deadwood CARDS``: the exact solver on one hand (arrangement; for 11 cards the
  deadwood left by each discard).
- ``rummy rules [PRESET|FILE]``: print rule options as YAML.
- ``rummy play``: play a hand or a match in the terminal against any agent or level.
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from typing import Optional, Sequence

import numpy as np
import yaml

from rummy_env import melds
from rummy_env.cards import card_str, format_hand, parse_hand
from rummy_env.rules import PRESETS, load_rules


def _demo(args: argparse.Namespace) -> int:
    from rummy_env import gin_rummy_v0

    env = gin_rummy_v0.env(rules=args.rules, episode=args.episode)
    rng = np.random.default_rng(args.seed)
    outcomes: collections.Counter[str] = collections.Counter()
    returns = np.zeros(2)
    steps = 0
    start = time.perf_counter()
    for episode in range(args.episodes):
        env.reset(seed=args.seed + episode)
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if "hand_result" in info and agent == "player_0":
                outcomes[info["hand_result"]["outcome"]] += 1
            returns[env.possible_agents.index(agent)] += reward
            if term or trunc:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                knocks = legal[legal >= 55]  # random play that knocks when it can, so hands end in showdowns
                action = int(knocks[0]) if knocks.size else int(rng.choice(legal))
                steps += 1
            env.step(action)
    seconds = time.perf_counter() - start
    unit = "hands" if args.episode == "hand" else "matches"
    print(f"{args.episodes} {unit} of random play (knocking when legal), rules {args.rules!r}")
    print("outcomes:", ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())))
    print(f"mean return per {unit[:-1] if unit == 'hands' else 'match'}: player_0 {returns[0] / args.episodes:+.2f}, "
          f"player_1 {returns[1] / args.episodes:+.2f}")
    print(f"{steps} decisions in {seconds:.2f} s ({steps / seconds:,.0f} steps/s)")
    print("the last table:")
    print(env.unwrapped.game.render())
    return 0


def _deadwood(args: argparse.Namespace) -> int:
    rules = load_rules(args.rules)
    opts = {"aces_high": rules.aces_high, "five_under_ten": rules.five_under_ten}
    hand = parse_hand(" ".join(args.cards))
    arrangement = melds.best_arrangement(hand, **opts)
    print(f"hand: {format_hand(hand)}  ({hand.bit_count()} cards)")
    for m in arrangement.melds:
        print(f"  {m.kind:4} {format_hand(m.cards)}")
    print(f"deadwood: {arrangement.deadwood} ({format_hand(arrangement.deadwood_cards) or 'none'})")
    if hand.bit_count() == 11:
        after = melds.discard_deadwood(hand, **opts)
        print("deadwood left by each discard:", ", ".join(f"{card_str(c)} {after[c]}" for c in range(52) if after[c] >= 0))
    return 0


def _play(args: argparse.Namespace) -> int:
    import agents
    from agents.human import HumanAgent, QuitGame, describe_move, explain
    from rummy_env import gin_rummy_v0

    opponent = agents.make(args.opponent, seed=args.seed)
    human = HumanAgent()
    seat = args.seat if args.seat in (0, 1) else int(np.random.default_rng(args.seed).integers(2))
    players = [human, opponent] if seat == 0 else [opponent, human]
    env = gin_rummy_v0.raw_env(rules=args.rules, episode="match" if args.match else "hand")
    env.reset(seed=args.seed)
    you = env.possible_agents[seat]
    print(f"you are {you}, playing {args.opponent!r} under {args.rules!r} rules ({'a match' if args.match else 'one hand'})")
    try:
        for name in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if name == you:
                for result in info.get("hand_results", []):
                    print("\n" + explain(result, seat))
                if "match_points" in info:
                    print(f"match points: you {info['match_points'][seat]}, opponent {info['match_points'][1 - seat]}")
                if "match_result" in info:
                    final = info["match_result"]
                    print(f"match over: grand totals you {final['grand_total'][seat]}, opponent {final['grand_total'][1 - seat]}")
            if term or trunc:
                env.step(None)
                continue
            action = players[env.possible_agents.index(name)].act(obs, info)
            if name != you:
                print(f"opponent {describe_move(action)}")
            env.step(action)
    except (QuitGame, EOFError):
        print("\ngame abandoned")
    return 0


def _rules(args: argparse.Namespace) -> int:
    print(yaml.safe_dump(load_rules(args.spec).to_dict(), sort_keys=False), end="")
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="rummy", description="Gin Rummy environments for RL research")
    sub = parser.add_subparsers(dest="command", required=True)

    demo = sub.add_parser("demo", help="play random games through the env and print a summary")
    demo.add_argument("--episodes", type=int, default=200, help="episodes to play (default 200)")
    demo.add_argument("--episode", choices=("hand", "match"), default="hand", help="episode length")
    demo.add_argument("--rules", default="classic", help=f"preset ({', '.join(PRESETS)}) or YAML path")
    demo.add_argument("--seed", type=int, default=0)
    demo.set_defaults(func=_demo)

    dw = sub.add_parser("deadwood", help="arrange one hand exactly, e.g. rummy deadwood AC 2C 3C 7D 7H 7S KD")
    dw.add_argument("cards", nargs="+", help="cards such as AC 10H TD 7s")
    dw.add_argument("--rules", default="classic")
    dw.set_defaults(func=_deadwood)

    play = sub.add_parser("play", help="play in the terminal against an agent, e.g. rummy play --opponent hard")
    play.add_argument("--opponent", default="medium", help="agent spec or level: easy, medium, hard, expert, heuristic, ...")
    play.add_argument("--rules", default="classic", help=f"preset ({', '.join(PRESETS)}) or YAML path")
    play.add_argument("--match", action="store_true", help="play a match to the target score instead of one hand")
    play.add_argument("--seat", type=int, choices=(0, 1), default=None, help="your seat (default: random)")
    play.add_argument("--seed", type=int, default=None)
    play.set_defaults(func=_play)

    rl = sub.add_parser("rules", help="print rule options as YAML")
    rl.add_argument("spec", nargs="?", default="classic", help="preset name or YAML path")
    rl.set_defaults(func=_rules)

    args = parser.parse_args(argv)
    if getattr(args, "episodes", 1) < 1:
        parser.error("--episodes must be >= 1")
    try:
        return args.func(args)
    except (ValueError, TypeError, FileNotFoundError) as exc:
        print(f"rummy {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
