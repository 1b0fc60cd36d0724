"""The web app's pages, each its own content in the one frame they share.

Why a frame: the pages have the same head (the stylesheet, the viewport), the same menu
and the same closing scripts; written once in ``pages/frame.html``, each page file holds
only what is its own (``pages/NAME.html``: the inside of ``<main>``). The pages are put
together once, when the app is made, and served as they are: no template runs per
request, and nothing a client sends ever reaches them.
"""

from __future__ import annotations

from pathlib import Path
from string import Template

FOLDER = Path(__file__).resolve().parent / "pages"

# page -> (its title after "rummy-env: ", its own scripts in /static, after common.js)
PAGES = {
    "index": ("play and watch", ("pickers", "home")),
    "table": ("table", ("felt", "table")),
    "records": ("records", ("records",)),
    "leaderboard": ("leaderboard", ("leaderboard",)),
    "lobby": ("tables for people", ("pickers", "lobby")),
    "people": ("a table for people", ("felt", "people")),
}


def render_pages() -> dict[str, str]:
    """Every page's whole HTML, by name."""
    frame = Template((FOLDER / "frame.html").read_text(encoding="utf-8"))
    return {name: frame.substitute(title=title, main=(FOLDER / f"{name}.html").read_text(encoding="utf-8"),
                                   scripts="\n".join(f'<script src="/static/{s}.js"></script>' for s in ("common", *own)))
            for name, (title, own) in PAGES.items()}
