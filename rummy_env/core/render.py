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
MIN_COLUMNS = 120
BACKGROUND = "#0b5d3b"  # card-table green
INK = "#ffffff"
RED_INK = "#ff7b7b"


def text_to_rgb(text: str) -> np.ndarray:
    """``text`` drawn on a table-green frame: uint8 array (height, width, 3).

    Frames are at least ``MIN_COLUMNS`` characters wide, so the frames of one game have
    one size (video writers need that) unless a line is longer.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    lines = text.splitlines() or [""]
    width = int(2 * _MARGIN + _CHAR_W * max(MIN_COLUMNS, *(len(line) for line in lines))) + 1
    height = int(2 * _MARGIN + _LINE_H * len(lines)) + 1
    fig = Figure(figsize=(width / DPI, height / DPI), dpi=DPI, facecolor=BACKGROUND)
    canvas = FigureCanvasAgg(fig)
    for row, line in enumerate(lines):
        y = height - _MARGIN - row * _LINE_H
        col = 0
        for token in line.split(" "):
            if token:
                color = RED_INK if RED_SUITS & set(token) else INK
                fig.text((_MARGIN + col * _CHAR_W) / width, y / height, token, color=color, fontsize=FONT_SIZE,
                         family="DejaVu Sans Mono", va="top", ha="left")
            col += len(token) + 1
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[:, :, :3].copy()
