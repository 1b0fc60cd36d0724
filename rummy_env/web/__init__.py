"""``rummy serve``: a local web app to play any game against the agents, sit at a table
with other people and agents, watch agents play each other, replay tournament games move
by move and read a tournament's leaderboard.

Modules: ``app`` (the Starlette app: pages and JSON API), ``checks`` (what a request must
be), ``guard`` (what every request must be before the app sees it), ``sessions`` (the
games the server holds), ``views`` (what a request may see of a game), ``choices`` (the
agents a client may seat), ``records`` (tournament folders), ``tables`` (tables for
people), ``lobby`` (the people's tables held, their agents' task, their API), ``events``
(live updates: server-sent events), ``limits`` (requests per client), ``store`` (the
people's tables' records, SQLite), ``accounts`` (logins for the people's tables),
``players`` (the players' leaderboard, one's own games), ``pages`` (the pages' frame),
``server`` (running it with uvicorn); the pages are plain HTML under ``pages/``, CSS and JavaScript under
``static/``. It needs the ``web`` extra (``pip install -e ".[web]"``);
``require()`` says so in one line when it is missing.
"""

from __future__ import annotations

import importlib.util

EXTRA = 'pip install -e ".[web]"'
MAX_THINK = 2.0  # seconds of thinking a move a page may ask of an agent, by default (rummy serve --max-think)
NEEDS = ("starlette", "uvicorn")


def require() -> None:
    """An ImportError naming the missing packages and the install command, if any is missing."""
    missing = [name for name in NEEDS if importlib.util.find_spec(name) is None]
    if missing:
        raise ImportError(f"the web app needs {', '.join(missing)} (the web extra): {EXTRA}")
