"""``rummy demo``, ``rummy train``, ``rummy train-basic``, ``rummy distill``, ``rummy
expert-iteration``, ``rummy knock-labels`` and ``rummy curves``: PPO training of an agent for
any game (``rummy train --game gin|basic|romme``, one trainer: ``rummy_env.train.ppo``), the
Gin agent's fine-tunes, expert iteration with a search teacher and the learning curves
(``rummy_env.train``; torch is imported only when one of them runs).

``train-basic`` is the 0.2 command for Basic Rummy, kept for one release as an alias of
``train --game basic`` (it says so when run).

Expert iteration is a command of its own rather than a mode of ``rummy train``: it has
none of PPO's fields (no rollouts, no PPO updates) and a run folder of rounds rather
than one checkpoint, so folding it into ``train`` would make every PPO field meaningless
for it and every one of its fields meaningless for PPO."""

from __future__ import annotations

import argparse
import contextlib
import math
from importlib import resources
from pathlib import Path
from typing import Optional, Union

import numpy as np

# The demo's own configs ship inside the package (rummy_env/cli/data/), so ``rummy demo``
# works wherever the wheel is installed; the repository's configs/ppo_demo.yaml and
# configs/tournament_demo.yaml are links to them, for the docs' commands.
DEMO_DATA = resources.files(__package__) / "data"


def register(sub: argparse._SubParsersAction) -> None:
    demo = sub.add_parser("demo", help="train a PPO agent briefly, then a small tournament with it (the README's main job)")
    demo.add_argument("--config", help="training config (default: the demo's own, in the package: "
                      "rummy_env/cli/data/ppo_demo.yaml)")
    demo.add_argument("--tournament", help="tournament config (default: the demo's own, in the package: "
                      "rummy_env/cli/data/tournament_demo.yaml)")
    demo.add_argument("--total-updates", type=int, metavar="N",
                      help="PPO updates to train (default: the training config's total_updates)")
    demo.add_argument("--deals", type=int, metavar="N",
                      help="duplicate deals per pair in the tournament (default: the tournament config's)")
    demo.add_argument("--out", default="runs", help="parent folder of the demo's output (default runs)")
    demo.add_argument("--seed", type=int, default=0)
    demo.add_argument("--quiet", action="store_true", help="no progress bars")
    demo.set_defaults(func=_demo)

    tr = sub.add_parser("train", help="train a PPO agent by self-play for any game, e.g. rummy train --game basic "
                        "--players '{2: 1, 4: 1}' (on Ray: --backend ray --rollout-workers 8 [--address ray://head:10001])")
    tr.add_argument("--config", help="YAML training config (default: the game's own defaults, "
                    "rummy_env/train/data/*.yaml)")
    tr.add_argument("--resume", metavar="RUN_DIR", help="continue the run in RUN_DIR from its checkpoint; with "
                    "--total-updates N it runs to N, the learning rate falling on from its last value to 0 at N")
    tr.add_argument("--set", action="append", metavar="FIELD=VALUE", help="override any field, e.g. opponents.heuristic=0.2")
    _add_config_fields(tr)
    tr.set_defaults(func=_train)

    tb = sub.add_parser("train-basic", help="deprecated (0.3): rummy train --game basic, which it runs")
    tb.add_argument("--config", help="YAML config (default: Basic Rummy's defaults)")
    tb.add_argument("--resume", metavar="RUN_DIR", help="continue the run in RUN_DIR from its checkpoint")
    tb.add_argument("--set", action="append", metavar="FIELD=VALUE",
                    help="override a field, e.g. total_updates=100 or players.4=0 (values read as YAML)")
    tb.set_defaults(func=_train_basic)

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
    di.add_argument("--holdout", type=float, default=0.0, help="share of the hands (the last by seed) kept out of "
                    "the fit to measure how often the network plays the teacher's move on hands it was not fitted to")
    di.add_argument("--quiet", action="store_true", help="no progress bar")
    di.set_defaults(func=_distill)

    ei = sub.add_parser("expert-iteration", help="rounds of: a search over the network labels its games, the network "
                        "learns the labels (e.g. rummy expert-iteration --config configs/expert_iteration.yaml "
                        "--out runs/expit)")
    ei.add_argument("--config", help="YAML config (fields: docs/training.md; default: the built-in defaults, or the "
                    "run's own config.yaml when --out holds a run)")
    ei.add_argument("--out", required=True, help="run folder; a rerun continues the run there where it stopped")
    ei.add_argument("--set", action="append", metavar="FIELD=VALUE", help="override a field, e.g. rounds=6 "
                    "(values read as YAML)")
    ei.add_argument("--quiet", action="store_true", help="no progress bar")
    ei.set_defaults(func=_expert_iteration)

    kl = sub.add_parser("knock-labels", help="fine-tune a ppo network's knock decisions on both choices played out, "
                        "e.g. rummy knock-labels --hands 20000 --labels runs/knocks --out runs/knocks.pt")
    kl.add_argument("--policy", help="policy file whose games are labelled and which is fitted (default: the shipped ppo, "
                    "already fine-tuned; rummy_env/agents/gin/data/ppo_gin_base.pt is PPO alone)")
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
    kl.add_argument("--opponent-knock", choices=("turn", "estimate"), default="turn",
                    help="knock rule of the heuristic the games are played against and played on by: turn "
                    "(heuristic:knock=turn, what the shipped ppo was labelled against) or estimate (the default heuristic)")
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


def _demo(args: argparse.Namespace) -> int:
    """Train a PPO agent briefly, then a small tournament with it; logs and plots on disk.
    Without --config/--tournament it reads the configs shipped in the package."""
    _require_train_extra("torch", "tensorboard")  # it trains a network
    with contextlib.ExitStack() as files:  # a shipped config is a file for as long as the demo runs
        training = args.config or files.enter_context(resources.as_file(DEMO_DATA / "ppo_demo.yaml"))
        tournament = args.tournament or files.enter_context(resources.as_file(DEMO_DATA / "tournament_demo.yaml"))
        return _run_demo(args, training, tournament)


def _run_demo(args: argparse.Namespace, training: Union[str, Path], tournament_file: Union[str, Path]) -> int:
    import dataclasses
    import datetime as dt

    from rummy_env.eval.config import load_config as load_tournament
    from rummy_env.eval.tournament import run
    from rummy_env.train.config import load_config as load_training
    from rummy_env.train.curves import plot_curves
    from rummy_env.train.ppo import Trainer

    out = Path(args.out) / dt.datetime.now().strftime("demo-%Y%m%d-%H%M%S")
    overrides = {"runs_dir": str(out), "seed": args.seed, "progress": not args.quiet}
    if args.total_updates is not None:
        overrides["total_updates"] = args.total_updates
    config = load_training(training, overrides)
    fixed = ["random", "simple", "heuristic", "ppo"]  # the trained agent joins them after training
    tournament = load_tournament(str(tournament_file), agents=fixed, out=str(out / "tournament"), seed=args.seed,
                                 deals=args.deals)  # a bad setting fails now, not after the training
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
    print(f"2/3 tournament over duplicate deals: {', '.join(fixed)} and the agent just trained")
    summary = run(dataclasses.replace(tournament, agents=[*fixed, f"ppo:{policy}"]), progress=not args.quiet)
    print(summary["report"], end="")
    print(f"3/3 written under {out}/:")
    print(f"    {trainer.run_dir.name}/  TensorBoard events, config.yaml, checkpoint.pt, policy.pt")
    print(f"    {curves.name}  learning curves;  tournament/  report.md, summary.json, pairs.csv, crosstable.png, ratings.png")
    print(f"next: rummy play --opponent ppo:{policy}   |   rummy train --help")
    return 0


def _train(args: argparse.Namespace) -> int:
    import dataclasses

    from rummy_env.train.config import PPOConfig

    overrides = {f.name: getattr(args, f.name) for f in dataclasses.fields(PPOConfig) if getattr(args, f.name) is not None}
    return _run_training(args.config, args.resume, {**overrides, **_set_values(args.set)})


def _set_values(items: Optional[list[str]]) -> dict[str, str]:
    """``--set FIELD=VALUE`` items as overrides (values read as YAML by the config)."""
    overrides = {}
    for item in items or []:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"--set {item!r} must look like FIELD=VALUE, e.g. opponents.heuristic=0.2")
        overrides[key.strip()] = value
    return overrides


def _run_training(config_file: Optional[str], resume: Optional[str], overrides: dict[str, object]) -> int:
    """Start (or resume) a run of the one trainer, train it and say what it made."""
    _require_train_extra("torch", "tensorboard")
    from rummy_env.train.config import load_config
    from rummy_env.train.ppo import Trainer

    if resume:
        if config_file:
            raise ValueError("--resume takes the run's own config.yaml; do not pass --config")
        trainer = Trainer.resume(resume, overrides)
        print(f"resuming {trainer.run_dir} at update {trainer.update} of {trainer.config.total_updates}")
    else:
        trainer = Trainer.start(load_config(config_file, overrides))
        print(f"run folder: {trainer.run_dir}  (tensorboard --logdir {trainer.run_dir.parent})")
    c = trainer.config
    if c.backend == "ray" or c.rollout_workers > 1:
        print(f"rollouts: {c.rollout_workers} worker(s) on {c.backend}"
              + (f" at {c.ray_address}" if c.backend == "ray" and c.ray_address else ""))
    try:
        last = trainer.train()
    finally:
        trainer.close()
    rate = trainer.global_step / trainer.train_seconds if trainer.train_seconds else float("nan")
    print(f"done: {trainer.update} updates, {trainer.episodes:,} hands, {trainer.global_step:,} env steps, "
          f"{trainer.train_seconds:.0f} s of training ({rate:,.0f} steps/s)")
    if trainer.rollouts.restarts:
        print(f"  {trainer.rollouts.restarts} rollout worker(s) died and were replaced; their rollouts were played again")
    for opp, res in last.items():
        print(f"  vs {opp}: {_evaluation_text(res, int(res.get('hands', c.eval_hands)), 'deal', draw_is_half=False)}")
    from rummy_env import agents

    policy = trainer.run_dir / "policy.pt"
    plays = f"  (use as agent ppo:{policy} with --game {c.game})" if "ppo" in agents.available(c.game) else ""
    print(f"policy: {policy}{plays}")
    return 0


def _evaluation_text(res: dict[str, float], hands: int, unit: str, draw_is_half: bool = True) -> str:
    """One evaluation as ``rummy train``, ``train-basic`` and ``expert-iteration`` print it:
    hands won (with their 95% interval where the evaluation gives one), then points a hand
    with theirs; the intervals are over ``unit`` (``deal`` or ``hand``). ``draw_is_half``:
    the win rate counts a hand without a winner as half a win (Gin's evaluations) or as
    none (Basic Rummy's).

    Why not just the numbers: the win rate counts a drawn hand as half a win, so a run whose
    every hand was drawn would read "won 50.0%"; it says so instead, and names the share
    drawn otherwise. And a normal interval over results that are all the same (every deal
    won, every hand drawn) has width 0, which is no measure of the uncertainty: it says
    that rather than print "+- 0.0"."""
    drawn = res.get("draw_rate", 0.0)
    if drawn == 1.0:
        return f"all {hands} hands drawn ({res['points_per_hand']:+.2f} points a hand)"
    points = _with_interval(f"{res['points_per_hand']:+.2f}", res["points_ci95"], f"{res['points_ci95']:.2f}",
                            " points a hand", unit)
    half = res.get("win_ci95")
    won = _with_interval(f"{res['win_rate']:.1%}", half, None if half is None else f"{half:.1%}", f" of {hands} hands",
                         unit)
    if drawn:
        won += f" ({drawn:.1%} drawn, each counted as half a win)" if draw_is_half else f" ({drawn:.1%} drawn)"
    return f"won {won}, {points}"


def _with_interval(value: str, half: Optional[float], half_text: Optional[str], what: str, unit: str) -> str:
    """``value +- half what``, or ``value what`` with a note where the interval says nothing."""
    if half is None:
        return value + what
    if not math.isfinite(half):
        return f"{value}{what} (one {unit}: no interval)"
    if half == 0:
        return f"{value}{what} (no interval: every {unit} scored the same)"
    return f"{value} +- {half_text}{what}"


def _train_basic(args: argparse.Namespace) -> int:
    """The 0.2 command: a note on stderr, then ``rummy train --game basic`` with the same options."""
    import sys

    print("rummy train-basic is deprecated and goes in the next release: it runs rummy train --game basic "
          "(same --config, --resume and --set)", file=sys.stderr)
    overrides = _set_values(args.set)
    if not args.resume:
        overrides["game"] = "basic"
    return _run_training(args.config, args.resume, overrides)


def _distill(args: argparse.Namespace) -> int:
    _require_train_extra("torch")
    from tqdm import tqdm

    from rummy_env.train.distill import collect, fit, heldout, load, load_split

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
    data, test = load_split(args.labels, args.holdout) if args.holdout else (load(args.labels), None)
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
    if test is not None:
        was, now = heldout(student, test), heldout(args.out, test)
        print(f"held out ({int(now['labels']):,} labelled moves of the last {args.holdout:.0%} of the hands): the "
              f"teacher's move {now['agreement']:.1%} ({was['agreement']:.1%} before); where the teacher kept the "
              f"student's move {now['kept']:.1%} ({was['kept']:.1%}); where it played another "
              f"({int(now['changed_labels']):,}) {now['changed']:.1%} ({was['changed']:.1%})")
    print(f"policy: {args.out}  (use as agent ppo:{args.out})")
    return 0


def _expert_iteration(args: argparse.Namespace) -> int:
    _require_train_extra("torch", "tensorboard")
    from tqdm import tqdm

    from rummy_env.core.yaml_files import parse_value
    from rummy_env.train.expert_config import load_config
    from rummy_env.train.expert_iteration import CONFIG_FILE, run, training_hours

    overrides = {}
    for item in args.set or []:
        key, eq, value = item.partition("=")
        if not eq:
            raise ValueError(f"--set {item!r} must look like FIELD=VALUE, e.g. rounds=6")
        overrides[key.strip()] = parse_value(value, f"--set {key.strip()}")
    saved = Path(args.out) / CONFIG_FILE
    config = load_config(args.config if args.config or not saved.is_file() else saved, overrides)
    print(f"run folder: {args.out}  (tensorboard --logdir {Path(args.out) / 'tb'}); {config.rounds} rounds of "
          f"{config.hands_per_round} hands labelled by {config.teacher}")
    bar = tqdm(disable=args.quiet, unit="step")
    shown = {"what": ""}

    def progress(what: str, done: int, total: int) -> None:
        if what != shown["what"]:
            shown["what"] = what
            bar.reset(total=total)
            bar.set_description(what)
        bar.update(done - bar.n)

    def report(summary: dict) -> None:
        k = summary["round"]
        line = f"round {k}:"
        if "fit" in summary:
            line += (f" {summary['labels']:,} labels, the network played the teacher's move in "
                     f"{summary['student_agrees']:.1%}; after the fit {summary['fit']['agreement']:.1%} "
                     f"of the {summary['fit']['fit_labels']:,} it was fitted to;")
        for opponent, r in summary["eval"].items():
            line += f" vs {opponent}: {_evaluation_text(r, int(r['hands']), 'deal')};"
        bar.write(line.rstrip(";"))

    try:
        summaries = run(config, args.out, progress=progress, on_round=report)
    finally:
        bar.close()
    last = Path(args.out).resolve() / f"round-{config.rounds:03d}" / "policy.pt"
    print(f"done: {config.rounds} rounds, {training_hours(summaries):.2f} hours labelling and fitting; "
          f"policy: {last}  (use as agent ppo:{last})")
    return 0


def _knock_labels(args: argparse.Namespace) -> int:
    _require_train_extra("torch")
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
                             workers=args.workers, progress=lambda done, total: bar.update(done - bar.n),
                             opponent_knock=args.opponent_knock)
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
    _require_train_extra("tensorboard")  # its event-file reader
    from rummy_env.train.curves import plot_curves

    out = plot_curves(args.runs, args.out, tags=args.tag)
    print(f"written: {out}")
    return 0


TRAIN_EXTRA = 'pip install "rummy-env[train]" (in a checkout: pip install -e ".[train]")'


def _require_train_extra(*modules: str) -> None:
    """Fail with one line naming the ``train`` extra when one of its ``modules`` cannot be
    imported. Why here, before any work: the ImportError from deep inside says only "No
    module named 'torch'", and ``rummy train`` would have made its run folder by then."""
    import importlib

    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError as exc:
            raise ImportError(f"{name} cannot be imported ({exc}); this command needs the train extra "
                              f"(torch, tensorboard, numba): {TRAIN_EXTRA}") from None


def _add_config_fields(parser: argparse.ArgumentParser) -> None:
    """One ``--field-name VALUE`` option per training config field (values read as YAML),
    each described by the field's attribute docstring and showing its default, then each
    game's own where it differs (``rummy_env/train/data/*.yaml``): the same source as the
    config table of docs/training.md (``rummy_env.core.field_docs``)."""
    import dataclasses

    from rummy_env.core.field_docs import attribute_docs, yaml_text
    from rummy_env.core.yaml_files import read_mapping
    from rummy_env.train.config import GAME_DEFAULTS, PPOConfig

    group = parser.add_argument_group("config fields (each overrides the --config file's value; values read as YAML)")
    aliases = {"ray_address": ["--address"]}  # as ``rummy tournament``'s option
    docs = attribute_docs(PPOConfig)
    per_game = {}
    for source in sorted(GAME_DEFAULTS.iterdir(), key=lambda p: p.name):
        if source.name.endswith(".yaml"):
            with resources.as_file(source) as path:
                per_game[source.name[: -len(".yaml")]] = read_mapping(path, "training defaults", "fields")
    for f in dataclasses.fields(PPOConfig):
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[misc]
        games = "".join(f"; {game}: {yaml_text(values[f.name])}" for game, values in per_game.items()
                        if f.name in values and f.name != "game")
        text = f"{docs.get(f.name, '')} (default: {yaml_text(default)}{games})".replace("``", "").replace("%", "%%")
        group.add_argument("--" + f.name.replace("_", "-"), *aliases.get(f.name, []), dest=f.name, metavar="VALUE",
                           default=None, help=text)
