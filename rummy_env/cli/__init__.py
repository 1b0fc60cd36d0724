"""The ``rummy`` command, the top layer: it calls the games, agents, training and
tournaments, and nothing below imports it. ``main`` is the entry point."""

from rummy_env.cli.main import main

__all__ = ["main"]
