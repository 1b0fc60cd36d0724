"""Expert iteration: a search guided by the network labels the network's games, the network
learns the labels, and the next round's search is guided by the network it learned.

Why: ``rummy distill`` fits the network to a fixed teacher once; the teacher then stays
as strong as it was. In expert iteration (Anthony et al., 2017; AlphaZero's loop without
its tree) the teacher is a search over the network itself (``mcts:rollout=net,net={net}``:
its playouts play the network's moves on both seats, its candidates include the
network's best moves, and it keeps the network's move unless another is clearly better),
so as the network improves, so does the search that teaches it. The data are DAgger's
(``train.distill``): the positions the network reaches in its own games, each labelled
from the network's own observation (the teacher sees no more than the student).

A round ``k`` (``RUN_DIR/round-00k/``):

1. labels: the network of round ``k - 1`` plays ``hands_per_round`` hands against
   ``opponent`` (seeds ``seed + k * SEED_STRIDE`` on) and the teacher, over that network,
   labels each decision (``distill.collect``: one file per hand in ``labels/``);
2. fit: that network, warm-started, is fitted to the labels of this round and the
   ``fit_window - 1`` rounds before it (``distill.fit``) and saved as ``policy.pt``;
3. evaluation: ``policy.pt`` alone plays ``eval_hands`` hands of duplicate deals against
   each of ``eval_opponents`` (the same deals every round, seeds ``seed + EVAL_SEED`` on,
   never labelled), with 95% intervals over the deal pairs;
4. ``summary.json`` and the round's scalars in TensorBoard (``RUN_DIR/tb``).

Round 0 is the starting network (``init``), evaluated the same way. Every step can be
stopped and continued: label files are written whole, one per hand, and a rerun plays
only the hands missing; the fitted network is written whole and a round with one is not
fitted again; every evaluation deal pair is appended to ``eval-N.jsonl`` as it ends and a
rerun plays only the deals missing; a round with a ``summary.json`` is done. So a killed
run, continued, loses at most the hands and deals it was playing, and repeats none.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import time
from pathlib import Path
from typing import Any, Callable, Optional, Union

import numpy as np
import yaml

from rummy_env.core.yaml_files import read_mapping
from rummy_env.train.expert_config import SEED_STRIDE, ExpertIterationConfig, changed_fields, make_config
from rummy_env.train.label_files import run_jobs

EVAL_SEED = 1_000_000_000  # evaluation deals: seed + EVAL_SEED on, past any round's labelled hands
CONFIG_FILE = "config.yaml"
SUMMARY = "summary.json"
Progress = Callable[[str, int, int], None]  # (what is being done, done, total)


def round_dir(out: Union[str, Path], k: int) -> Path:
    return Path(out) / f"round-{k:03d}"


def policy_of(out: Union[str, Path], k: int) -> Path:
    """The network after round ``k`` (round 0: the starting network)."""
    return round_dir(out, k) / "policy.pt"


def _write_json(path: Path, data: Any) -> None:
    """Write ``data`` to ``path`` whole or not at all."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    os.replace(tmp, path)


def prepare(config: ExpertIterationConfig, out: Union[str, Path]) -> Path:
    """Make ``out`` the run folder of ``config``: a new one gets ``config.yaml`` and the
    starting network as ``round-000/policy.pt``; one that holds a run must hold the same
    settings (only ``rounds`` may grow and ``workers`` change), else the run is refused
    rather than mixed. Returns the folder as an absolute path (agent specs name files in it)."""
    from rummy_env import agents

    out = Path(out).resolve()
    if "," in str(out):
        raise ValueError(f"the run folder {str(out)!r} has a comma in its path; agent specs name files in it "
                         "and separate their options with commas: choose another --out")
    saved = out / CONFIG_FILE
    if saved.is_file():
        held = make_config(read_mapping(saved, "run config"))
        changed = changed_fields(held, config)
        if changed:
            raise ValueError(f"{str(out)!r} holds a run with other settings (fields {', '.join(changed)}); continue it "
                             "with its own config (rummy expert-iteration --out RUN_DIR, no --config) or use another --out")
    elif out.is_dir() and any(out.iterdir()):
        raise ValueError(f"{str(out)!r} is not empty and holds no {CONFIG_FILE}: not an expert iteration run; "
                         "use another --out")
    out.mkdir(parents=True, exist_ok=True)
    tmp = out / f".{CONFIG_FILE}.tmp"
    tmp.write_text(yaml.safe_dump(config.to_dict(), sort_keys=False))
    os.replace(tmp, saved)
    start = policy_of(out, 0)
    if not start.is_file():
        start.parent.mkdir(parents=True, exist_ok=True)
        copy = start.with_name(".policy.pt.tmp")
        shutil.copyfile(agents.make(config.init).path, copy)
        os.replace(copy, start)
    return out


def load_run_config(out: Union[str, Path]) -> ExpertIterationConfig:
    """The config a run folder was started with."""
    saved = Path(out) / CONFIG_FILE
    if not saved.is_file():
        raise FileNotFoundError(f"{str(saved)!r} not found: {str(out)!r} is not an expert iteration run folder "
                                "(start one with --config)")
    return make_config(read_mapping(saved, "run config"))


def deal_pair(job: tuple[str, str, str, int]) -> tuple[int, float, float]:
    """(seed, the network's share of the hands won, its mean points a hand) over one deal
    played twice, the network in each seat (seeded as ``benchmarks/bench_agents.py`` does)."""
    from rummy_env import agents
    from rummy_env.agents.arena import play_hand

    policy, opponent, rules, seed = job
    share = points = 0.0
    for seat in (0, 1):
        net, opp = agents.make(f"ppo:path={policy}", seed=seed), agents.make(opponent, seed=seed + 1)
        result = play_hand([net, opp] if seat == 0 else [opp, net], rules, seed=seed)
        share += 1.0 if result.winner == seat else 0.5 if result.winner is None else 0.0
        points += result.rewards[seat]
    return seed, share / 2, points / 2


def _read_pairs(path: Path, opponent: str) -> dict[int, tuple[float, float]]:
    """The deal pairs in an evaluation log; a line cut short by a crash is dropped (played again)."""
    done: dict[int, tuple[float, float]] = {}
    if not path.is_file():
        return done
    data = path.read_bytes()
    whole = data[: data.rfind(b"\n") + 1]
    if len(whole) < len(data):
        os.truncate(path, len(whole))
    for number, line in enumerate(whole.decode().splitlines(), 1):
        try:
            rec = json.loads(line)
            if rec["opponent"] != opponent:
                raise ValueError(f"it is against {rec['opponent']!r}, not {opponent!r}")
            done[int(rec["seed"])] = (float(rec["won"]), float(rec["points"]))
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}:{number} is not an evaluation line of this run ({exc}); delete the file "
                             "to evaluate again") from None
    return done


def _interval(values: np.ndarray) -> tuple[float, float]:
    """Mean and half-width of its 95% interval (normal approximation; 0 below two values)."""
    half = 1.96 * float(values.std(ddof=1)) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return float(values.mean()), half


def evaluate(policy: Union[str, Path], opponent: str, rules: str, hands: int, seed: int, log: Path, workers: int = 1,
             progress: Optional[Callable[[int, int], None]] = None) -> dict[str, float]:
    """The network in ``policy`` alone against ``opponent`` over ``hands`` hands of duplicate
    deals (seeds ``seed`` on, each dealt twice with the seats swapped); each deal pair is
    appended to ``log`` as it ends, and those already there are not played again. Returns
    the share of hands won and the points a hand, each with its 95% interval over the deal
    pairs (``win_ci95``, ``points_ci95``)."""
    deals = hands // 2
    done = _read_pairs(log, opponent)
    jobs = [(str(policy), opponent, rules, s) for s in range(seed, seed + deals) if s not in done]
    with open(log, "a") as fh:
        for s, won, points in run_jobs(deal_pair, jobs, workers):
            fh.write(json.dumps({"opponent": opponent, "seed": s, "won": won, "points": points}) + "\n")
            fh.flush()
            done[s] = (won, points)
            if progress is not None:
                progress(len(done), deals)
    rows = np.array([done[s] for s in range(seed, seed + deals)])
    won, won_ci = _interval(rows[:, 0])
    points, points_ci = _interval(rows[:, 1])
    return {"hands": float(2 * deals), "win_rate": won, "win_ci95": won_ci, "points_per_hand": points,
            "points_ci95": points_ci}


class _Clock:
    """Seconds spent on each step of a round, kept in ``seconds.json`` across sessions (a
    step cut short counts the time it ran): the issue's budget is hours of training."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / "seconds.json"
        self.spent: dict[str, float] = json.loads(self.path.read_text()) if self.path.is_file() else {}

    def add(self, step: str, seconds: float) -> None:
        self.spent[step] = self.spent.get(step, 0.0) + seconds
        _write_json(self.path, self.spent)


def _timed(clock: _Clock, step: str, work: Callable[[], Any]) -> Any:
    start = time.perf_counter()
    try:
        return work()
    finally:
        clock.add(step, time.perf_counter() - start)


def _eval_all(config: ExpertIterationConfig, out: Path, k: int, clock: _Clock,
              progress: Optional[Progress]) -> dict[str, dict[str, float]]:
    results = {}
    if config.eval_hands == 0:
        return results
    for i, opponent in enumerate(config.eval_opponents):
        step = f"round {k}: evaluating against {opponent}"
        tick = None if progress is None else (lambda done, total, step=step: progress(step, done, total))
        results[opponent] = _timed(clock, "eval", lambda: evaluate(
            policy_of(out, k), opponent, config.rules, config.eval_hands, config.seed + EVAL_SEED,
            round_dir(out, k) / f"eval-{i}.jsonl", config.workers, tick))
    return results


def _round(config: ExpertIterationConfig, out: Path, k: int, progress: Optional[Progress]) -> dict[str, Any]:
    """Round ``k`` (from wherever an earlier session left it); returns its summary."""
    from rummy_env.train.distill import collect, fit, load

    folder = round_dir(out, k)
    folder.mkdir(parents=True, exist_ok=True)
    clock = _Clock(folder)
    summary: dict[str, Any] = {"round": k}
    if k > 0:
        previous = policy_of(out, k - 1)
        labels = folder / "labels"
        step = f"round {k}: labelling"
        tick = None if progress is None else (lambda done, total: progress(step, done, total))
        _timed(clock, "labels", lambda: collect(
            f"ppo:path={previous}", config.teacher_for(previous), config.opponent, config.hands_per_round, labels,
            rules=config.rules, seed=config.seed + k * SEED_STRIDE, win_bonus=config.win_bonus,
            workers=config.workers, decisions=config.decisions, progress=tick))
        mine = load(labels)
        summary.update(hands=config.hands_per_round, labels=int(len(mine["act"])),
                       student_agrees=float(np.mean(mine["act"] == mine["student"])))
        fitted = folder / "fit.json"
        if not policy_of(out, k).is_file():
            if progress is not None:
                progress(f"round {k}: fitting", 0, 1)
            parts = [mine] + [load(round_dir(out, j) / "labels") for j in range(max(1, k - config.fit_window + 1), k)]
            data = {key: np.concatenate([p[key] for p in parts]) for key in mine}
            stats = _timed(clock, "fit", lambda: fit(previous, data, folder / "policy.tmp.pt", epochs=config.epochs,
                                                     lr=config.lr, batch_size=config.batch_size, seed=config.seed + k))
            stats["fit_labels"] = int(len(data["act"]))
            _write_json(fitted, stats)  # before the network: a network on disk means its fit.json is there
            os.replace(folder / "policy.tmp.pt", policy_of(out, k))
        summary["fit"] = json.loads(fitted.read_text())
    summary["eval"] = _eval_all(config, out, k, clock, progress)
    summary["seconds"] = dict(clock.spent)
    return summary


def _log(writer: Any, summary: dict[str, Any], training_hours: float) -> None:
    """The round's scalars at step ``round``."""
    k = summary["round"]
    if "fit" in summary:
        fit = summary["fit"]
        writer.add_scalar("expit/student_agrees_with_teacher", summary["student_agrees"], k)
        writer.add_scalar("expit/labels", summary["labels"], k)
        for key in ("agreement", "agreement_before", "policy_loss", "policy_loss_before", "value_loss"):
            writer.add_scalar(f"expit/fit_{key}", fit[key], k)
    for opponent, result in summary["eval"].items():
        for key in ("win_rate", "win_ci95", "points_per_hand", "points_ci95"):
            writer.add_scalar(f"eval/{opponent}/{key}", result[key], k)
    for step, seconds in summary["seconds"].items():
        writer.add_scalar(f"time/{step}_seconds", seconds, k)
    writer.add_scalar("time/training_hours", training_hours, k)


def training_hours(summaries: list[dict[str, Any]]) -> float:
    """Hours spent labelling and fitting over ``summaries`` (evaluation not counted)."""
    return sum(s["seconds"].get("labels", 0.0) + s["seconds"].get("fit", 0.0) for s in summaries) / 3600


def run(config: ExpertIterationConfig, out: Union[str, Path], progress: Optional[Progress] = None,
        on_round: Optional[Callable[[dict[str, Any]], None]] = None) -> list[dict[str, Any]]:
    """Run (or continue) expert iteration in folder ``out`` up to ``config.rounds``; returns
    the summaries of rounds 0 .. rounds. ``on_round(summary)`` after each round finished
    in this call."""
    from torch.utils.tensorboard import SummaryWriter

    out = prepare(config, out)
    summaries: list[dict[str, Any]] = []
    writer = SummaryWriter(str(out / "tb"))
    try:
        for k in range(config.rounds + 1):
            done = round_dir(out, k) / SUMMARY
            if done.is_file():
                summary = json.loads(done.read_text())
            else:
                summary = _round(config, out, k, progress)
                _write_json(done, summary)
                if on_round is not None:
                    on_round(summary)
            summaries.append(summary)
            logged = round_dir(out, k) / ".logged"
            if not logged.is_file():  # a round whose summary was written but not logged is logged now
                _log(writer, summary, training_hours(summaries))
                writer.flush()
                logged.touch()
    finally:
        writer.close()
    return summaries
