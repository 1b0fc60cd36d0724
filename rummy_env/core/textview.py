"""The text views of every game: one seat's information set as words (``encoding="text"``)
or as JSON (``encoding="json"``), for language models and the people who test them.

Why here, shared: the views must look alike in every game and must show exactly one
seat's information set, so the layout is written once, from the game interface alone
(``Game.view``, the table a person's screen is drawn from, which is built from the
information set; ``Game.move_view`` for the legal moves; ``Game.explain`` for a finished
hand; ``Game.sample_world`` for the legal moves of the seat to move, which depend on
nothing that seat cannot see). What differs between games (who discarded or passed what,
the moves since the seat last moved, a phase in words, extra match facts) comes from the
game's own ``Words`` (``rummy_env/<game>/textview.py``), which the game registers with its
encodings (``text_encodings``).

Four encodings per game: ``text`` and ``json``, and ``text_no_moves`` and ``json_no_moves``,
the same without the legal moves (for harnesses that test a model's grasp of the rules).
Both views are strings (``TextObservation``, a ``str``) in a ``gymnasium.spaces.Text``
space: Gymnasium and PettingZoo have no space for a free-form dict, a string passes their
checkers (``api_test``, ``check_env``) and is what a model is given; ``json.loads`` of the
JSON view is the dict ``TextEncoding.data`` gives. Each view carries ``VERSION``: a
change of what a view says or how it says it gets a new number.
"""

from __future__ import annotations

import json
import string
from typing import Any, Callable, Iterable, Optional, Sequence

import numpy as np
from gymnasium import spaces

VERSION = "rummy-env text view 1"
FORMATS = ("text", "json")
ASCII = frozenset(string.printable[:95]) | {"\n"}  # printable ASCII (a space included) and newlines
# what a view can hold beyond the legal moves, per card of the deck: a card text (at most
# ``JK:10D``-like 6 characters and a separator) in the hand or on the table, the pile, the
# lists of other hands, the moves since the seat last moved and a finished hand's showdown
# and explanation, several times over, in JSON with its quotes and keys
PER_CARD = 240
FIXED = 6000  # the headings, the facts and the JSON keys of one view
PER_MOVE = 64  # a legal move's line or JSON entry beside its label: its number, its id, the keys
LABEL_EXTRA = 24  # what a move's label says from the mover's information (Gin's deadwood after a knock)


class TextObservation(str):
    """A text view: a ``str`` that also has ``dtype``, the dtype of its ``spaces.Text``
    (PettingZoo's ``api_test`` compares an observation's dtype with its space's)."""

    __slots__ = ()
    dtype = np.dtype(str)


class Words:
    """What a game adds to the common layout; a game's ``textview`` module subclasses it.

    The defaults read the fields the information sets of this library's games share
    (``player``, ``current_player``, ``phase``, ``result``); a game whose information set
    differs overrides them."""

    phases: dict[str, str] = {}  # a phase's name -> what the player to move does in it

    def seat(self, info: Any) -> int:
        """The observing seat."""
        return int(info.player)

    def to_move(self, info: Any) -> Optional[int]:
        """The seat to move, None once the hand is over."""
        return None if info.result is not None else int(info.current_player)

    def phase(self, info: Any) -> str:
        return info.phase.name.lower()

    def result(self, info: Any) -> Optional[dict[str, Any]]:
        """The finished hand's ``HandResult.to_dict()``, or None while it goes on."""
        return None if info.result is None else info.result.to_dict()

    def seat_facts(self, info: Any, rules: Any) -> list[dict[str, Any]]:
        """Per seat, public facts beyond the screen's (``Game.view``): what it discarded,
        passed on, ...; a dict per seat, its values card lists (none: no such facts)."""
        return []

    def facts(self, info: Any, rules: Any) -> list[list[str]]:
        """Public facts beyond the screen's ``facts`` (a public stock's order, a duty of
        the player to move), ``[name, value]`` each."""
        return []

    def recent(self, info: Any, rules: Any) -> list[tuple[int, str]]:
        """The public moves since the observing seat last moved (all of them before its
        first), each ``(seat, move in the third person)``."""
        return []

    def score_facts(self, scores: Sequence[int], rules: Any) -> list[list[str]]:
        """Facts of the match beside each seat's points (Rommé: the hands played)."""
        return []

    def legal_actions(self, game: Any, info: Any, rules: Any) -> list[int]:
        """The legal actions of the seat to move, from its information set alone: those of
        a world sampled from it (the conformance suite checks that a sampled world's legal
        actions are the true ones)."""
        return game.sample_world(info, rules, np.random.default_rng(0)).legal_actions()


def since_last_move(history: Iterable[tuple[int, Any]], seat: int) -> list[tuple[int, Any]]:
    """The entries of a public history (``(seat, ...)`` tuples) after ``seat``'s last one."""
    entries = list(history)
    last = max((i for i, entry in enumerate(entries) if entry[0] == seat), default=-1)
    return entries[last + 1:]


def moves_since_last(history: Iterable[tuple[int, int]], seat: int, describe: Callable[[int], str]) -> list[tuple[int, str]]:
    """A public history of ``(seat, action)`` pairs after ``seat``'s last move, each action
    in words (``describe``: the game's ``describe_move``)."""
    return [(s, describe(action)) for s, action in since_last_move(history, seat)]


def view_data(game: Any, words: Words, info: Any, rules: Any, scores: Optional[Sequence[int]],
              moves: bool) -> dict[str, Any]:
    """The JSON view of ``info`` (docs/text-views.md lists its fields): the screen's table
    (``Game.view``) with the seat, whose turn, the phase, the match score, the moves since
    the seat last moved, a finished hand explained and, with ``moves``, the legal moves."""
    screen = game.view(info, rules)
    seat, to_move = words.seat(info), words.to_move(info)
    names = [f"player_{s}" for s in range(len(screen["players"]))]
    phase = words.phase(info)
    extras = words.seat_facts(info, rules) or [{} for _ in names]
    players = [dict(p, name=names[p["seat"]], **extra) for p, extra in zip(screen["players"], extras)]
    data: dict[str, Any] = {
        "version": VERSION, "game": game.name, "title": game.title, "env": game.env_name, "seat": seat,
        "num_players": len(players), "to_move": to_move, "phase": phase, "phase_help": words.phases.get(phase, ""),
        "score": None, "hand": screen["hand"], "players": players, "table": screen["table"],
        "discard_pile": screen["discard_pile"], "stock": screen["stock"],
        "facts": screen["facts"] + words.facts(info, rules),
        "recent": [{"seat": s, "move": move} for s, move in words.recent(info, rules)],
        "result": None, "showdown": screen["showdown"],
    }
    if scores is not None:
        data["score"] = {"points": [int(p) for p in scores[: len(players)]], "goal": game.match_goal(rules),
                         "facts": words.score_facts(scores, rules)}
    result = words.result(info)
    if result is not None:
        data["result"] = {"outcome": result["outcome"], "winner": result["winner"],
                          "explained": game.explain(result, [f"{n} (you)" if s == seat else n for s, n in enumerate(names)])}
    if moves:
        legal = words.legal_actions(game, info, rules) if to_move == seat else []
        data["legal_moves"] = [{"id": int(a), "move": game.move_view(a, rules, info)["label"]} for a in legal]
    return data


def _cards(cards: Sequence[str]) -> str:
    return " ".join(cards) if cards else "none"


def _groups(groups: Sequence[dict[str, Any]]) -> list[str]:
    """A hand's groups, one a line: ``run: 3H 4H 5H`` (``+ 6H`` laid off onto it)."""
    lines = []
    for g in groups:
        added = f" + {_cards(g['added'])}" if g.get("added") else ""
        lines.append(f"  {g['label']}: {_cards(g['cards'])}{added}")
    return lines or ["  (no cards)"]


def text_of(data: dict[str, Any]) -> str:
    """The text view: ``view_data``'s dict laid out in words, section by section."""
    seat, names = data["seat"], [p["name"] for p in data["players"]]
    you = names[seat]
    lines = [data["version"], f"{data['title']} ({data['env']}), {data['num_players']} players. You are {you}."]
    phase = data["phase"] + (f" ({data['phase_help']})" if data["phase_help"] else "")
    if data["to_move"] is None:
        lines.append("The hand is over.")
    else:
        who = "you" if data["to_move"] == seat else names[data["to_move"]]
        lines.append(f"To move: {who}. Phase: {phase}.")
    score = data["score"]
    if score is not None:
        points = ", ".join(f"{n} {p}" for n, p in zip(names, score["points"]))
        extra = "".join(f"; {name} {value}" for name, value in score["facts"])
        lines.append(f"Match points: {points} (match goal: {score['goal']}{extra}).")
    if data["result"] is not None:
        lines += ["", "Result:", *("  " + line for line in data["result"]["explained"].splitlines())]
    me = data["players"][seat]
    lines += ["", f"Your hand ({me['cards']} cards; {data['hand']['note']}):", *_groups(data["hand"]["groups"])]
    lines += ["", "Table:" if data["table"] else "Table: no melds"]
    for g in data["table"]:
        owner = "" if g.get("owner") is None else f" ({names[g['owner']]})"
        lines.append(f"  {g['label']}{owner}: {_cards(g['cards'])}")
    lines.append(f"Discard pile (bottom to top): {_cards(data['discard_pile'])}")
    lines.append(f"Stock: {data['stock']} cards")
    lines += ["", "Players:"]
    for p in data["players"]:
        facts = [f"{p['cards']} cards", f"known in hand: {_cards(p['known'])}"]
        facts += [f"{key.replace('_', ' ')}: {_cards(value)}" for key, value in p.items()
                  if key not in ("seat", "name", "cards", "known", "note")]
        if p["note"]:
            facts.append(p["note"])
        lines.append(f"  {p['name']}{' (you)' if p['seat'] == seat else ''}: {'; '.join(facts)}")
    lines.append("Facts: " + "; ".join(f"{name}: {value}" for name, value in data["facts"]))
    if data["showdown"] is not None:
        lines += ["", "Showdown:"]
        for s in data["showdown"]["seats"]:
            lines.append(f"  {names[s['seat']]} ({s['title']}, {s['note']}):")
            lines += ["  " + line for line in _groups(s["groups"])]
    lines += ["", "Since your last move:" if data["recent"] else "Since your last move: nothing"]
    lines += [f"  {names[r['seat']]} {r['move']}" for r in data["recent"]]
    if "legal_moves" in data:
        legal = data["legal_moves"]
        if legal:
            lines += ["", f"Legal moves ({len(legal)}; answer with the action id):"]
            lines += [f"  {k}. {m['move']} (action {m['id']})" for k, m in enumerate(legal, 1)]
        else:
            lines += ["", "Legal moves: none (it is not your turn)" if data["to_move"] is not None
                      else "Legal moves: none (the hand is over)"]
    return "\n".join(lines)


class TextEncoding:
    """A text view of a game as an observation encoding (``rummy_env.core.game.Encoding``):
    ``encode`` gives a ``TextObservation`` in the ``format`` (``text`` or ``json``), with
    the legal moves unless ``moves`` is False; ``space(rules)`` is its ``spaces.Text``.
    ``game`` is the game's registered name (looked up when first used, so a game's
    encoding module can build its views before the game is registered)."""

    def __init__(self, game: str, words: Words, format: str = "text", moves: bool = True) -> None:
        if format not in FORMATS:
            raise ValueError(f"format must be one of {FORMATS}, got {format!r}")
        self.game_name, self.words, self.format, self.moves = game, words, format, bool(moves)
        self.name = format + ("" if moves else "_no_moves")

    @property
    def game(self) -> Any:
        from rummy_env.core.game import get_game

        return get_game(self.game_name)

    def data(self, info: Any, rules: Any, scores: Optional[Sequence[int]] = None) -> dict[str, Any]:
        """The view as a dict (what the ``json`` view holds)."""
        return view_data(self.game, self.words, info, rules, scores, self.moves)

    def encode(self, info: Any, rules: Any, scores: Optional[Sequence[int]] = None) -> TextObservation:
        data = self.data(info, rules, scores)
        text = text_of(data) if self.format == "text" else json.dumps(data, ensure_ascii=False)
        return TextObservation(text)

    def shape(self, rules: Any = None) -> tuple[int, ...]:
        """Refused: a text view is a string, with no array shape (no vector engine writes it)."""
        raise ValueError(self._not_an_array())

    def high(self, rules: Any = None) -> np.ndarray:
        """Refused: a text view is a string, with no numeric bounds (its space: ``space``)."""
        raise ValueError(self._not_an_array())

    def _not_an_array(self) -> str:
        return (f"the {self.name!r} encoding is a string (rummy_env.core.textview), not an array: it has no shape "
                "or bounds, and vector engines, which write arrays, cannot write it")

    def max_length(self, rules: Any) -> int:
        """An upper bound of the view's length under ``rules`` at any table: ``FIXED``,
        ``PER_CARD`` per card of the deck and, with the moves, each action's longest line."""
        game = self.game
        rules = game.load_rules(rules)
        length = FIXED + PER_CARD * game.deck_size_of(rules)
        if self.moves:
            length += sum(PER_MOVE + LABEL_EXTRA + len(game.move_view(a, rules)["label"])
                          for a in range(game.num_actions))
        return length

    def space(self, rules: Any) -> spaces.Text:
        """The observation space: strings of printable ASCII, newlines and the letters of
        the game's title (Rommé's é), up to ``max_length``."""
        return spaces.Text(self.max_length(rules), min_length=1, charset="".join(sorted(ASCII | set(self.game.title))))

    def __repr__(self) -> str:
        return f"TextEncoding({self.game_name!r}, format={self.format!r}, moves={self.moves})"


def text_encodings(game: str, words: Words) -> dict[str, TextEncoding]:
    """The four text views a game registers with its encodings: ``text``, ``text_no_moves``,
    ``json`` and ``json_no_moves``."""
    views = (TextEncoding(game, words, fmt, moves) for fmt in FORMATS for moves in (True, False))
    return {view.name: view for view in views}


def array_encodings(encodings: dict[str, Any]) -> list[str]:
    """The names of ``encodings`` whose observations are arrays: all but the text views
    (for code that reads an observation's shape or bytes)."""
    return [name for name, encoding in encodings.items() if not isinstance(encoding, TextEncoding)]
