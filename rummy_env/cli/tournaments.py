"""``rummy tournament``, ``rummy replay`` and ``rummy export``: agents against each other over
duplicate deals, a recorded game stepped through, and the recorded games as one decision
a line (``rummy_env.eval.export``), for any registered game."""

from __future__ import annotations

import argparse
from typing import Any, Optional

from rummy_env.core.game import games


def register(sub: argparse._SubParsersAction) -> None:
    tour = sub.add_parser("tournament", help="agents play each other over duplicate deals; reports and ratings")
    tour.add_argument("--agents", nargs="+", help="agent specs, e.g. random simple heuristic mcts:simulations=200")
    tour.add_argument("--config", help="YAML file with any of these settings (command-line values win)")
    tour.add_argument("--game", help=f"one of {', '.join(games())} (default gin; basic is also called rummy)")
    tour.add_argument("--players-per-table", type=int, help="agents at each table (Basic Rummy: 2 to 4; default 2)")
    tour.add_argument("--deals", type=int, help="deals per pair or table, each played in every seating (default 100); "
                      "rerun with more on the same --out to grow a tournament")
    tour.add_argument("--rules", help="preset or YAML path (default: the game's default preset)")
    tour.add_argument("--mode", choices=("hands", "matches"), help="a game is one hand (default) or a match")
    tour.add_argument("--format", choices=("round_robin", "gauntlet"), help="default round_robin")
    tour.add_argument("--candidates", nargs="+", help="gauntlet: the agents under test")
    tour.add_argument("--out", help="output folder (default runs/tournament); rerun to resume")
    tour.add_argument("--workers", type=int, help="local worker processes (default 1)")
    tour.add_argument("--backend", choices=("local", "ray"), help="default local")
    tour.add_argument("--address", help="ray: address of an existing cluster")
    tour.add_argument("--seed", type=int)
    tour.add_argument("--no-record", action="store_const", const=True, default=None, help="do not keep moves")
    tour.add_argument("--batch", choices=("auto", "off"),
                      help="auto (default): pairs whose agents have array versions play thousands of games at once; "
                           "off: every game one at a time (the same results)")
    tour.add_argument("--quiet", action="store_true", help="no progress bar")
    tour.set_defaults(func=_tournament)

    rep = sub.add_parser("replay", help="step through a recorded game of a tournament")
    rep.add_argument("file", help="a results.jsonl written by rummy tournament, or the tournament's folder")
    rep.add_argument("--key", help="the game's key such as 0-1-3-0 (default: the first game)")
    rep.add_argument("--game", action=_Renamed, help=argparse.SUPPRESS)
    rep.add_argument("--step", action="store_true", help="wait for Enter after every move")
    rep.set_defaults(func=_replay)

    exp = sub.add_parser("export", help="a tournament's recorded games as JSONL, one decision a line (for imitation, "
                         "fine-tuning, language models), e.g. rummy export runs/tournament --view text")
    exp.add_argument("folder", help="the tournament's folder (or its results.jsonl), played with moves recorded")
    exp.add_argument("--view", default="text", help="what a line shows of the position: text or json (the text views "
                     "of docs/text-views.md) or flat (the flat observation, a list of numbers; what rummy train's "
                     "imitation_file reads); default text")
    exp.add_argument("--agents", nargs="+", metavar="NAME", help="only the decisions of these agents (as the "
                     "tournament names them; default: every agent's)")
    exp.add_argument("--forced", action="store_true", help="also the decisions with a single legal move (default: "
                     "only real choices)")
    exp.add_argument("--out", help="the JSONL file (default FOLDER/decisions_VIEW.jsonl); rerun to resume or to add a "
                     "grown tournament's new games")
    exp.add_argument("--limit", type=int, metavar="N", help="at most N lines in the file (a rerun with more goes on)")
    exp.set_defaults(func=_export)


class _Renamed(argparse.Action):
    """``rummy replay --game KEY``, the spelling of 0.1: refused, naming ``--key``, since
    ``--game`` names a game (gin, basic, romme) everywhere else."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: Optional[str] = None) -> None:
        parser.exit(2, f"{parser.prog}: error: --game is now --key (the key of a recorded game, such as {values}); "
                       "elsewhere --game names a game such as gin\n")


def _tournament(args: argparse.Namespace) -> int:
    from rummy_env.eval.config import load_config
    from rummy_env.eval.tournament import run

    config = load_config(
        args.config, agents=args.agents, candidates=args.candidates, out=args.out, rules=args.rules,
        mode=args.mode, deals=args.deals, format=args.format, seed=args.seed, workers=args.workers,
        backend=args.backend, address=args.address, record=None if args.no_record is None else not args.no_record,
        game=args.game, players_per_table=args.players_per_table, batch=args.batch,
    )
    summary = run(config, progress=not args.quiet)
    if summary["grown_from_deals"] is not None:
        print(f"grown from {summary['grown_from_deals']} to {config.deals} deals: the games of the first "
              f"{summary['grown_from_deals']} were kept, {summary['played_this_run']} new ones played")
    print(summary["report"], end="")
    names = ["results.jsonl", "summary.json", "report.md", "agents.csv", "pairs.csv", "crosstable.png", "ratings.png"]
    written = [n for n in names if (config.out_dir / n).is_file()]
    print(f"written: {config.out_dir}/{', '.join(written)}")
    return 0


def _replay(args: argparse.Namespace) -> int:
    from rummy_env.core.game import get_game
    from rummy_env.eval.config import DEFAULT_GAME
    from rummy_env.eval.games import replay_hand
    from rummy_env.eval.store import read_results

    header, records = read_results(args.file)
    rules = header.get("rules")  # a header without rules (hand-written): the game's default
    if not records:
        raise ValueError(f"{args.file} holds no games yet")
    if args.key is None:
        record = records[0]
    else:
        found = [r for r in records if r["key"] == args.key]
        if not found:
            raise ValueError(f"no game {args.key!r} in {args.file}; keys look like {records[0]['key']!r}")
        record = found[0]
    game = get_game(header.get("game", DEFAULT_GAME))
    k = len(record["players"])
    seats = ", ".join(f"player_{s} = {name}" for s, name in enumerate(record["players"]))
    print(f"{game.title} game {record['key']}: {seats}, rules {rules!r}")
    for number, hand in enumerate(record["hands"], start=1):
        replay_hand(hand, rules, game.name, k)  # checks the record before showing it
        state = game.deal(game.load_rules(rules), k, deck=hand["deck"], dealer=hand["dealer"])
        print(f"\nhand {number}")
        print(state.render())
        for action in hand["actions"]:
            who = state.current_player
            state.step(action)
            print(f"\nplayer_{who}: {game.action_name(action, rules)}")
            print(state.render())
            if args.step:
                input("(enter for the next move) ")
    return 0


def _export(args: argparse.Namespace) -> int:
    from rummy_env.eval.export import export

    done = export(args.folder, args.out, view=args.view, agents=args.agents, forced=args.forced, limit=args.limit)
    left = "" if done.complete else " (stopped by --limit; rerun with a larger one to go on)"
    print(f"{done.out}: {done.lines} decisions ({done.new_lines} new) from {done.games} games{left}")
    return 0
