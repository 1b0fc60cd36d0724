"""Reports of a tournament: summary.json, report.md (also printed), agents.csv, pairs.csv
and the plots (crosstable.png, ratings.png).

One report for every game: its outcome columns come from the game's ``outcomes``; a
pairs tournament (a game for two players only) reports each pair's results with
intervals, a tables tournament each pair's share of pairwise placings.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import numpy as np

from rummy_env.core.game import get_game
from rummy_env.eval.config import DEFAULT_GAME


def markdown(summary: dict[str, Any]) -> str:
    cfg = summary["config"]
    game = get_game(cfg.get("game", DEFAULT_GAME))
    pairs = game.max_players == 2
    if pairs:
        seating = f"{cfg['deals']} duplicate deals per pair (seats swapped)"
    else:
        k = cfg["players_per_table"]
        seating = f"tables of {k}, {cfg['deals']} deals per table, each played in all {k} seat rotations"
    unit = "hand" if cfg["mode"] == "hands" else "match (final score)"
    outcomes = game.outcomes
    columns = [o.replace("_", " ") for o in outcomes]
    lines = [
        f"# {game.title} tournament: {', '.join(cfg['agents'])}",
        "",
        f"rules `{cfg['rules']}`, {cfg['mode']}, {seating}, seed {cfg['seed']}; {summary['games']} games played.",
        "",
        *_ratings(summary, "games won" if pairs else "pairwise finishing order", unit.split(" ")[0]),
        *_section(f"Agents (95% intervals over deals; points per {unit}, zero-sum per hand)",
                  ["agent", "games", "wins", "points", *columns, "hand length"]),
    ]
    for a in summary["agents"]:
        lines.append(f"| {a['agent']} | {a['games']} | {100 * a['win_share']:.1f}%{_pm(100 * a['win_share_ci95'], 1)} "
                     f"| {a['points']:+.2f}{_pm(a['points_ci95'], 2)} | {_rates(a, outcomes)} | {a['mean_hand_length']:.1f} |")
    lines += _own_counts(summary["agents"])
    if pairs:
        lines += _section(f"Pairs (A's results, 95% intervals over deals; points per {unit})",
                          ["A", "B", "games", "A wins", "A points", *columns, "hand length"])
        for p in summary["pairs"]:
            lines.append(
                f"| {p['a']} | {p['b']} | {p['games']} | {100 * p['a_win_share']:.1f}%{_pm(100 * p['a_win_share_ci95'], 1)} "
                f"| {p['a_points']:+.2f}{_pm(p['a_points_ci95'], 2)} | {_rates(p, outcomes)} | {p['mean_hand_length']:.1f} |"
            )
    else:
        lines += _section("Pairs (share of pairwise placings won by A)", ["A", "B", "placings", "A's share"])
        for p in summary["pairs"]:
            lines.append(f"| {p['a']} | {p['b']} | {p['placings']:.0f} | {100 * p['a_win_share']:.1f}% |")
    return "\n".join(lines) + "\n"


def _own_counts(rows: list[dict[str, Any]]) -> list[str]:
    """The section of the agents' own counts (``agent_stats``: an ``llm`` agent's requests,
    retries, fallbacks, ...) summed over their games, each also per decision where the
    agent counts its ``decisions``; no section when no agent keeps counts."""
    counted = [row for row in rows if row.get("agent_stats")]
    if not counted:
        return []
    keys = list(dict.fromkeys(k for row in counted for k in row["agent_stats"]))
    lines = _section("Agents' own counts (summed over their games; per decision asked, where counted)",
                     ["agent", *keys])
    for row in counted:
        own = row["agent_stats"]
        decisions = own.get("decisions") or 0
        cells = []
        for key in keys:
            value = own.get(key)
            if value is None:
                cells.append("")
                continue
            text = f"{value:g}" if isinstance(value, float) else str(value)
            if decisions and key != "decisions":
                text += f" ({value / decisions:.3g})"
            cells.append(text)
        lines.append(f"| {row['agent']} | {' | '.join(cells)} |")
    return lines


def _section(title: str, heads: list[str]) -> list[str]:
    """The lines that open a section of the report with a table: a blank line, the title,
    a blank line, the table's row of ``heads`` and its rule."""
    return ["", f"## {title}", "", f"| {' | '.join(heads)} |", "|" + "---|" * len(heads)]


def _pm(ci95: float, digits: int) -> str:
    """`` +- 1.2``, the 95% interval's half-width as the tables print it; with one deal there
    is none (a spread needs two deals), said in words rather than ``nan``."""
    return " (one deal: no interval)" if np.isnan(ci95) else f" +- {ci95:.{digits}f}"


def _rates(row: dict[str, Any], outcomes: tuple[str, ...]) -> str:
    return " | ".join(f"{100 * row['rates'].get(o, 0):.1f}%" for o in outcomes)


def _ratings(summary: dict[str, Any], wins_over: str, unit: str) -> list[str]:
    """The ratings section: both ratings per agent, ordered by points, and what each measures."""
    wins = {r["agent"]: r for r in summary["ratings"]}
    lines = [
        "## Ratings (95% bootstrap intervals over deals)",
        "",
        f"- **points**: points a {unit} above the field's average, fitted to every pair's mean margin "
        "(least squares, the Massey rating); what the game is scored in.",
        f"- **wins**: Bradley-Terry over {wins_over}, Elo scale (+400 = 10:1 odds), centred at 0; a {unit} without a "
        "winner counts half. It ignores the size of a win, so an agent that wins fewer but bigger hands can rank "
        "lower here than on points.",
        "",
        "| agent | points rating | 95% interval | wins rating | 95% interval |",
        "|---|---|---|---|---|",
    ]
    for p in summary["points_ratings"]:
        w = wins[p["agent"]]
        lines.append(f"| {p['agent']} | {p['rating']:+.2f} | {p['ci95_low']:+.2f} .. {p['ci95_high']:+.2f} "
                     f"| {w['rating']:+.0f} | {w['ci95_low']:+.0f} .. {w['ci95_high']:+.0f} |")
    return lines


def _csv(path: Path, rows: list[dict[str, Any]], keys: list[str], outcomes: tuple[str, ...]) -> None:
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        rated = bool(rows) and "rates" in rows[0]
        writer.writerow(keys + ([f"rate_{o}" for o in outcomes] + ["mean_hand_length"] if rated else []))
        for row in rows:
            extra = [row["rates"].get(o, 0) for o in outcomes] + [row["mean_hand_length"]] if rated else []
            writer.writerow([row[k] for k in keys] + extra)


def write_reports(out: Path, summary: dict[str, Any]) -> str:
    game = get_game(summary["config"].get("game", DEFAULT_GAME))
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    text = markdown(summary)
    (out / "report.md").write_text(text)
    _csv(out / "agents.csv", summary["agents"],
         ["agent", "games", "win_share", "win_share_ci95", "points", "points_ci95"], game.outcomes)
    pair_keys = (["a", "b", "games", "a_win_share", "a_win_share_ci95", "a_points", "a_points_ci95"]
                 if game.max_players == 2 else ["a", "b", "placings", "a_win_share"])
    _csv(out / "pairs.csv", summary["pairs"], pair_keys, game.outcomes)
    _plots(out, summary, pairwise=game.max_players > 2)
    return text


def _label(name: str, width: int = 28) -> str:
    """An agent name short enough for a plot axis (long ``ppo:PATH`` specs keep their end)."""
    return name if len(name) <= width else "..." + name[-(width - 3):]


def _plots(out: Path, summary: dict[str, Any], pairwise: bool) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = summary["config"]["agents"]
    n = len(names)
    grid = np.full((n, n), np.nan)
    for p in summary["pairs"]:
        i, j = names.index(p["a"]), names.index(p["b"])
        grid[i, j], grid[j, i] = p["a_win_share"], 1 - p["a_win_share"]
    fig, ax = plt.subplots(figsize=(1.2 * n + 2.5, 1.0 * n + 2))
    image = ax.imshow(grid, cmap="RdBu", vmin=0, vmax=1)
    ax.set_xticks(range(n), [_label(x) for x in names], rotation=30, ha="right")
    ax.set_yticks(range(n), [_label(x) for x in names])
    for i in range(n):
        for j in range(n):
            if not np.isnan(grid[i, j]):
                dark = abs(grid[i, j] - 0.5) > 0.3
                ax.text(j, i, f"{100 * grid[i, j]:.0f}%", ha="center", va="center", color="white" if dark else "black")
    ax.set_title(f"share of {'pairwise placings' if pairwise else 'games'} won by the row agent")
    fig.colorbar(image, ax=ax)
    fig.tight_layout()
    fig.savefig(out / "crosstable.png", dpi=120)
    plt.close(fig)

    fig = ratings_figure(summary)
    fig.savefig(out / "ratings.png", dpi=120)
    plt.close(fig)


def ratings_figure(summary: dict[str, Any]) -> Any:
    """ratings.png: both ratings of every agent with their 95% intervals, side by side,
    agents ordered by points. The axis labels say what each rating is in, in the report's
    own words (points a hand, or a match in match mode), on two lines so the two labels
    never run into each other."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    unit = "hand" if summary["config"]["mode"] == "hands" else "match"
    order = [r["agent"] for r in summary["points_ratings"]]
    n = len(order)
    fig, axes = plt.subplots(1, 2, figsize=(10, 0.5 * n + 2), sharey=True)
    y = np.arange(n)[::-1]
    labels = {"points_ratings": f"points rating, 95% interval\n(points a {unit} above the field's average)",
              "ratings": "wins rating, 95% interval\n(Bradley-Terry, Elo scale: +400 = 10:1 odds)"}
    for ax, (key, label) in zip(axes, labels.items()):
        rows = {r["agent"]: r for r in summary[key]}
        values = np.array([rows[a]["rating"] for a in order])
        low = values - np.array([rows[a]["ci95_low"] for a in order])
        high = np.array([rows[a]["ci95_high"] for a in order]) - values
        ax.errorbar(values, y, xerr=[low, high], fmt="o", capsize=4)
        ax.set_xlabel(label)
        ax.axvline(0, color="grey", lw=0.5)
    axes[0].set_yticks(y, [_label(a) for a in order])
    fig.tight_layout()
    return fig
