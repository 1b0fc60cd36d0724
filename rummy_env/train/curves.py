"""Learning curves from TensorBoard logs: ``rummy curves RUN_DIR... -o curves.png``.

Reads each run folder's event files with TensorBoard's own reader (so events purged on
resume are dropped exactly as TensorBoard drops them), groups runs that differ only by
seed (folders named ``NAME__SEED__TIME``), and plots, per tag, the mean over seeds with
a band from the lowest to the highest seed where there are several.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Optional, Sequence, Union

import numpy as np

DEFAULT_TAGS = (
    "eval/heuristic/points_per_hand",
    "eval/simple/points_per_hand",
    "eval/random/points_per_hand",
    "eval/heuristic/win_rate",
    "charts/episodic_return_vs_pool",
    "losses/entropy",
)


def read_scalars(run_dir: Union[str, Path]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Every scalar tag of a run: tag -> (steps, values), steps increasing."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    run_dir = Path(run_dir)
    if not run_dir.is_dir() or not any(run_dir.glob("events.out.tfevents.*")):
        raise FileNotFoundError(f"{str(run_dir)!r} holds no TensorBoard event files (is it a run folder?)")
    acc = EventAccumulator(str(run_dir), size_guidance={"scalars": 0})
    acc.Reload()
    out = {}
    for tag in acc.Tags()["scalars"]:
        events = acc.Scalars(tag)
        steps = np.array([e.step for e in events], dtype=np.int64)
        values = np.array([e.value for e in events], dtype=np.float64)
        order = np.argsort(steps, kind="stable")
        out[tag] = (steps[order], values[order])
    return out


def group_name(run_dir: Path) -> str:
    """Runs named ``NAME__SEED__TIME`` group by NAME; other folders stand alone."""
    parts = run_dir.name.split("__")
    return parts[0] if len(parts) == 3 else run_dir.name


def plot_curves(
    run_dirs: Sequence[Union[str, Path]], out: Union[str, Path], tags: Optional[Sequence[str]] = None,
) -> Path:
    """Plot ``tags`` (default ``DEFAULT_TAGS`` that exist) for the runs into ``out``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if not run_dirs:
        raise ValueError("give at least one run folder")
    groups: dict[str, list[dict]] = defaultdict(list)
    for d in run_dirs:
        groups[group_name(Path(d))].append(read_scalars(d))
    present = {t for runs in groups.values() for r in runs for t in r}
    if tags is None:
        tags = [t for t in DEFAULT_TAGS if t in present]
    else:
        missing = [t for t in tags if t not in present]
        if missing:
            raise ValueError(f"tag(s) {missing} are in none of the runs; tags found: {', '.join(sorted(present))}")
    if not tags:
        raise ValueError(f"none of the default tags are in the runs; choose with --tag from: {', '.join(sorted(present))}")
    cols = min(3, len(tags))
    rows = (len(tags) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(5 * cols, 3.4 * rows), squeeze=False)
    for ax, tag in zip(axes.ravel(), tags):
        for name, runs in sorted(groups.items()):
            series = [r[tag] for r in runs if tag in r]
            if not series:
                continue
            grid = np.unique(np.concatenate([s for s, _ in series]))
            grid = grid[(grid >= max(s[0] for s, _ in series)) & (grid <= min(s[-1] for s, _ in series))]
            ys = np.array([np.interp(grid, s, v) for s, v in series])
            label = f"{name} ({len(series)} seeds)" if len(series) > 1 else name
            ax.plot(grid, ys.mean(axis=0), label=label)
            if len(series) > 1:
                ax.fill_between(grid, ys.min(axis=0), ys.max(axis=0), alpha=0.2)
        ax.set_title(tag, fontsize=9)
        ax.set_xlabel("env steps")
        ax.grid(alpha=0.3)
    for ax in axes.ravel()[len(tags):]:
        ax.axis("off")
    axes.ravel()[0].legend(fontsize=8)
    fig.tight_layout()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
