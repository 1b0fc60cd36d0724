"""The ``rummy`` command: one entry point whose subcommands call into the library.

- ``rummy demo``: the README's main job: trains a PPO agent briefly (``configs/ppo_demo.yaml``),
  then a small tournament of it against ``random``, ``simple``, ``heuristic`` and the
  shipped ``ppo`` (``configs/tournament_demo.yaml``); writes TensorBoard logs, learning
  curves, the tournament's report and plots under ``runs/demo-TIME/``.
- ``rummy deadwood CARDS``: the exact solver on one hand (arrangement; for 11 cards the
  deadwood left by each discard).
- ``rummy rules [PRESET|FILE]``: print rule options as YAML.
- ``rummy play``: play a hand or a match in the terminal against any agent or level.
- ``rummy tournament``: agents against each other over duplicate deals (``eval/``).
- ``rummy replay FILE``: step through a recorded tournament game.
- ``rummy train --config FILE``: masked PPO with self-play (``train/``; needs torch);
  ``--resume RUN_DIR`` continues a run.
- ``rummy distill``: fit a ppo network to a search agent's moves in its own games.
- ``rummy knock-labels``: fine-tune a ppo network's knock decisions on both choices
  played out (``rummy_env/train/knock_labels.py``).
- ``rummy curves RUN_DIR... -o curves.png``: learning curves from TensorBoard logs.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Optional, Sequence

import numpy as np
import yaml

from rummy_env.core import melds
from rummy_env.core.cards import card_str, format_hand, parse_hand
from rummy_env.gin.rules import PRESETS, load_rules

_CONFIGS = Path(__file__).resolve().parents[2] / "configs"


def _demo(args: argparse.Namespace) -> int:
    """Train a PPO agent briefly, then a small tournament with it; logs and plots on disk."""
    import datetime as dt
    from pathlib import Path

    try:
        import torch  # noqa: F401
    except ImportError:
        raise ImportError(
            "rummy demo trains a network and needs torch: pip install torch==2.13.0 -e '.[train]'"
        ) from None
    from rummy_env.eval.config import load_config as load_tournament
    from rummy_env.eval.tournament import run
    from rummy_env.train.config import load_config as load_training
    from rummy_env.train.curves import plot_curves
    from rummy_env.train.ppo import Trainer

    out = Path(args.out) / dt.datetime.now().strftime("demo-%Y%m%d-%H%M%S")
    config = load_training(args.config, {"runs_dir": str(out), "seed": args.seed, "progress": not args.quiet})
    print(f"1/3 training {config.name!r} for {config.total_updates} updates "
          f"({config.total_updates * config.steps_per_update:,} env steps); TensorBoard: tensorboard --logdir {out}")
    trainer = Trainer.start(config)
    try:
        trainer.train()
    finally:
        trainer.close()
    rate = trainer.global_step / trainer.train_seconds
    print(f"    {trainer.global_step:,} env steps in {trainer.train_seconds:.0f} s ({rate:,.0f} steps/s including updates)")
    curves = plot_curves([trainer.run_dir], out / "curves.png")
    policy = trainer.run_dir / "policy.pt"
    specs = ["random", "simple", "heuristic", "ppo", f"ppo:{policy}"]
    print(f"2/3 tournament over duplicate deals: {', '.join(specs[:-1])} and the agent just trained")
    tournament = load_tournament(args.tournament, agents=specs, out=str(out / "tournament"), seed=args.seed)
    summary = run(tournament, progress=not args.quiet)
    print(summary["report"], end="")
    print(f"3/3 written under {out}/:")
    print(f"    {trainer.run_dir.name}/  TensorBoard events, config.yaml, checkpoint.pt, policy.pt")
    print(f"    {curves.name}  learning curves;  tournament/  report.md, summary.json, pairs.csv, crosstable.png, ratings.png")
    print(f"next: rummy play --opponent ppo:{policy}   |   rummy train --config configs/ppo.yaml")
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
    from rummy_env import agents
    from rummy_env.agents.gin.human import HumanAgent, QuitGame, describe_move, explain
    from rummy_env import gin_rummy_v0

    opponent = agents.make(args.opponent, seed=args.seed)
    if getattr(opponent, "game", "gin") != "gin":
        gin = [a for a in agents.available() if not a.startswith("rummy-")]
        raise ValueError(f"{args.opponent!r} plays Basic Rummy; rummy play is Gin Rummy: choose one of {', '.join(gin)}")
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
                if args.match and "match_points" in info:
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
    from rummy_env.eval.config import load_config
    from rummy_env.eval.tournament import run

    config = load_config(
        args.config, agents=args.agents, candidates=args.candidates, out=args.out, rules=args.rules,
        mode=args.mode, deals=args.deals, format=args.format, seed=args.seed, workers=args.workers,
        backend=args.backend, address=args.address, record=None if args.no_record is None else not args.no_record,
        game=args.game, players_per_table=args.players_per_table,
    )
    summary = run(config, progress=not args.quiet)
    print(summary["report"], end="")
    names = ["results.jsonl", "summary.json", "report.md", "agents.csv", "pairs.csv", "crosstable.png", "ratings.png"]
    written = [n for n in names if (config.out_dir / n).is_file()]  # agents.csv: rummy tournaments only
    print(f"written: {config.out_dir}/{', '.join(written)}")
    return 0


def _replay(args: argparse.Namespace) -> int:
    from rummy_env.eval.games import replay_hand
    from rummy_env.eval.store import read_results
    from rummy_env.gin.game import GinRummyState, action_name

    header, records = read_results(args.file)
    rules = header["rules"]
    if not records:
        raise ValueError(f"{args.file} holds no games yet")
    if args.game is None:
        record = records[0]
    else:
        found = [r for r in records if r["key"] == args.game]
        if not found:
            raise ValueError(f"no game {args.game!r} in {args.file}; keys look like {records[0]['key']!r}")
        record = found[0]
    if header.get("game") == "rummy":  # Basic Rummy, 2 to 4 seats
        from rummy_env.eval.games import replay_rummy_hand
        from rummy_env.basic.game import BasicRummyState
        from rummy_env.basic.game import action_name as rummy_action_name
        from rummy_env.basic.rules import load_rummy_rules

        k, aces_high = len(record["players"]), load_rummy_rules(rules).aces_high
        seats = ", ".join(f"player_{s} = {name}" for s, name in enumerate(record["players"]))
        print(f"Basic Rummy game {record['key']}: {seats}, rules {rules!r}")
        for number, hand in enumerate(record["hands"], start=1):
            replay_rummy_hand(hand, rules, k)  # checks the record before showing it
            rstate = BasicRummyState.from_deck(hand["deck"], k, rules, hand["dealer"])
            print(f"\nhand {number}")
            print(rstate.render())
            for action in hand["actions"]:
                who = rstate.current_player
                rstate.step(action)
                print(f"\nplayer_{who}: {rummy_action_name(action, aces_high)}")
                print(rstate.render())
                if args.step:
                    input("(enter for the next move) ")
        return 0
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


def _train(args: argparse.Namespace) -> int:
    import dataclasses

    from rummy_env.train.config import PPOConfig, load_config

    overrides = {f.name: getattr(args, f.name) for f in dataclasses.fields(PPOConfig) if getattr(args, f.name) is not None}
    for item in args.set or []:
        key, eq, value = item.partition("=")
        if not eq:
            raise ValueError(f"--set {item!r} must look like FIELD=VALUE, e.g. opponents.heuristic=0.2")
        overrides[key.strip()] = value
    from rummy_env.train.ppo import Trainer

    if args.resume:
        if args.config:
            raise ValueError("--resume takes the run's own config.yaml; do not pass --config")
        trainer = Trainer.resume(args.resume, overrides)
        print(f"resuming {trainer.run_dir} at update {trainer.update} of {trainer.config.total_updates}")
    else:
        trainer = Trainer.start(load_config(args.config, overrides))
        print(f"run folder: {trainer.run_dir}  (tensorboard --logdir {trainer.run_dir.parent})")
    try:
        last = trainer.train()
    finally:
        trainer.close()
    c = trainer.config
    rate = trainer.global_step / trainer.train_seconds if trainer.train_seconds else float("nan")
    print(f"done: {trainer.update} updates, {trainer.global_step:,} env steps, {trainer.train_seconds:.0f} s of training "
          f"({rate:,.0f} steps/s)")
    for opp, res in last.items():
        print(f"  vs {opp}: won {res['win_rate']:.1%} of {c.eval_hands} hands, "
              f"{res['points_per_hand']:+.2f} +- {res['points_ci95']:.2f} points per hand")
    print(f"policy: {trainer.run_dir / 'policy.pt'}  (use as agent ppo:{trainer.run_dir / 'policy.pt'})")
    return 0


def _distill(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from rummy_env.train.distill import collect, fit, load

    if not args.hands and args.out is None:
        raise ValueError("nothing to do: give --hands N to label hands, --out FILE to fit a network, or both")
    if args.hands:
        with tqdm(total=args.hands, disable=args.quiet, desc=f"labelling with {args.teacher}", unit="hand") as bar:
            played = collect(args.student, args.teacher, args.opponent, args.hands, args.labels, rules=args.rules,
                             seed=args.seed, win_bonus=args.win_bonus, workers=args.workers, decisions=args.decisions,
                             progress=lambda done, total: bar.update(done - bar.n))
        print(f"labels: {args.labels} ({played} hands played now, {args.hands - played} were there)")
    if args.out is None:
        return 0
    data = load(args.labels)
    deviate = float(np.mean(data["act"] != data["student"]))
    student = args.init
    if student is None:
        from rummy_env import agents
        from rummy_env.agents.gin.ppo import PPOAgent

        learner = agents.make(args.student)
        if not isinstance(learner, PPOAgent):
            raise ValueError(f"the student must be a ppo agent (its network is what is trained), got {args.student!r}")
        student = str(learner.path)
    stats = fit(student, data, args.out, epochs=args.epochs, lr=args.lr, seed=args.seed)
    print(f"fitted {student} to {len(data['act']):,} labelled moves ({deviate:.1%} where the teacher's differs from the "
          f"student's): the network now plays the teacher's move in {stats['agreement']:.1%} of them "
          f"({stats['agreement_before']:.1%} before; cross-entropy {stats['policy_loss']:.3f}, "
          f"{stats['policy_loss_before']:.3f} before)")
    print(f"policy: {args.out}  (use as agent ppo:{args.out})")
    return 0


def _knock_labels(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from rummy_env.train.knock_labels import collect, fit

    if not args.hands and args.out is None:
        raise ValueError("nothing to do: give --hands N to label hands, --out FILE to fit a network, or both")
    if args.chunk_hands < 1:
        raise ValueError(f"--chunk-hands must be >= 1, got {args.chunk_hands}")
    policy = args.policy
    if policy is None:
        from rummy_env import agents

        policy = str(agents.make("ppo").path)
    if args.hands:
        with tqdm(total=-(-args.hands // args.chunk_hands), disable=args.quiet, desc="playing knocks out",
                  unit="chunk") as bar:
            played = collect(policy, args.hands, args.labels, rules=args.rules, seed=args.seed, stocks=args.stocks,
                             win_bonus=args.win_bonus, anchor=args.anchor, chunk_hands=args.chunk_hands,
                             workers=args.workers, progress=lambda done, total: bar.update(done - bar.n))
        print(f"labels: {args.labels} ({played} chunks of {args.chunk_hands} hands played now)")
    if args.out is None:
        return 0
    stats = fit(policy, args.labels, args.out, epochs=args.epochs, lr=args.lr, anchor_weight=args.anchor_weight,
                seed=args.seed)
    where = f"{stats['held_out']:,} held-out knock decisions" if stats["held_out"] else "the labels fitted (none held out)"
    print(f"fitted {policy} to {stats['decisions']:,} knock decisions and {stats['anchors']:,} of its own other moves; "
          f"on {where}:")
    for epoch, figures in enumerate([stats["before"]] + stats["epochs"]):
        mark = "  <- kept" if epoch == stats["kept"] else ""
        print(f"  epoch {epoch}: gain {figures['gain']:+.3f} a knock decision over always playing on (points and "
              f"win bonus), "
              f"knocks {figures['knock_rate']:.1%}, own moves kept {figures['anchor_agreement']:.1%}{mark}")
    print(f"policy: {args.out}  (use as agent ppo:{args.out})")
    return 0


def _curves(args: argparse.Namespace) -> int:
    from rummy_env.train.curves import plot_curves

    out = plot_curves(args.runs, args.out, tags=args.tag)
    print(f"written: {out}")
    return 0


def _rules(args: argparse.Namespace) -> int:
    print(yaml.safe_dump(load_rules(args.spec).to_dict(), sort_keys=False), end="")
    return 0


def _add_config_fields(parser: argparse.ArgumentParser) -> None:
    """One ``--field-name VALUE`` option per training config field (values read as YAML)."""
    import dataclasses

    from rummy_env.train.config import PPOConfig

    group = parser.add_argument_group("config fields (override the file)")
    for f in dataclasses.fields(PPOConfig):
        group.add_argument("--" + f.name.replace("_", "-"), dest=f.name, metavar="VALUE", default=None)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="rummy", description="Gin Rummy environments for RL research")
    sub = parser.add_subparsers(dest="command", required=True)

    demo = sub.add_parser("demo", help="train a PPO agent briefly, then a small tournament with it (the README's main job)")
    demo.add_argument("--config", default=str(_CONFIGS / "ppo_demo.yaml"), help="training config (default configs/ppo_demo.yaml)")
    demo.add_argument("--tournament", default=str(_CONFIGS / "tournament_demo.yaml"),
                      help="tournament config (default configs/tournament_demo.yaml)")
    demo.add_argument("--out", default="runs", help="parent folder of the demo's output (default runs)")
    demo.add_argument("--seed", type=int, default=0)
    demo.add_argument("--quiet", action="store_true", help="no progress bars")
    demo.set_defaults(func=_demo)

    dw = sub.add_parser("deadwood", help="arrange one hand exactly, e.g. rummy deadwood AC 2C 3C 7D 7H 7S KD")
    dw.add_argument("cards", nargs="+", help="cards such as AC 10H TD 7s")
    dw.add_argument("--rules", default="classic")
    dw.set_defaults(func=_deadwood)

    play = sub.add_parser("play", help="play in the terminal against an agent, e.g. rummy play --opponent hard")
    play.add_argument("--opponent", default="medium", help="level (easy, medium, hard, expert) or agent spec: random, simple, heuristic, "
                      "mcts[:simulations=N,time=SECONDS], ppo[:PATH] (default medium)")
    play.add_argument("--rules", default="classic", help=f"preset ({', '.join(PRESETS)}) or YAML path")
    play.add_argument("--match", action="store_true", help="play a match to the target score instead of one hand")
    play.add_argument("--seat", type=int, choices=(0, 1), default=None, help="your seat (default: random)")
    play.add_argument("--seed", type=int, default=None)
    play.set_defaults(func=_play)

    tour = sub.add_parser("tournament", help="agents play each other over duplicate deals; reports and ratings")
    tour.add_argument("--agents", nargs="+", help="agent specs, e.g. random simple heuristic mcts:simulations=200")
    tour.add_argument("--config", help="YAML file with any of these settings (command-line values win)")
    tour.add_argument("--game", choices=("gin", "rummy"), help="gin (default) or rummy: Basic Rummy, rummy-* agents")
    tour.add_argument("--players-per-table", type=int, help="rummy: 2 to 4 players at each table (default 2)")
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
    rep.add_argument("file", help="a results.jsonl written by rummy tournament, or the tournament's folder")
    rep.add_argument("--game", help="game key such as 0-1-3-0 (default: the first game)")
    rep.add_argument("--step", action="store_true", help="wait for Enter after every move")
    rep.set_defaults(func=_replay)

    tr = sub.add_parser("train", help="train a PPO agent by self-play, e.g. rummy train --config configs/ppo.yaml")
    tr.add_argument("--config", help="YAML training config (default: the built-in defaults)")
    tr.add_argument("--resume", metavar="RUN_DIR", help="continue the run in RUN_DIR from its checkpoint")
    tr.add_argument("--set", action="append", metavar="FIELD=VALUE", help="override any field, e.g. opponents.heuristic=0.2")
    _add_config_fields(tr)
    tr.set_defaults(func=_train)

    di = sub.add_parser("distill", help="fit a ppo network to a search agent's moves in its own games (DAgger), "
                        "e.g. rummy distill --hands 400 --labels runs/labels --out runs/distilled.pt")
    di.add_argument("--student", default="ppo", help="the ppo agent whose games are labelled (default: the shipped one)")
    di.add_argument("--teacher", default="mcts", help="the agent whose moves are the labels (default mcts)")
    di.add_argument("--opponent", default="heuristic", help="the student's opponent in those games")
    di.add_argument("--hands", type=int, default=0, help="hands to label, seeds SEED.. (0: only fit what is there)")
    di.add_argument("--labels", required=True, help="folder of label files, one per hand (a rerun skips hands there)")
    di.add_argument("--out", help="policy file to write after fitting (none: only collect)")
    di.add_argument("--init", help="policy file to fit (default: the student's)")
    di.add_argument("--epochs", type=int, default=3)
    di.add_argument("--lr", type=float, default=3e-4)
    di.add_argument("--rules", default="classic")
    di.add_argument("--seed", type=int, default=0)
    di.add_argument("--win-bonus", type=float, default=0.1, help="added to the hand results the value fits (as in training)")
    di.add_argument("--workers", type=int, default=1)
    di.add_argument("--decisions", choices=("all", "knock"), default="all",
                    help="the teacher labels every decision, or only those where a knock is legal "
                         "(the student's own moves label the others)")
    di.add_argument("--quiet", action="store_true", help="no progress bar")
    di.set_defaults(func=_distill)

    kl = sub.add_parser("knock-labels", help="fine-tune a ppo network's knock decisions on both choices played out, "
                        "e.g. rummy knock-labels --hands 20000 --labels runs/knocks --out runs/knocks.pt")
    kl.add_argument("--policy", help="policy file whose games are labelled and which is fitted (default: the shipped ppo, "
                    "already three rounds fine-tuned; rummy_env/agents/gin/data/ppo_gin_base.pt is PPO alone)")
    kl.add_argument("--hands", type=int, default=0,
                    help="hands the folder should hold, in whole chunks; those there are kept (0: only fit)")
    kl.add_argument("--labels", required=True, help="folder of label chunks (a rerun skips the chunks there)")
    kl.add_argument("--out", help="policy file to write after fitting (none: only collect)")
    kl.add_argument("--stocks", type=int, default=8, help="stock orders each decision's playing on is averaged over")
    kl.add_argument("--win-bonus", type=float, default=25.0, help="points a won hand is worth on top of its score")
    kl.add_argument("--anchor", type=float, default=0.05, help="share of the other decisions kept with the policy's move")
    kl.add_argument("--chunk-hands", type=int, default=2000, help="hands per chunk file")
    kl.add_argument("--epochs", type=int, default=6, help="at most; the best on held-out chunks is kept")
    kl.add_argument("--lr", type=float, default=3e-4, help="Adam's learning rate for the fit")
    kl.add_argument("--anchor-weight", type=float, default=1.0, help="weight of an anchor against an average knock label")
    kl.add_argument("--rules", default="classic")
    kl.add_argument("--seed", type=int, default=0)
    kl.add_argument("--workers", type=int, default=1, help="processes playing chunks at once (one per core)")
    kl.add_argument("--quiet", action="store_true", help="no progress bar")
    kl.set_defaults(func=_knock_labels)

    cu = sub.add_parser("curves", help="plot learning curves from run folders, e.g. rummy curves runs/ppo__* -o curves.png")
    cu.add_argument("runs", nargs="+", help="run folders (NAME__SEED__TIME runs of one NAME are averaged over seeds)")
    cu.add_argument("-o", "--out", default="curves.png", help="image to write (default curves.png)")
    cu.add_argument("--tag", action="append", help="TensorBoard scalar tag to plot (repeatable; default: eval and main charts)")
    cu.set_defaults(func=_curves)

    rl = sub.add_parser("rules", help="print rule options as YAML")
    rl.add_argument("spec", nargs="?", default="classic", help="preset name or YAML path")
    rl.set_defaults(func=_rules)

    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (ValueError, TypeError, OSError, ImportError) as exc:
        print(f"rummy {args.command}: error: {exc}", file=sys.stderr)
        return 2
