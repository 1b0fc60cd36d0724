"""Learning curves from TensorBoard logs: ``rummy curves RUN_DIR... -o curves.png``.

Reads each run folder's event files with TensorBoard's own reader (so events purged on
resume are dropped exactly as TensorBoard drops them), groups runs that differ only by
seed (folders named ``NAME__SEED__TIME``), and plots, per tag, the mean over seeds with
a band from the lowest to the highest seed where there are several.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any, Optional, Sequence, Union

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


# What the y axis of a tag measures, by the tag's last part (others: that part, in words).
Y_LABELS = {
    "points_per_hand": "points a hand",
    "win_rate": "share of hands won (draws half)",
    "draw_rate": "share of hands drawn",
    "learning_rate": "learning rate",
    "entropy": "entropy of the policy (nats)",
}
MARKERS_UP_TO = 30  # a curve of at most this many points marks each one (evaluations are few)


def y_label(tag: str) -> str:
    """The y axis label of a tag's panel."""
    last = tag.rsplit("/", 1)[-1]
    if last.startswith("episodic_return"):
        return "return a hand (training reward)"
    return Y_LABELS.get(last, last.replace("_", " "))


def curves_figure(run_dirs: Sequence[Union[str, Path]], tags: Optional[Sequence[str]] = None) -> Any:
    """The matplotlib figure of ``plot_curves``: one panel per tag that has points to draw
    (a tag whose runs share no steps, or that none of them logged, gets none), each with
    its y label; a marker on every point of a short curve (two evaluations read as two
    measurements, not as a trend); a legend on every panel where several run names are
    drawn (one name: it is the figure's title); for a single seed, the evaluation's own
    95% interval (the ``_ci95`` tag beside it) as error bars."""
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
    panels = {tag: lines for tag in tags if (lines := _lines(groups, tag))}
    if not panels:
        raise ValueError(f"the runs share no steps of {list(tags)}: nothing to draw")
    cols = min(3, len(panels))
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(5 * cols, 3.4 * rows), squeeze=False)
    for ax in axes.ravel()[len(panels):]:
        fig.delaxes(ax)  # no empty panel
    colours = {name: f"C{k}" for k, name in enumerate(sorted(groups))}  # a run name keeps its colour on every panel
    for ax, (tag, lines) in zip(axes.ravel(), panels.items()):
        for name, grid, ys, ci in lines:
            label = f"{name} (mean of {len(ys)} seeds; band: lowest to highest)" if len(ys) > 1 else name
            style = {"marker": "o" if len(grid) <= MARKERS_UP_TO else None, "markersize": 4, "color": colours[name]}
            if ci is not None:
                ax.errorbar(grid, ys[0], yerr=ci, capsize=3, label=label, **style)
            else:
                ax.plot(grid, ys.mean(axis=0), label=label, **style)
            if len(ys) > 1:
                ax.fill_between(grid, ys.min(axis=0), ys.max(axis=0), alpha=0.2, color=colours[name])
        ax.set_title(tag, fontsize=9)
        ax.set_xlabel("env steps")
        bars = any(ci is not None for *_, ci in lines)
        ax.set_ylabel(y_label(tag) + (" (bars: 95% interval)" if bars else ""), fontsize=9)
        ax.grid(alpha=0.3)
        if len(groups) > 1:
            ax.legend(fontsize=7)
    if len(groups) == 1:
        (name, runs), = groups.items()
        fig.suptitle(f"{name} (mean of {len(runs)} seeds; band: lowest to highest)" if len(runs) > 1 else name,
                     fontsize=10)
    fig.tight_layout()
    return fig


def _lines(groups: dict[str, list[dict]], tag: str) -> list[tuple[str, np.ndarray, np.ndarray, Optional[np.ndarray]]]:
    """A panel's curves: (run name, steps, values per seed on those steps, the 95% half-widths
    of a single seed's evaluation or None), over the steps all of a name's seeds logged."""
    out = []
    for name, runs in sorted(groups.items()):
        series = [r[tag] for r in runs if tag in r]
        if not series:
            continue
        grid = np.unique(np.concatenate([s for s, _ in series]))
        grid = grid[(grid >= max(s[0] for s, _ in series)) & (grid <= min(s[-1] for s, _ in series))]
        if not len(grid):
            continue
        ys = np.array([np.interp(grid, s, v) for s, v in series])
        ci = None
        if len(series) == 1 and tag.endswith("points_per_hand"):
            steps, half = next(r for r in runs if tag in r).get(tag[: -len("points_per_hand")] + "points_ci95",
                                                               (None, None))
            if steps is not None and np.array_equal(steps, grid) and np.isfinite(half).all():
                ci = half
        out.append((name, grid, ys, ci))
    return out


def plot_curves(
    run_dirs: Sequence[Union[str, Path]], out: Union[str, Path], tags: Optional[Sequence[str]] = None,
) -> Path:
    """Plot ``tags`` (default ``DEFAULT_TAGS`` that exist) for the runs into the image ``out``
    (``curves_figure``)."""
    import matplotlib.pyplot as plt

    fig = curves_figure(run_dirs, tags)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out
