"""What the web app's tests share: an app with a small recorded tournament, and a person
playing through the HTTP API (the app's test client, or an HTTP client on a real server)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np


def small_tournament(folder: Path, agents: tuple[str, ...] = ("random", "heuristic"), deals: int = 2,
                     mode: str = "hands") -> Path:
    """A Gin Rummy tournament of a few deals recorded with its moves, written under ``folder``."""
    from rummy_env.eval.config import load_config
    from rummy_env.eval.tournament import run

    run(load_config(None, agents=list(agents), out=str(folder), deals=deals, seed=3, mode=mode), progress=False)
    return folder


def play_through(client: Any, table: dict[str, Any], game_id: str, rng: np.random.Generator,
                 on_table: Optional[Callable[[dict[str, Any]], None]] = None, limit: int = 3000) -> dict[str, Any]:
    """Play a game to its end through the API: the person's moves drawn at random among the
    moves offered, the agents' moves asked for with ``advance``; every answer must be a
    table (no error). ``on_table`` sees each table answered. Returns the last one."""
    for _ in range(limit):
        if on_table is not None:
            on_table(table)
        if table["over"]:
            return table
        if table["to_move"] == table["you"]:
            assert table["moves"], "the person is to move: moves must be offered"
            move = table["moves"][int(rng.integers(len(table["moves"])))]
            response = client.post(f"/api/games/{game_id}/move", json={"action": move["id"]})
        else:
            assert table["moves"] == [], "moves are offered only on the person's turn"
            response = client.post(f"/api/games/{game_id}/advance")
        assert response.status_code == 200, response.text
        table = response.json()
    raise AssertionError(f"the game did not end in {limit} requests")
