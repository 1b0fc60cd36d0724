"""The ``rummy`` command: one entry point whose subcommands call into the library.

- ``rummy demo``: two agents (default ``heuristic`` vs ``simple``) play a short batch of
  hands through the PettingZoo env; prints outcomes, points, speed and the last
  showdown. The README's main job until training exists.
- ``rummy deadwood CARDS``: the exact solver on one hand (arrangement; for 11 cards the
  deadwood left by each discard).
- ``rummy rules [PRESET|FILE]``: print rule options as YAML.
- ``rummy play``: play a hand or a match in the terminal against any agent or level.
- ``rummy tournament``: agents against each other over duplicate deals (``eval/``).
- ``rummy replay FILE``: step through a recorded tournament game.
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
    import agents
    from agents.human import explain
    from rummy_env import gin_rummy_v0

    env = gin_rummy_v0.env(rules=args.rules, episode=args.episode)
    players = [agents.make(spec, seed=args.seed + i) for i, spec in enumerate(args.agents)]
    outcomes: collections.Counter[str] = collections.Counter()
    returns = np.zeros(2)
    steps = 0
    last_result = None
    start = time.perf_counter()
    for episode in range(args.episodes):
        env.reset(seed=args.seed + episode)
        for name in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            seat = env.possible_agents.index(name)
            if seat == 0:
                for result in info.get("hand_results", []):
                    outcomes[result["outcome"]] += 1
                    last_result = result
            returns[seat] += reward
            action = None if term or trunc else players[seat].act(obs, info)
            steps += action is not None
            env.step(action)
    seconds = time.perf_counter() - start
    unit = "hand" if args.episode == "hand" else "match"
    print(f"{args.episodes} {unit}es" if unit == "match" else f"{args.episodes} hands", end="")
    print(f" of {args.agents[0]} (player_0) vs {args.agents[1]} (player_1), rules {args.rules!r}")
    print("outcomes:", ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())))
    print(f"mean return per {unit}: player_0 {returns[0] / args.episodes:+.2f}, player_1 {returns[1] / args.episodes:+.2f}")
    print(f"{steps} decisions in {seconds:.2f} s ({steps / seconds:,.0f} steps/s)")
    if last_result is not None:
        print("the last showdown:")
        print(explain(last_result, names=(f"player_0 ({args.agents[0]})", f"player_1 ({args.agents[1]})")))
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


def _tournament(args: argparse.Namespace) -> int:
    from eval.config import load_config
    from eval.tournament import run

    config = load_config(
        args.config, agents=args.agents, candidates=args.candidates, out=args.out, rules=args.rules,
        mode=args.mode, deals=args.deals, format=args.format, seed=args.seed, workers=args.workers,
        backend=args.backend, address=args.address, record=None if args.no_record is None else not args.no_record,
    )
    summary = run(config, progress=not args.quiet)
    print(summary["report"], end="")
    print(f"written: {config.out_dir}/results.jsonl, summary.json, report.md, pairs.csv, crosstable.png, ratings.png")
    return 0


def _replay(args: argparse.Namespace) -> int:
    import json

    from eval.games import replay_hand
    from rummy_env.game import GinRummyState, action_name

    lines = open(args.file).read().splitlines()
    if not lines or "header" not in json.loads(lines[0]):
        raise ValueError(f"{args.file} is not a tournament results file (no header line)")
    rules = json.loads(lines[0])["header"]["rules"]
    records = [json.loads(line) for line in lines[1:]]
    if not records:
        raise ValueError(f"{args.file} holds no games yet")
    if args.game is None:
        record = records[0]
    else:
        found = [r for r in records if r["key"] == args.game]
        if not found:
            raise ValueError(f"no game {args.game!r} in {args.file}; keys look like {records[0]['key']!r}")
        record = found[0]
    print(f"game {record['key']}: player_0 = {record['players'][0]}, player_1 = {record['players'][1]}, rules {rules!r}")
    for number, hand in enumerate(record["hands"], start=1):
        replay_hand(hand, rules)  # checks the record before showing it
        state = GinRummyState.from_deck(hand["deck"], rules, hand["dealer"])
        print(f"\nhand {number}")
        print(state.render())
        for action in hand["actions"]:
            who = state.current_player
            state.step(action)
            print(f"\nplayer_{who}: {action_name(action)}")
            print(state.render())
            if args.step:
                input("(enter for the next move) ")
    return 0


def _rules(args: argparse.Namespace) -> int:
    print(yaml.safe_dump(load_rules(args.spec).to_dict(), sort_keys=False), end="")
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="rummy", description="Gin Rummy environments for RL research")
    sub = parser.add_subparsers(dest="command", required=True)

    demo = sub.add_parser("demo", help="two agents play through the env; prints a summary")
    demo.add_argument("--agents", nargs=2, default=["heuristic", "simple"], metavar=("A", "B"), help="agent specs")
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

    tour = sub.add_parser("tournament", help="agents play each other over duplicate deals; reports and ratings")
    tour.add_argument("--agents", nargs="+", help="agent specs, e.g. random simple heuristic mcts:simulations=200")
    tour.add_argument("--config", help="YAML file with any of these settings (command-line values win)")
    tour.add_argument("--deals", type=int, help="deals per pair, each played twice with seats swapped (default 100)")
    tour.add_argument("--rules", help="preset or YAML path (default classic)")
    tour.add_argument("--mode", choices=("hands", "matches"), help="a game is one hand (default) or a match")
    tour.add_argument("--format", choices=("round_robin", "gauntlet"), help="default round_robin")
    tour.add_argument("--candidates", nargs="+", help="gauntlet: the agents under test")
    tour.add_argument("--out", help="output folder (default runs/tournament); rerun to resume")
    tour.add_argument("--workers", type=int, help="local worker processes (default 1)")
    tour.add_argument("--backend", choices=("local", "ray"), help="default local")
    tour.add_argument("--address", help="ray: address of an existing cluster")
    tour.add_argument("--seed", type=int)
    tour.add_argument("--no-record", action="store_const", const=True, default=None, help="do not keep moves")
    tour.add_argument("--quiet", action="store_true", help="no progress bar")
    tour.set_defaults(func=_tournament)

    rep = sub.add_parser("replay", help="step through a recorded game of a tournament")
    rep.add_argument("file", help="a results.jsonl written by rummy tournament")
    rep.add_argument("--game", help="game key such as 0-1-3-0 (default: the first game)")
    rep.add_argument("--step", action="store_true", help="wait for Enter after every move")
    rep.set_defaults(func=_replay)

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
