"""What a request gets to see of a table: the JSON the page draws, for one seat or (watching
agents, replaying a record) for every seat.

Why it cannot leak: everything about cards comes from ``Game.view`` of the seats' own
information sets (the same input agents get), moves of other seats are told with
``Game.describe_move`` (as ``rummy play`` tells them: a card laid face down stays
hidden), and the rest is public (whose turn it is, the score). A person's legal moves are
sent only on their turn. A spectator of a people's table (``seats`` empty) sees only what
every seat sees (``public_view``). tests/web/test_web_api.py and tests/web/test_web_tables.py
check it as the env's no-leak tests do: the cards a seat cannot know dealt otherwise, what
that seat is sent stays the same.
"""

from __future__ import annotations

from typing import Any, Optional

from rummy_env.web.sessions import Table

LOG_LENGTH = 40  # the last moves sent with a view


def seat_names(table: Table, perspective: Optional[int], you: Optional[int] = None) -> list[str]:
    """The seats' names as the viewer reads them: "you" for the person's own seat (``you``,
    by default the table's person)."""
    you = table.human if you is None else you
    return ["you" if s == perspective and s == you else f"player_{s} ({name})" for s, name in enumerate(table.names)]


def public_view(game: Any, state: Any, rules: Any) -> dict[str, Any]:
    """What every seat sees (``rummy_env.core.view``'s shape): no hand, each seat's public
    entry as another seat sees it (its card count, the cards known to be in it), and the
    table, the pile, the stock, the facts and the showdown, which are public."""
    first, second = (game.view(state.information_set(s), rules) for s in (0, 1))
    players = [second["players"][0]] + first["players"][1:]  # each seat as seat 0 sees it, seat 0 as seat 1 does
    return {**first, "hand": {"groups": [], "note": ""}, "players": players}


def table_view(table: Table, seats: list[int], you: Optional[int] = None) -> dict[str, Any]:
    """The table as seen from ``seats``: one seat (a player's own view, or one seat of a game
    being watched), every seat (a spectator of agents' games) or none (a spectator of a
    people's table: what every seat sees). ``you``: the person viewing, by default the
    table's person; their legal moves are sent on their turn."""
    game, rules, state = table.game, table.rules, table.state
    you = table.human if you is None else you
    public = not seats
    perspective = seats[0] if len(seats) == 1 else None  # None: a spectator
    names = seat_names(table, perspective, you)
    to_move = table.to_move
    moves = []
    if to_move is not None and to_move == you == perspective and not table.agent_plays(to_move):
        mine = state.information_set(to_move)  # a label may say what the move leaves of this hand
        moves = [{"id": a, **game.move_view(a, rules, mine)} for a in state.legal_actions()]
    log = []
    first = max(len(table.moves) - LOG_LENGTH, 0)
    for index, (number, seat, action) in enumerate(table.moves[first:], start=first + 1):
        plain = perspective == seat or (perspective is None and not public)
        told = game.action_name(action, rules) if plain else game.describe_move(action, rules)
        log.append({"index": index, "hand": number + 1, "seat": seat, "text": told})
    hands = []
    for number, hand in enumerate(table.finished):
        seen = hand.information_set(seats[0] if seats else 0)  # a showdown is public
        hands.append({"number": number + 1, "rewards": list(hand.result.rewards),
                      "explanation": game.explain(hand.result.to_dict(), names),
                      "showdown": game.view(seen, rules)["showdown"]})
    views = ([{"seat": None, **public_view(game, state, rules)}] if public else
             [{"seat": s, **game.view(state.information_set(s), rules)} for s in seats])
    return {
        "kind": table.kind, "game": game.name, "title": game.title, "rules": table.preset,
        "names": names, "agents": list(table.names), "you": you, "seats": seats,
        "to_move": to_move, "over": table.over, "hand_number": len(table.finished) + (0 if table.over else 1),
        "views": views, "moves": moves, "log": log, "hands": hands, "score": table.score(),
        "score_sheet": score_sheet(table),
        # a replay's place in its record: the moves played of its ``length`` (a page may go to any)
        "position": len(table.moves), "length": getattr(table, "length", None),
        # a game played is dealt secretly: its deal number is told once it is over (to watch it again)
        "deal": table.deal if not table.dealt_secretly or table.over else None,
    }


def score_sheet(table: Table) -> Optional[dict[str, Any]]:
    """A match's score sheet (``Game.score_sheet``: a row per hand with its bonuses, the
    totals and, once it is over, the match's own bonuses), or None outside a match. The
    books are the game's own match (``Game.new_match``) fed the finished hands, whose
    results are public once each hand is over."""
    if table.episode != "match" or not table.finished:
        return None
    match = table.game.new_match(table.rules, table.num_players)
    results = [hand.result for hand in table.finished]
    for result in results:
        match.record(result)
    return table.game.score_sheet(results, match.result() if match.is_over else None, table.rules)
