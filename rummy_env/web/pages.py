"""The web app's pages, each its own content in the one frame they share.

Why a frame: the pages have the same head (the stylesheet, the viewport), the same menu
and the same closing scripts; written once in ``pages/frame.html``, each page file holds
only what is its own (``pages/NAME.html``: the inside of ``<main>``). The pickers of a
game, its player count and its rules, which three forms share (``static/pickers.js``
fills them), are written once too (``pages/pickers.html``): a page marks where a form's
go with ``<!-- pickers: FORM -->``, their ids then starting with ``FORM-``; so is the account
box of the pages where people sit (``pages/account.html``, ``<!-- account -->``,
``static/account.js``). The pages are put
together once, when the app is made, and served as they are: no template runs per
request, and nothing a client sends ever reaches them.
"""

from __future__ import annotations

import re
from pathlib import Path
from string import Template

FOLDER = Path(__file__).resolve().parent / "pages"

# page -> (its title after "rummy-env: ", its own scripts in /static, after common.js)
PAGES = {
    "index": ("play and watch", ("pickers", "home")),
    "table": ("table", ("felt", "table")),
    "records": ("records", ("records",)),
    "leaderboard": ("leaderboard", ("leaderboard",)),
    "lobby": ("tables for people", ("pickers", "account", "lobby")),
    "people": ("a table for people", ("felt", "account", "people")),
    "players": ("players", ("players",)),
}


PICKERS = re.compile(r"^ *<!-- pickers: ([a-z]+) -->\n", re.M)
ACCOUNT = re.compile(r"^ *<!-- account -->\n", re.M)


def _main(name: str) -> str:
    """The inside of page ``name``'s ``<main>``, its forms' pickers written in."""
    pickers = Template((FOLDER / "pickers.html").read_text(encoding="utf-8"))
    account = (FOLDER / "account.html").read_text(encoding="utf-8")
    own = (FOLDER / f"{name}.html").read_text(encoding="utf-8")
    return ACCOUNT.sub(lambda m: account, PICKERS.sub(lambda m: pickers.substitute(form=m.group(1)), own))


def render_pages() -> dict[str, str]:
    """Every page's whole HTML, by name."""
    frame = Template((FOLDER / "frame.html").read_text(encoding="utf-8"))
    return {name: frame.substitute(title=title, main=_main(name),
                                   scripts="\n".join(f'<script src="/static/{s}.js"></script>' for s in ("common", *own)))
            for name, (title, own) in PAGES.items()}
