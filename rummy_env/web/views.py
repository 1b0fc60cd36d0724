"""What a request gets to see of a table: the JSON the page draws, for one seat or (watching
agents, replaying a record) for every seat.

Why it cannot leak: everything about cards comes from ``Game.view`` of the seats' own
information sets (the same input agents get), moves of other seats are told with
``Game.describe_move`` (as ``rummy play`` tells them: a card laid face down stays
hidden), and the rest is public (whose turn it is, the score). A person's legal moves are
sent only on their turn. tests/web/test_web_api.py checks it as the env's no-leak tests do: the
cards a seat cannot know dealt otherwise, what that seat is sent stays the same.
"""

from __future__ import annotations

from typing import Any, Optional

from rummy_env.web.sessions import Table

LOG_LENGTH = 40  # the last moves sent with a view


def seat_names(table: Table, perspective: Optional[int]) -> list[str]:
    """The seats' names as the viewer reads them: "you" for the person's own seat."""
    return ["you" if s == perspective and s == table.human else f"player_{s} ({name})"
            for s, name in enumerate(table.names)]


def table_view(table: Table, seats: list[int]) -> dict[str, Any]:
    """The table as seen from ``seats``: one seat (a player's own view, or one seat of a game
    being watched) or every seat (a spectator's view)."""
    game, rules, state = table.game, table.rules, table.state
    perspective = seats[0] if len(seats) == 1 else None  # None: a spectator sees every seat
    names = seat_names(table, perspective)
    to_move = table.to_move
    moves = []
    if to_move is not None and to_move == table.human == perspective:
        moves = [{"id": a, **game.move_view(a, rules)} for a in state.legal_actions()]
    log = []
    for number, seat, action in table.moves[-LOG_LENGTH:]:
        told = game.action_name(action, rules) if perspective in (None, seat) else game.describe_move(action, rules)
        log.append({"hand": number + 1, "seat": seat, "text": told})
    hands = []
    for number, hand in enumerate(table.finished):
        seen = hand.information_set(seats[0])
        hands.append({"number": number + 1, "rewards": list(hand.result.rewards),
                      "explanation": game.explain(hand.result.to_dict(), names),
                      "showdown": game.view(seen, rules)["showdown"]})
    return {
        "kind": table.kind, "game": game.name, "title": game.title, "rules": table.preset,
        "names": names, "agents": list(table.names), "you": table.human, "seats": seats,
        "to_move": to_move, "over": table.over, "hand_number": len(table.finished) + (0 if table.over else 1),
        "views": [{"seat": s, **game.view(state.information_set(s), rules)} for s in seats],
        "moves": moves, "log": log, "hands": hands, "score": table.score(),
        # a game played is dealt secretly: its deal number is told once it is over (to watch it again)
        "deal": table.deal if table.human is None or table.over else None,
    }
