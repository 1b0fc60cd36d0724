"""The plots, checked on their figure objects: learning curves (``rummy curves``: a panel
per tag with data, y labels, markers on short curves, legends, the evaluation's interval)
and a tournament's ratings.png (labels that do not run into each other, in the report's
words)."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from rummy_env.eval.report import ratings_figure  # noqa: E402

# ---------------------------------------------------------------- learning curves


def write_run(folder, scalars):
    """A run folder whose TensorBoard events hold ``scalars``: tag -> [(step, value), ...]."""
    tensorboard = pytest.importorskip("torch.utils.tensorboard")
    writer = tensorboard.SummaryWriter(str(folder))
    for tag, points in scalars.items():
        for step, value in points:
            writer.add_scalar(tag, value, step)
    writer.close()
    return folder


def eval_run(folder, shift=0.0):
    """Two evaluations (with their intervals) and four updates' entropy, as a short run logs them."""
    return write_run(folder, {
        "eval/random/points_per_hand": [(512, 25.0 + shift), (1024, 29.0 + shift)],
        "eval/random/points_ci95": [(512, 10.0), (1024, 13.0)],
        "eval/simple/points_per_hand": [(512, -19.0 + shift), (1024, -33.0 + shift)],
        "eval/simple/points_ci95": [(512, 10.0), (1024, 14.0)],
        "eval/heuristic/win_rate": [(512, 0.1), (1024, 0.2)],
        "losses/entropy": [(256 * k, 1.5 - 0.01 * k + shift) for k in range(1, 5)],
    })


def test_every_panel_has_data_a_y_label_and_markers_on_short_curves(tmp_path):
    from rummy_env.train.curves import curves_figure

    fig = curves_figure([eval_run(tmp_path / "quick__0__x")])
    titles = [ax.get_title() for ax in fig.axes]
    assert titles == ["eval/simple/points_per_hand", "eval/random/points_per_hand", "eval/heuristic/win_rate",
                      "losses/entropy"]  # 4 panels on a 3-wide grid: no empty fifth and sixth
    assert all(ax.get_ylabel() for ax in fig.axes)
    assert fig.axes[0].get_ylabel() == "points a hand (bars: 95% interval)"
    assert all(ax.lines[0].get_marker() == "o" for ax in fig.axes)
    random = fig.axes[1]
    (bars,) = [c for c in random.collections if c.get_segments()]  # the evaluation's own interval
    assert [tuple(seg[:, 1]) for seg in bars.get_segments()] == [(15.0, 35.0), (16.0, 42.0)]
    assert fig._suptitle.get_text() == "quick" and all(ax.get_legend() is None for ax in fig.axes)
    plt.close(fig)


def test_several_runs_get_a_legend_on_every_panel_and_keep_their_colour(tmp_path):
    from rummy_env.train.curves import curves_figure

    runs = [eval_run(tmp_path / "exp__0__x"), eval_run(tmp_path / "exp__1__x", shift=2.0),
            write_run(tmp_path / "other__0__x", {"losses/entropy": [(256, 1.2), (512, 1.1)]})]
    fig = curves_figure(runs, tags=["eval/random/points_per_hand", "losses/entropy"])
    first, entropy = fig.axes
    assert [t.get_text() for t in first.get_legend().get_texts()] == ["exp (mean of 2 seeds; band: lowest to highest)"]
    assert [t.get_text() for t in entropy.get_legend().get_texts()] == [
        "exp (mean of 2 seeds; band: lowest to highest)", "other"]
    assert first.lines[0].get_color() == entropy.lines[0].get_color() != entropy.lines[1].get_color()
    assert list(first.lines[0].get_ydata()) == [26.0, 30.0]  # the mean of the seeds
    plt.close(fig)


def test_a_tag_with_nothing_to_draw_gets_no_panel(tmp_path):
    from rummy_env.train.curves import curves_figure

    runs = [write_run(tmp_path / "exp__0__x", {"a/early": [(1, 0.0), (2, 1.0)], "losses/entropy": [(1, 1.0), (2, 0.9)]}),
            write_run(tmp_path / "exp__1__x", {"a/early": [(5, 0.0), (6, 1.0)], "losses/entropy": [(1, 1.0), (2, 0.8)]})]
    fig = curves_figure(runs, tags=["a/early", "losses/entropy"])  # the seeds logged a/early at no common step
    assert [ax.get_title() for ax in fig.axes] == ["losses/entropy"]
    plt.close(fig)
    with pytest.raises(ValueError, match="share no steps of \\['a/early'\\]"):
        curves_figure(runs, tags=["a/early"])


# ---------------------------------------------------------------- ratings.png


def summary(mode):
    agents = ["heuristic", "simple", "ppo:runs/a_rather_long_run_name__0__20261206-001936/policy.pt", "random"]
    def rows(ratings, half):
        return [{"agent": a, "rating": r, "ci95_low": r - half, "ci95_high": r + half} for a, r in zip(agents, ratings)]

    return {"config": {"mode": mode, "agents": agents}, "points_ratings": rows([22.0, 20.0, -6.0, -36.0], 10.0),
            "ratings": rows([150.0, 220.0, -40.0, -330.0], 100.0)}


@pytest.mark.parametrize("mode, unit", [("hands", "hand"), ("matches", "match")])
def test_the_ratings_plot_labels_are_apart_and_say_a_hand(mode, unit):
    fig = ratings_figure(summary(mode))
    points, wins = fig.axes
    assert f"points a {unit} above" in points.get_xlabel() and "points a game" not in points.get_xlabel()
    assert "Bradley-Terry" in wins.get_xlabel()
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    left, right = (ax.xaxis.label.get_window_extent(renderer) for ax in (points, wins))
    assert right.x0 - left.x1 > 0.3 * fig.dpi  # a clear gap (0.3 inch) between the labels; they used to touch
    plt.close(fig)
