"""The games the server holds: tables being played, watched or replayed, kept in memory
under unguessable ids, with a cap and an idle expiry.

Why the server holds them: a game's full state (every hand, the stock) must never reach a
browser, so it lives here and each request gets only what its seat may see
(``rummy_env.web.views``). Why through the env: agents get exactly the inputs they get
everywhere else (``env.last()``'s observation and info, as ``rummy play`` and the
tournaments give them), so an agent plays here as it plays in a tournament.

A ``Table`` moves one move at a time: ``play(action)`` is the person's move (checked:
their turn, a legal action id), ``advance()`` the move of whoever else is to move (an
agent, or the next move of a record). The caller paces agents' moves (the page waits a
moment before asking, so people can follow them), and holds the table's lock around
each call: a table is changed by one request at a time.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from abc import ABC, abstractmethod
from typing import Any, Callable, Optional, Sequence

from rummy_env.agents.base import Agent
from rummy_env.core.game import Game, GameState
from rummy_env.eval.games import hand_record


class WebError(Exception):
    """A request that cannot be served, with its HTTP status and a message for people."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class Table(ABC):
    """One game on the server: its hands, who sits where, and the public log of moves.

    ``names`` are the seats' names for people ("you", an agent's spec); ``human`` is the
    seat a person plays (None when agents or a record play every seat); ``moves`` logs
    every move as (hand number, seat, action); ``finished`` holds the hands played out, in
    order (their final states: what the showdown showed)."""

    kind: str  # "play", "watch" or "replay"
    episode: str = "hand"  # "hand" or "match": a match's tables carry its score sheet

    def __init__(self, game: Game, rules: Any, preset: str, names: list[str], human: Optional[int]) -> None:
        self.game = game
        self.rules = rules
        self.preset = preset
        self.names = names
        self.human = human
        self.moves: list[tuple[int, int, int]] = []
        self.finished: list[GameState] = []
        self.lock = asyncio.Lock()
        self.deal: Optional[int] = None  # the seed it was dealt from (None: a record's decks)

    @property
    def num_players(self) -> int:
        return len(self.names)

    @property
    @abstractmethod
    def state(self) -> GameState:
        """The hand being played (the last one once the game is over)."""

    @property
    @abstractmethod
    def over(self) -> bool:
        """Whether the game (the hand, or the match) has ended."""

    @property
    def to_move(self) -> Optional[int]:
        """The seat to move, or None once the game is over."""
        return None if self.over else self.state.current_player

    def _log(self, seat: int, action: int, hand: GameState) -> None:
        self.moves.append((len(self.finished), seat, action))
        if hand.is_over:
            self.finished.append(hand)

    @property
    def dealt_secretly(self) -> bool:
        """Whether a person plays it, so its deal number stays secret until it is over (no
        other request may deal the same cards while it is played)."""
        return self.human is not None

    def agent_plays(self, seat: int) -> bool:
        """Whether the moves of ``seat`` are an agent's (or a record's), asked for with ``advance``."""
        return seat != self.human

    def play(self, action: int, seat: Optional[int] = None) -> None:
        """The move of the person in ``seat`` (the table's person by default): refused
        (nothing changed) unless the game goes on, it is their turn and ``action`` is legal."""
        seat = self.human if seat is None else seat
        if seat is None:
            raise WebError(409, "nobody plays in this game: agents play every seat (watch it, or start a game to play)")
        self._check_going_on()
        to_move = self.state.current_player
        if to_move != seat:
            raise WebError(409, f"it is not your turn: player_{to_move} ({self.names[to_move]}) is to move")
        if not self.state.is_legal(action):
            legal = ", ".join(f"{a} ({self.game.action_name(a, self.rules)})" for a in self.state.legal_actions())
            raise WebError(400, f"action {action} ({self.game.action_name(action, self.rules)}) is not legal now; "
                                f"legal: {legal}")
        self._step(action)

    def advance(self) -> None:
        """One move of the seat to move, which must not be the person's."""
        self._check_going_on()
        seat = self.state.current_player
        if not self.agent_plays(seat):
            raise WebError(409, "it is your turn: play a move (POST .../move); agents move only on their turns")
        self._step(self._next_action(seat))

    def _check_going_on(self) -> None:
        if self.over:
            raise WebError(409, "the game is over: no more moves (start a new game)")

    @abstractmethod
    def _next_action(self, seat: int) -> int:
        """The move of ``seat`` (not the person's) in the position now."""

    @abstractmethod
    def _step(self, action: int) -> None:
        """Play ``action`` (legal) and log it."""

    @abstractmethod
    def score(self) -> Optional[dict[str, Any]]:
        """The score to show, ``{"title", "points": per seat, "final": bool}``, or None."""


class AgentTable(Table):
    """A game played through the game's env: agents in their seats (and a person in
    ``human``'s, for a game to play), a hand or a match (``episode``)."""

    def __init__(self, game: Game, rules: Any, preset: str, names: list[str], players: Sequence[Optional[Agent]],
                 episode: str, seed: Optional[int]) -> None:
        human = next((s for s, p in enumerate(players) if p is None), None)
        super().__init__(game, rules, preset, names, human)
        self.kind = "watch" if human is None else "play"
        self.episode = episode
        self.players = list(players)
        self.settings: Optional[dict[str, Any]] = None  # the checked request it was made from (a rematch's)
        self.env = game.raw_env(num_players=len(players), rules=rules, episode=episode)
        self.env.reset(seed=seed)
        self.deal = seed

    @property
    def state(self) -> GameState:
        return self.env.game

    @property
    def over(self) -> bool:
        match = self.env.match
        return self.env.game.is_over and (match is None or match.is_over)

    def _next_action(self, seat: int) -> int:
        obs, _, _, _, info = self.env.last()
        agent = self.players[seat]
        assert agent is not None
        return int(agent.act(obs, info))

    def _step(self, action: int) -> None:
        hand, seat = self.env.game, self.env.game.current_player
        self.env.step(action)  # in a match, a hand that ends is followed by the next one at once
        self._log(seat, action, hand)

    def score(self) -> Optional[dict[str, Any]]:
        match = self.env.match
        if match is not None:
            if match.is_over:
                return {"title": "match over: final scores", "points": list(match.result().scores), "final": True}
            return {"title": f"match points ({self.game.match_goal(self.rules)})", "points": list(match.points),
                    "final": False}
        result = self.env.game.result
        return None if result is None else {"title": "points this hand", "points": list(result.rewards), "final": True}


    def hand_records(self) -> list[dict[str, Any]]:
        """The finished hands as records that replay them (deck, dealer, actions), once the
        game is over: before, a replay would show cards nobody may see yet."""
        if not self.over:
            raise WebError(409, "the game is not over: it can be replayed once it has ended")
        return [hand_record(hand, keep_moves=True) for hand in self.finished]


class ReplayTable(Table):
    """A recorded game (a tournament's ``results.jsonl`` line, or a game played here once it
    is over) played again move by move: each hand dealt from its recorded deck and dealer,
    then its recorded actions. ``seek`` goes to any move, back as well as forward."""

    kind = "replay"

    def __init__(self, game: Game, rules: Any, preset: str, names: list[str], hands: list[dict[str, Any]],
                 final: Optional[dict[str, Any]], episode: str = "hand") -> None:
        super().__init__(game, rules, preset, names, None)
        self.hands = hands
        self.final = final  # the record's outcome: {"title", "points"}
        self.episode = episode
        self.length = sum(len(hand["actions"]) for hand in hands)  # the moves of the whole record
        self._start()

    def _start(self) -> None:
        self.moves = []
        self.finished = []
        self.number = 0  # the hand being replayed
        self.played = 0  # its actions played
        self._state = self._deal(0)

    def seek(self, position: int) -> None:
        """Go to the position after the record's first ``position`` moves (0 .. ``length``):
        dealt again from the start and played forward, as the record was played."""
        if not 0 <= position <= self.length:
            raise WebError(400, f"move must be a position 0..{self.length} of this record, got {position}")
        self._start()
        for _ in range(position):
            self._step(self._next_action(self._state.current_player))

    def _deal(self, number: int) -> GameState:
        hand = self.hands[number]
        return self.game.deal(self.rules, self.num_players, deck=hand["deck"], dealer=hand["dealer"])

    @property
    def state(self) -> GameState:
        return self._state

    @property
    def over(self) -> bool:
        return self.number == len(self.hands) - 1 and self._state.is_over

    def _next_action(self, seat: int) -> int:
        return int(self.hands[self.number]["actions"][self.played])

    def _step(self, action: int) -> None:
        hand, seat = self._state, self._state.current_player
        hand.step(action)
        self.played += 1
        self._log(seat, action, hand)
        if hand.is_over and self.number + 1 < len(self.hands):
            self.number += 1
            self.played = 0
            self._state = self._deal(self.number)

    def score(self) -> Optional[dict[str, Any]]:
        if self.over and self.final is not None:
            return {**self.final, "final": True}
        if not self.finished:
            return None
        totals = [sum(h.result.rewards[s] for h in self.finished) for s in range(self.num_players)]
        return {"title": "hand rewards so far", "points": totals, "final": False}


class Sessions:
    """Tables by id: ids are unguessable (128 random bits), at most ``capacity`` tables are
    kept, at most ``per_client`` of them for one client (so one client cannot fill the
    server), and a table nobody has asked about for ``idle_seconds`` is dropped."""

    def __init__(self, capacity: int = 100, idle_seconds: float = 1800.0,
                 clock: Callable[[], float] = time.monotonic, per_client: Optional[int] = None) -> None:
        per_client = capacity if per_client is None else per_client
        if capacity < 1 or idle_seconds <= 0 or per_client < 1:
            raise ValueError(f"capacity and per_client must be >= 1 and idle_seconds > 0, got {capacity}, "
                             f"{per_client} and {idle_seconds}")
        self.capacity = capacity
        self.per_client = per_client
        self.idle_seconds = idle_seconds
        self.clock = clock
        self._tables: dict[str, tuple[Table, float]] = {}
        self._owners: dict[str, str] = {}  # table id -> the client that made it

    def __len__(self) -> int:
        return len(self._tables)

    def __contains__(self, key: object) -> bool:
        """Whether ``key`` is held and not idle too long (its idle time does not start again)."""
        entry = self._tables.get(key)  # type: ignore[call-overload]
        return entry is not None and entry[1] >= self.clock() - self.idle_seconds

    def tables(self) -> list[Table]:
        """The tables held, oldest first."""
        return [table for table, _ in self._tables.values()]

    def sweep(self) -> int:
        """Drop the tables idle too long; returns how many were dropped."""
        limit = self.clock() - self.idle_seconds
        stale = [key for key, (_, seen) in self._tables.items() if seen < limit]
        for key in stale:
            del self._tables[key]
            self._owners.pop(key, None)
        return len(stale)

    def check_room(self, client: str = "") -> None:
        """Refuse (503 for the server, 429 for ``client``) when no table can be added now:
        checked before a table is made, so a refused request costs no agent's loading."""
        self.sweep()
        minutes = self.idle_seconds / 60
        if len(self._tables) >= self.capacity:
            raise WebError(503, f"the server holds {self.capacity} games already (its limit): try again when one has "
                                f"been idle for {minutes:g} minutes, or end one (DELETE /api/games/ID)")
        if sum(owner == client for owner in self._owners.values()) >= self.per_client:
            raise WebError(429, f"you hold {self.per_client} games on this server already (its limit for one "
                                f"client): end one (DELETE /api/games/ID) or wait until one has been idle for "
                                f"{minutes:g} minutes")

    def add(self, table: Table, client: str = "") -> str:
        """Keep ``table``, made for ``client``, under a new id (``check_room`` refuses when full)."""
        self.check_room(client)
        key = secrets.token_urlsafe(16)
        self._tables[key] = (table, self.clock())
        self._owners[key] = client
        return key

    def get(self, key: str) -> Table:
        """The table ``key`` (its idle time starts again), or a 404 saying why it may be gone."""
        entry = self._tables.get(key)
        if entry is None or entry[1] < self.clock() - self.idle_seconds:
            self._tables.pop(key, None)
            self._owners.pop(key, None)
            raise WebError(404, f"no game {key!r}: it does not exist, or it was dropped after "
                                f"{self.idle_seconds / 60:g} idle minutes")
        self._tables[key] = (entry[0], self.clock())
        return entry[0]

    def remove(self, key: str) -> None:
        self.get(key)
        del self._tables[key]
        self._owners.pop(key, None)
