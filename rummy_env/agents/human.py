"""A person at the terminal, for any game: ``TerminalPlayer`` shows what the player may
see and asks for a move, by its number in the list or by a letter. ``rummy play`` seats
one against agents.

The view is built from the information set only (the same input every agent gets): a
world consistent with it is sampled (``Game.sample_world``) and drawn from the player's
seat (``render(perspective=...)``), which shows exactly what that seat may see. A game
can draw a richer view with a subclass of its own (``register_human``; Gin
Rummy's ``HumanAgent`` groups the hand into melds); the moves are read the same way.

The letters are the game's (``Game.shortcuts``: a letter -> the start of the names of the
moves it stands for, then what is typed after it, e.g. ``"x": "discard CARD"``), and one
letter means the same kind of move in every game: ``d`` draws from the stock, ``t`` takes
the top discard, ``x 7d`` discards 7D, and a game adds its own (Basic Rummy's ``m qd qh
qs`` melds three queens, ``l 4h 2`` lays 4H off on slot 2). The cards and numbers after
the letter pick the move among the legal ones of that kind: a move is taken when it is
the only one they fit, so ``l 4h`` is enough where 4H fits one slot. Every card on the
screen, the hand and the moves alike, is written with its suit symbol
(``with_suit_symbols``); cards are typed with letters, as ``7d`` or ``10h``.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Callable, Mapping, Optional, Sequence

import numpy as np

from rummy_env.agents.base import Agent, game_input, legal_actions
from rummy_env.core.cards import card_str, parse_card, with_suit_symbols
from rummy_env.core.game import Game, get_game


class QuitGame(Exception):
    """The person asked to stop."""


class TerminalPlayer(Agent):
    name = "human"

    def __init__(self, game: Game, seed: Optional[int] = None, read: Callable[[str], str] = input,
                 write: Callable[[str], None] = print) -> None:
        super().__init__(seed)
        self.game = game.name
        self._game = game
        self.read, self.write = read, write

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        infoset, rules = game_input(self, observation, info)
        legal = legal_actions(observation).tolist()
        names = [self._game.action_name(a, rules) for a in legal]
        shortcuts = self._game.shortcuts
        moves = ", ".join(f"[{i}] {name}" for i, name in enumerate(names))
        self.show(f"{self.view(infoset, rules, legal)}\nmoves: {moves}\n{keys_text(names, shortcuts)}")
        while True:
            try:
                return choose(self.read("your move> "), legal, names, shortcuts)
            except ValueError as exc:
                self.show(f"  {exc}")

    def view(self, infoset: Any, rules: Any, legal: list[int]) -> str:
        """The table as this seat sees it, above the moves: the game's own drawing of a world
        consistent with the information set, from the player's seat."""
        world = self._game.sample_world(infoset, rules, self.rng)
        return "\n" + world.render(perspective=infoset.player)

    def show(self, text: str) -> None:
        """Write ``text`` to the person, every card with its suit symbol."""
        self.write(with_suit_symbols(text))


def keys_text(names: Sequence[str], shortcuts: Mapping[str, str]) -> str:
    """What may be typed now, e.g. ``'type a number or d (draw stock), t (take discard); q
    quits'``: the letters of ``shortcuts`` that stand for one of the legal moves ``names``."""
    keys = []
    for letter, pattern in shortcuts.items():
        prefix, after = _split(pattern)
        if any(_move_words(name, prefix) is not None for name in names):
            keys.append(f"{letter}{' ' + after if after else ''} ({prefix})")
    return f"type a number{' or ' + ', '.join(keys) if keys else ''}; q quits"


def choose(text: str, legal: Sequence[int], names: Sequence[str], shortcuts: Mapping[str, str]) -> int:
    """The legal action the person typed: a move's number in the list, or a letter of
    ``shortcuts`` with the cards or numbers that pick one of its moves (``names[i]`` is
    the name of ``legal[i]``). ``QuitGame`` for ``q``; a ValueError says what was wrong."""
    words = text.split()
    if not words:
        raise ValueError(f"nothing typed: {keys_text(names, shortcuts)}")
    first = words[0].lower()
    if first in ("q", "quit"):
        raise QuitGame
    if first.isascii() and first.isdigit():
        if len(words) > 1 or int(first) >= len(legal):
            raise ValueError(f"there is no move [{' '.join(words)}]: choose 0..{len(legal) - 1}")
        return legal[int(first)]
    if first not in shortcuts:
        raise ValueError(f"cannot read {text.strip()!r}: {keys_text(names, shortcuts)}")
    prefix, _ = _split(shortcuts[first])
    kind = [(action, _move_words(name, prefix)) for action, name in zip(legal, names)]
    kind = [(action, args) for action, args in kind if args is not None]
    if not kind:
        raise ValueError(f"{first} ({prefix}) is not allowed now; allowed: {', '.join(names)}")
    said = {word for _, args in kind for word in args}
    wanted = Counter(_typed(word, said) for word in words[1:])
    exact = [action for action, args in kind if Counter(args) == wanted]
    fits = exact or [action for action, args in kind if not wanted - Counter(args)]
    if len(fits) == 1:
        return fits[0]
    what = " ".join([prefix, *wanted.elements()])
    if not fits:
        raise ValueError(f"{what} is not allowed now; allowed: {', '.join(names[legal.index(a)] for a, _ in kind)}")
    raise ValueError(f"{what!r} fits {len(fits)} moves ({', '.join(names[legal.index(a)] for a in fits)}): "
                     "name more of one, or type its number")


def _split(pattern: str) -> tuple[str, str]:
    """A shortcut's pattern as (the start of its moves' names, what is typed after the
    letter): ``'lay off CARD SLOT'`` -> ``('lay off', 'CARD SLOT')``."""
    words = pattern.split()
    n = next((i for i, word in enumerate(words) if not word.islower()), len(words))
    return " ".join(words[:n]), " ".join(words[n:])


def _move_words(name: str, prefix: str) -> Optional[list[str]]:
    """The words that tell the moves of a kind apart (cards, numbers: not the small words
    between them) if the move ``name`` starts with ``prefix``, else None:
    ``('lay off 4H on slot 2', 'lay off')`` -> ``['4H', '2']``."""
    words, start = name.split(), prefix.split()
    if words[:len(start)] != start:
        return None
    return [word for word in words[len(start):] if not word.islower()]


def _typed(word: str, said: set[str]) -> str:
    """A word typed after a letter as the move names write it: a number as it is, a card
    in letters (``10h`` -> ``TH``), another word the moves name (Rommé's joker ``JK``) in
    capitals; else a ValueError says how a card is typed (in letters: the screen's symbols
    are not on the keyboard)."""
    if (word.isascii() and word.isdigit()) or word.upper() in said:
        return word.upper()
    try:
        return card_str(parse_card(word))
    except ValueError:
        raise ValueError(f"cannot read the card {word!r}: type its rank A23456789TJQK (or 10) then its suit "
                         "c, d, h or s, e.g. 7d or 10h") from None


# ----------------------------------------------------------------------------- the terminal player of each game

_HUMANS: dict[str, Callable[..., Agent]] = {}  # game name -> its terminal player


def register_human(game: str, factory: Callable[..., Agent]) -> None:
    """Make ``factory(read=..., write=...)`` the terminal player of ``game`` (``rummy play``)."""
    _HUMANS[get_game(game).name] = factory


def human_player(game: str, read: Callable[[str], str] = input, write: Callable[[str], None] = print) -> Agent:
    """A person at the terminal playing ``game``: the game's own player if it registered
    one, else ``TerminalPlayer`` (the game's text view, moves by number)."""
    played = get_game(game)
    factory = _HUMANS.get(played.name)
    return factory(read=read, write=write) if factory is not None else TerminalPlayer(played, read=read, write=write)
