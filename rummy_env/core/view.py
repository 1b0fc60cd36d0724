"""What a person's screen is drawn from: one JSON shape for every game (``Game.view``,
``Game.move_view``).

Why one shape: the web app (``rummy_env.web``) draws any game's table with one page and
never asks which game it is. Each game fills this shape in its own package (its hand
grouped into its melds, its table, its showdown) from one seat's *information set* alone,
so a view cannot show a card that seat may not see: the no-leak guarantee of the env's
observations carries over to the screen.

A view (``Game.view(info, rules)``) is a dict:

- ``hand``: ``{"groups": [Group], "note": str}``: the seat's cards, sorted and grouped
  into melds (labels ``set``, ``run``) and the rest (``deadwood``, ``others``); ``note``
  says what they are worth (Gin's deadwood, the points a hand would pay);
- ``players``: per seat ``{"seat", "cards": count, "known": [card], "note": str}``: what
  is public about each hand (cards known to be in it, whether it has melded);
- ``table``: the melds on the table, each a Group with ``owner`` (a seat, or None);
- ``discard_pile``: its cards, bottom to top; ``stock``: the number of cards in it;
- ``facts``: ``[[name, value]]``, the game's other public facts (turn, knock limit, ...);
- ``showdown``: None, or once a hand is over with its hands shown
  ``{"seats": [{"seat", "title", "groups": [Group], "note"}]}``: how each hand was laid
  out and scored (the game's ``explain`` says it in words).

A Group is ``{"label": str, "cards": [card]}`` (Gin's melds can carry ``added``: cards
another player laid off onto them). A card is text: ``7D``, ``JK`` (a joker) or ``JK:7D``
(a joker standing for 7D).

Once a hand is over and shown down, a seat's ``hand`` is laid out as its ``showdown``
entry (``hand_as_shown``): the table and the showdown never tell two counts.

A move (``Game.move_view(action, rules, info)``) is ``{"label", "target", "card", "group"}``:
``target`` says where a person makes it by clicking: ``"hand"`` (the ``card`` in the
hand; ``JK`` is any joker there, ``JK:7D`` too), ``"stock"``, ``"pile"``, or None for a
button (buttons are shown by ``group``). ``info``, the mover's information set (None
when unknown), lets a label say what the move leaves (Gin's knocks: the deadwood).

A match's score sheet (``Game.score_sheet(results, final, rules)``) is a dict:

- ``rows``: one per finished hand, ``{"hand": number (1-based), "winner": seat or None,
  "how": str (how it was won, in words), "points": per seat what the hand adds to the
  seat's total, "bonuses": [[name, points]] (the bonuses inside those points: Gin's gin,
  Big Gin and undercut bonuses, a rummy's double)}``;
- ``totals``: ``[{"label", "points": per seat}]``, the sums and, once the match is over,
  its own bonuses (Gin's game, line and shutout bonuses); the last is the final score;
- ``final``: whether the match is over.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Optional, Sequence

from rummy_env.core.cards import NUM_RANKS, card_str, mask_to_cards

Group = dict[str, Any]


def sorted_cards(cards: Iterable[int], aces_high: bool = False) -> list[int]:
    """Card ids (0..51) by suit then rank, the ace after the king when aces are high, so a
    run reads in order (Q K A)."""
    def key(c: int) -> tuple[int, int]:
        rank = c % NUM_RANKS
        return c // NUM_RANKS, (NUM_RANKS if aces_high and rank == 0 else rank)

    return sorted(cards, key=key)


def mask_texts(mask: int, aces_high: bool = False) -> list[str]:
    """The cards of a 52-bit mask as texts, in ``sorted_cards`` order."""
    return [card_str(c) for c in sorted_cards(mask_to_cards(mask), aces_high)]


def group(label: str, cards: list[str], **extra: Any) -> Group:
    """A Group of the view: a label and its cards (and any extra keys, such as ``owner``)."""
    return {"label": label, "cards": cards, **extra}


def player(seat: int, cards: int, known: Optional[list[str]] = None, note: str = "") -> dict[str, Any]:
    """One seat's public entry of ``players``."""
    return {"seat": seat, "cards": cards, "known": known or [], "note": note}


def move(label: str, target: Optional[str] = None, card: Optional[str] = None, group: str = "") -> dict[str, Any]:
    """A move of ``Game.move_view``: how a person is offered it."""
    return {"label": label, "target": target, "card": card, "group": group}


def seat_view(hand: list[Group], note: str, players: list[Any], table: list[Group], discard_pile: list[str],
              stock: int, facts: list[list[str]], showdown: Optional[dict[str, Any]]) -> dict[str, Any]:
    """A view (``Game.view``) from its parts, in the shape the module docstring describes."""
    return {"hand": {"groups": hand, "note": note}, "players": players, "table": table, "discard_pile": discard_pile,
            "stock": stock, "facts": facts, "showdown": showdown}


def hand_as_shown(showdown: Optional[dict[str, Any]], seat: int, groups: list[Group],
                  note: str) -> tuple[list[Group], str]:
    """A seat's hand (``groups``, ``note``) as the hand's ``showdown`` laid it out, once there
    is one: the count the table shows is then the one the hand was scored with (after
    lay-offs, or what a hand caught pays), not the hand's own best arrangement."""
    shown = None if showdown is None else next((s for s in showdown["seats"] if s["seat"] == seat), None)
    return (groups, note) if shown is None else (shown["groups"], shown["note"])


def went_out_showdown(result: Any, left_in_hand: Callable[[Any], list[str]]) -> Optional[dict[str, Any]]:
    """The ``showdown`` of a game where a player goes out and the others pay for what they
    hold (Basic Rummy, Rommé): every hand left, written by ``left_in_hand``, with what
    each pays; None before a player went out (or after a stalemate)."""
    if result is None or result.winner is None:
        return None
    seats = []
    for seat, (left, pays) in enumerate(zip(result.hands_left, result.penalties)):
        if seat == result.winner:
            seats.append({"seat": seat, "title": result.outcome.replace("_", " "), "groups": [],
                          "note": f"went out: scores {result.points}"})
        else:
            seats.append({"seat": seat, "title": "caught", "groups": [group("left in hand", left_in_hand(left))],
                          "note": f"pays {pays}"})
    return {"seats": seats}


def sheet_row(number: int, winner: Optional[int], how: str, points: Iterable[int],
              bonuses: Iterable[tuple[str, int]] = ()) -> dict[str, Any]:
    """One hand's row of a score sheet."""
    return {"hand": number, "winner": winner, "how": how, "points": [int(p) for p in points],
            "bonuses": [[name, int(value)] for name, value in bonuses if value]}


def total(label: str, points: Iterable[int]) -> dict[str, Any]:
    """One line of a score sheet's ``totals``."""
    return {"label": label, "points": [int(p) for p in points]}


def winner_points(result: Any, num_players: int) -> list[int]:
    """Per seat, what a hand adds to a total where only the winner scores (Gin, Basic Rummy)."""
    return [result.points if seat == result.winner else 0 for seat in range(num_players)]


def outcome_text(result: Any) -> str:
    """A hand's outcome in words, with the reason of a hand nobody won."""
    how = str(result.outcome).replace("_", " ")
    reason = getattr(result, "reason", "")
    return f"{how} ({reason.replace('_', ' ')})" if result.winner is None and reason else how


def score_sheet(results: Sequence[Any], final: Any, num_players: int) -> dict[str, Any]:
    """The plain score sheet of a game without its own (``Game.score_sheet``): each hand's
    winner and points, the sums, and the match's ``scores`` once it is over."""
    rows = [sheet_row(k + 1, r.winner, outcome_text(r), winner_points(r, num_players)) for k, r in enumerate(results)]
    sums = [sum(row["points"][s] for row in rows) for s in range(num_players)]
    totals = [total("total", sums if final is None else final.scores)]
    return {"rows": rows, "totals": totals, "final": final is not None}
