"""Pictures of a table for ``render_mode="rgb_array"``: the text view drawn as an image.

Why an image of the text: Gymnasium's video recorder and human-rendering wrappers, and
Stable-Baselines3's ``make_vec_env`` (which asks for ``rgb_array`` by default), need
frames as arrays; the text view (``render_mode="ansi"``) already says everything a
viewer needs, so the frame draws exactly that text, red suits in red, in a monospace
font. matplotlib (a core dependency) is imported on the first frame only, so the env's
import stays light; a frame costs tens of milliseconds, nothing on the stepping path.
"""

from __future__ import annotations

import numpy as np

RED_SUITS = frozenset("♦♥")
FONT_SIZE = 13  # points, at DPI below
DPI = 100
_CHAR_W = 0.6 * FONT_SIZE / 72 * DPI  # pixels per character of DejaVu Sans Mono
_LINE_H = 1.45 * FONT_SIZE / 72 * DPI
_MARGIN = 12  # pixels
FRAME_COLUMNS = 128  # characters a frame holds across at full size
BACKGROUND = "#0b5d3b"  # card-table green
INK = "#ffffff"
RED_INK = "#ff7b7b"


def text_to_rgb(text: str, lines: int) -> np.ndarray:
    """``text`` drawn on a table-green frame: uint8 array (height, width, 3).

    Every frame drawn for ``lines`` has one size, ``lines`` lines of ``FRAME_COLUMNS``
    characters (video writers need frames of one size): a text with more lines, or wider
    lines, is drawn in a smaller font to fit, never cut. A game's ``frame_lines`` says how
    many lines its table needs at a number of players.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    if isinstance(lines, bool) or not isinstance(lines, int) or lines < 1:
        raise ValueError(f"lines must be a whole number >= 1, got {lines!r}")
    rows = text.splitlines() or [""]
    width = int(2 * _MARGIN + _CHAR_W * FRAME_COLUMNS) + 1
    height = int(2 * _MARGIN + _LINE_H * lines) + 1
    scale = min(1.0, lines / len(rows), FRAME_COLUMNS / max(len(row) for row in rows) if any(rows) else 1.0)
    char_w, line_h = _CHAR_W * scale, _LINE_H * scale
    fig = Figure(figsize=(width / DPI, height / DPI), dpi=DPI, facecolor=BACKGROUND)
    canvas = FigureCanvasAgg(fig)
    for row, line in enumerate(rows):
        y = height - _MARGIN - row * line_h
        col = 0
        for token in line.split(" "):
            if token:
                color = RED_INK if RED_SUITS & set(token) else INK
                fig.text((_MARGIN + col * char_w) / width, y / height, token, color=color, fontsize=FONT_SIZE * scale,
                         family="DejaVu Sans Mono", va="top", ha="left")
            col += len(token) + 1
    canvas.draw()
    frame = np.asarray(canvas.buffer_rgba())[:, :, :3]
    assert frame.shape[:2] == (height, width), "matplotlib drew a frame of another size"
    return frame.copy()
