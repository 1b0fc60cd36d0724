"""The ``rummy`` command: one entry point whose subcommands call into the library.

- ``rummy demo``: the README's main job: trains a PPO agent briefly (``configs/ppo_demo.yaml``),
  then a small tournament of it against ``random``, ``simple``, ``heuristic`` and the
  shipped ``ppo`` (``configs/tournament_demo.yaml``); writes TensorBoard logs, learning
  curves, the tournament's report and plots under ``runs/demo-TIME/``.
- ``rummy deadwood CARDS``: the exact solver on one hand (arrangement; for 11 cards the
  deadwood left by each discard).
- ``rummy rules [PRESET|FILE] [--game G]``: print rule options as YAML.
- ``rummy play``: play a hand or a match in the terminal against agents, any game.
- ``rummy tournament``: agents against each other over duplicate deals (``rummy_env.eval``).
- ``rummy replay FILE``: step through a recorded tournament game.
- ``rummy export FOLDER``: a tournament's recorded games as JSONL, one decision a line
  (``rummy_env.eval.export``).
- ``rummy train --game GAME --config FILE``: masked PPO with self-play for any game
  (``rummy_env.train``; needs torch); ``--resume RUN_DIR`` continues a run
  (``rummy train-basic``: its deprecated alias for ``--game basic``).
- ``rummy distill``: fit a ppo network to a search agent's moves in its own games.
- ``rummy knock-labels``: fine-tune a ppo network's knock decisions on both choices
  played out (``rummy_env.train.knock_labels``).
- ``rummy curves RUN_DIR... -o curves.png``: learning curves from TensorBoard logs.
- ``rummy serve``: a local web app to play and watch the agents and replay tournaments
  (``rummy_env.web``; needs the ``web`` extra).
- ``rummy convert-policy FILE``: rewrite a trusted policy file or checkpoint of an older
  format (pickled objects) as plain data, the only form rummy-env reads.

The commands live by what they drive: ``games`` (deadwood, rules, play), ``tournaments``
(tournament, replay, export), ``training`` (demo, train, train-basic, distill, knock-labels, curves), ``web`` (serve)
and ``policy_files`` (convert-policy).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from typing import Any, Optional, Sequence

from rummy_env.cli import games, policy_files, tournaments, training, web


def build_parser() -> argparse.ArgumentParser:
    """The ``rummy`` argument parser; each subcommand sets ``func`` (its handler)."""
    parser = argparse.ArgumentParser(prog="rummy", description="Rummy-family card games for RL research")
    sub = parser.add_subparsers(dest="command", required=True)
    training.register(sub)
    games.register(sub)
    tournaments.register(sub)
    web.register(sub)
    policy_files.register(sub)
    return parser


def _stop_cleanly_on_sigterm() -> Any:
    """Turn ``kill`` (SIGTERM) into the same stop as Ctrl-C, so a long job's ``finally``
    blocks run (the seconds a training round has spent, a progress bar, a half-written
    file's cleanup) before it ends, and it resumes from what it wrote. Worker processes
    forked from this one keep the default: the parent's pool stops them. Returns the
    handler it replaced (``None`` off the main thread, where signals cannot be set)."""
    parent = os.getpid()

    def stop(signum: int, frame: Any) -> None:
        if os.getpid() != parent:
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        raise KeyboardInterrupt

    try:
        return signal.signal(signal.SIGTERM, stop)
    except ValueError:
        return None


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    before = _stop_cleanly_on_sigterm()
    try:
        return args.func(args)
    except (ValueError, TypeError, OSError, ImportError) as exc:
        print(f"rummy {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"rummy {args.command}: stopped; the files written so far are kept", file=sys.stderr)
        return 130
    finally:
        if before is not None:
            signal.signal(signal.SIGTERM, before)
