"""The web app's four pages, each its own content in the one frame they share.

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

# page -> (its title after "rummy-env: ", its own script in /static)
PAGES = {
    "index": ("play and watch", "home"),
    "table": ("table", "table"),
    "records": ("records", "records"),
    "leaderboard": ("leaderboard", "leaderboard"),
}


def render_pages() -> dict[str, str]:
    """Every page's whole HTML, by name."""
    frame = Template((FOLDER / "frame.html").read_text(encoding="utf-8"))
    return {name: frame.substitute(title=title, script=script, main=(FOLDER / f"{name}.html").read_text(encoding="utf-8"))
            for name, (title, script) in PAGES.items()}
