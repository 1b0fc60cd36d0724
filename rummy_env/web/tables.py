"""People's tables: one game with people in two or more seats and agents in the others,
played live (``rummy_env.web.lobby`` holds them and serves their requests).

Why each person seat has two secrets: an *invitation* (``invite``), the link the table's
creator sends to someone, spent when that person joins; and the *seat token* the join
answers, kept by that person's browser, which is then the seat's only key (to see its
cards, to move, to leave and come back, to reconnect after a reload). So the creator, who
saw every invitation, cannot act for a seat once its person has joined, and a token
acts for its own seat only. Both are 192 random bits (``secrets.token_urlsafe``).

A ``PeopleTable`` is an ``AgentTable`` with an agent behind every seat: the agents the
creator seated, and in each person seat the *stand-in* that plays it while its person
is away: after they leave (at once), or after their last page closed and ``takeover``
seconds passed without one. The person takes the seat back (``back``, or by opening the
table's page again after a lost connection) and plays on from the position the stand-in
left. A person who is there but does not move is played for too: each move has
``turn_limit`` seconds (from the move before it; 0: no limit), after which the stand-in
plays that one move; after ``TIMEOUTS_AWAY`` such moves in a row the seat counts as left
(the stand-in plays on until the person takes it back), so no table waits on an idle
page either. The game starts once every person has joined and is ready; then the server plays
the agents' moves at the table's ``pace`` whether or not any page is open, so no game
waits on a closed page and none is lost.

What each seat is sent (``message``): the table's public state (who sits where, who is
ready or away) and, once it has started, the table as that seat sees it
(``rummy_env.web.views.table_view``); a spectator (no token) sees what every seat sees.
Every finished hand is written to the records (``rummy_env.web.store``) as it ends.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from typing import Any, Callable, Optional, Sequence

from rummy_env import agents
from rummy_env.agents.base import Agent
from rummy_env.core.game import Game
from rummy_env.eval.games import hand_record
from rummy_env.web.checks import DEALS, game_settings, integer, number
from rummy_env.web.choices import AgentChoices
from rummy_env.web.events import Channel
from rummy_env.web.sessions import AgentTable, WebError
from rummy_env.web.store import Store
from rummy_env.web.views import table_view

PERSON = "person"  # a seat for a person, in a new table's "seats"
MAX_NAME = 24  # characters in a person's name
TAKEOVER = 60.0  # seconds, by default, from a person's last page closing to their stand-in playing
PACE = 1.0  # seconds, by default, between an agent's move and the move before it
HAND_PAUSE = 5  # paces after a hand ends before an agent deals on (people read the showdown)
TURN_LIMIT = 120.0  # seconds, by default, a person has for a move before their stand-in plays it (0: no limit)
TIMEOUTS_AWAY = 2  # moves in a row played on a time-out after which the seat counts as left
FIELDS = {"game", "players", "rules", "episode", "seats", "seat", "name", "takeover", "pace", "stand_in", "turn_limit"}


def person_name(value: Any) -> str:
    """A person's name: 1 to ``MAX_NAME`` printable characters (spaces at the ends dropped)."""
    if value is None:
        return "guest"
    if not isinstance(value, str) or not value.strip() or len(value.strip()) > MAX_NAME or not value.isprintable():
        raise WebError(400, f"name must be 1 to {MAX_NAME} printable characters, got {str(value)[:40]!r}")
    return value.strip()


@dataclass
class Seat:
    """One seat: an agent's (``agent`` plays it) or a person's (``agent`` stands in for them
    while they are away)."""

    person: bool
    agent: str
    invite: Optional[str] = None  # a person seat's invitation, until someone joins with it
    token: Optional[str] = None  # the seat token of the person who joined
    name: Optional[str] = None
    account: Optional[str] = None  # with accounts on, the account that took the seat (its token acts only with it)
    ready: bool = False
    left: bool = False  # the person left the table (their stand-in plays at once)
    pages: int = 0  # the person's live streams (open pages)
    away_since: Optional[float] = None  # when their last page closed
    timeouts: int = 0  # moves in a row the stand-in played because the person let their time run out

    @property
    def joined(self) -> bool:
        return self.token is not None


class PeopleTable(AgentTable):
    """A table for people and agents (module docstring). ``clock`` is monotonic seconds."""

    def __init__(self, game: Game, rules: Any, preset: str, seats: list[Seat], players: Sequence[Agent],
                 episode: str, seed: int, takeover: float = TAKEOVER, pace: float = PACE,
                 clock: Callable[[], float] = time.monotonic, turn_limit: float = TURN_LIMIT) -> None:
        names = [s.agent if not s.person else f"seat {k} (free)" for k, s in enumerate(seats)]
        super().__init__(game, rules, preset, names, players, episode, seed)
        self.kind = "people"
        self.seats = seats
        self.episode = episode
        self.takeover = takeover
        self.pace = pace
        self.turn_limit = turn_limit
        self.clock = clock
        self.started = False
        self.channel = Channel()
        self.key = ""  # its id, once the lobby holds it
        self.store: Optional[Store] = None
        self.moved_by: list[str] = []  # per move of ``moves``: "person" or "agent"
        self.last_move = clock()
        self.failure: Optional[str] = None  # why an agent's move failed (the table stops)
        self._mover = "agent"
        # a rematch: the settings it was made from (``new_people_table``), the new table once
        # someone asked for one, and per seat the invitation (then the token) of its seat there
        self.settings: dict[str, Any] = {}
        self.rematch: Optional[str] = None
        self.rematch_seats: dict[int, str] = {}

    # ------------------------------------------------------------------ who plays

    @property
    def dealt_secretly(self) -> bool:
        return True

    def stands_in(self, seat: int) -> bool:
        """Whether the stand-in plays the person seat ``seat`` now."""
        s = self.seats[seat]
        return s.person and (s.left or (s.away_since is not None and self.clock() - s.away_since >= self.takeover))

    def timed_out(self, seat: int) -> bool:
        """Whether the person to move in ``seat`` let the move's ``turn_limit`` run out."""
        return (self.turn_limit > 0 and self.seats[seat].person and not self.stands_in(seat)
                and self.clock() - self.last_move >= self.turn_limit)

    def agent_plays(self, seat: int) -> bool:
        return not self.seats[seat].person or self.stands_in(seat) or self.timed_out(seat)

    def agent_due_in(self) -> Optional[float]:
        """Seconds until the server should play the agent's move (0: now), or None while no
        agent is to move (a person is, the game has not started, or it is over)."""
        if not self.started or self.over or self.failure is not None:
            return None
        seat = self.state.current_player
        s = self.seats[seat]
        pause = self.pace * (HAND_PAUSE if self.moves and self.moves[-1][0] < len(self.finished) else 1)
        due = self.last_move + pause
        if s.person and not s.left:
            if s.away_since is None:  # the person is there: their stand-in plays only when their time is up
                if not self.turn_limit:
                    return None
                due = max(due, self.last_move + self.turn_limit)
            else:
                due = max(due, min(s.away_since + self.takeover,
                                   self.last_move + self.turn_limit if self.turn_limit else float("inf")))
        return max(0.0, due - self.clock())

    # ------------------------------------------------------------------ moves

    def play(self, action: int, seat: Optional[int] = None) -> None:
        if not self.started:
            raise WebError(409, "the game has not started: it starts when every person has joined and is ready")
        if seat is not None and self.stands_in(seat):
            raise WebError(409, f"your stand-in ({self.seats[seat].agent}) plays your seat while you are away: "
                                "take the seat back first (POST .../back)")
        self._mover = "person"
        super().play(action, seat)
        if seat is not None:
            self.seats[seat].timeouts = 0

    def advance(self) -> None:
        seat = self.state.current_player
        s = self.seats[seat]
        timed_out = self.timed_out(seat)
        self._mover = "agent"
        super().advance()
        if timed_out:
            s.timeouts += 1
            if s.timeouts >= TIMEOUTS_AWAY:
                s.left = True

    def _step(self, action: int) -> None:
        hands = len(self.finished)
        super()._step(action)
        self.moved_by.append(self._mover)
        self.last_move = self.clock()
        if self.store is not None and len(self.finished) > hands:
            moved_by = [by for (number, _, _), by in zip(self.moves, self.moved_by) if number == hands]
            self.store.hand_ended(self.key, hands + 1, self.finished[-1].result.rewards,
                                  hand_record(self.finished[-1], keep_moves=True), moved_by)
            if self.over:
                self.store.game_ended(self.key, self.score())

    # ------------------------------------------------------------------ people

    def seat_of(self, token: Any, account: Optional[str] = None) -> int:
        """The seat whose token ``token`` is, or a 403 (the same for any wrong token); a
        seat taken by an account acts only for a request logged in as that account."""
        if isinstance(token, str):
            for k, s in enumerate(self.seats):
                if s.token is not None and secrets.compare_digest(s.token.encode(), token.encode()):
                    if s.account is not None and s.account != account:
                        raise WebError(403, f"this seat was taken by the account {s.account!r}: log in as it to "
                                            "play it")
                    return k
        raise WebError(403, "this seat token is not one of this table's: a token acts only for its own seat at its "
                            "own table (open the table from the link you joined with, on the browser you joined on)")

    def join(self, invite: Any, name: Any, account: Optional[str] = None) -> tuple[int, str]:
        """The person seat whose invitation is ``invite``, taken by ``name`` (with accounts on,
        by ``account``, whose name it is): (seat, its token). The invitation is spent."""
        name = seat_name(name, account)
        if account is not None and any(s.account == account for s in self.seats):
            raise WebError(409, f"the account {account!r} has a seat at this table already: one seat an account")
        if isinstance(invite, str):
            for k, s in enumerate(self.seats):
                if s.invite is not None and secrets.compare_digest(s.invite.encode(), invite.encode()):
                    return k, self._seat_person(k, name, account)
        raise WebError(403, "this invitation is not one of this table's, or someone has joined with it already: "
                            "ask the table's creator for a seat's link")

    def _seat_person(self, seat: int, name: str, account: Optional[str] = None) -> str:
        s = self.seats[seat]
        s.invite, s.token, s.name, s.account = None, secrets.token_urlsafe(24), name, account
        self.names[seat] = name
        return s.token

    def set_ready(self, seat: int, ready: Any) -> bool:
        """Mark the person ready (or not) to start; True when that starts the game."""
        if not isinstance(ready, bool):
            raise WebError(400, f"ready must be true or false, got {ready!r}")
        if self.started:
            raise WebError(409, "the game has started already")
        self.seats[seat].ready = ready
        if all(s.joined and s.ready for s in self.seats if s.person):
            self.started = True
            self.last_move = self.clock()
            if self.store is not None:
                self.store.game_started(self.key, self.game.name, self.preset, self.episode, self.seat_records(),
                                        int(self.deal or 0))
            return True
        return False

    def leave(self, seat: int) -> None:
        """The person leaves: before the start, they are no longer ready; after it, their
        stand-in plays their seat at once until they come back."""
        self._check_going_on()
        if not self.started:
            self.seats[seat].ready = False
        else:
            self.seats[seat].left = True

    def back(self, seat: int) -> None:
        """The person takes their seat back from their stand-in."""
        self._check_going_on()
        s = self.seats[seat]
        s.left = False
        s.away_since = None
        s.timeouts = 0

    def page_opened(self, seat: Optional[int]) -> None:
        """A page of ``seat`` opened its stream: a person who lost their connection is back
        (one who left must say so: ``back``)."""
        if seat is not None:
            s = self.seats[seat]
            s.pages += 1
            s.away_since = None

    def page_closed(self, seat: Optional[int]) -> None:
        if seat is not None:
            s = self.seats[seat]
            s.pages -= 1
            if s.pages == 0:
                s.away_since = self.clock()

    # ------------------------------------------------------------------ what is sent

    def join_rematch(self, seat: int, new: "PeopleTable") -> str:
        """The token of ``seat``'s person at the rematch ``new``: their seat there taken now
        with the invitation kept for it, or the token it gave them before (asked again)."""
        kept = self.rematch_seats.get(seat)
        if kept is None:
            raise WebError(409, "your seat at the rematch is gone: ask its table's creator for a link")
        mine = new.seats[seat]
        if mine.token is not None and secrets.compare_digest(mine.token.encode(), kept.encode()):
            return kept
        s = self.seats[seat]
        _, token = new.join(kept, None if s.account else s.name, s.account)
        self.rematch_seats[seat] = token
        return token

    def seat_records(self) -> list[dict[str, Any]]:
        """Who sits where, as the records keep it."""
        return [({"person": s.name, "stand_in": s.agent} | ({"account": True} if s.account else {})) if s.person
                else {"agent": s.agent} for s in self.seats]

    def state_name(self) -> str:
        return "over" if self.over else "playing" if self.started else "waiting"

    def status(self, seat: Optional[int]) -> dict[str, Any]:
        """The table's public state, and whose seat the viewer's is (``you``)."""
        seats = [{"seat": k, "person": s.person, "name": s.name, "agent": s.agent, "joined": s.joined,
                  "ready": s.ready, "away": s.person and s.joined and (s.left or s.away_since is not None),
                  "left": s.left, "agent_plays": self.started and self.stands_in(k), "timeouts": s.timeouts}
                 for k, s in enumerate(self.seats)]
        return {"id": self.key, "state": self.state_name(), "you": seat, "game": self.game.name,
                "title": self.game.title, "rules": self.preset, "episode": self.episode, "players": self.num_players,
                "takeover": self.takeover, "pace": self.pace, "turn_limit": self.turn_limit, "seats": seats,
                "error": self.failure, "rematch": self.rematch}

    def message(self, seat: Optional[int]) -> dict[str, Any]:
        """What ``seat`` (None: a spectator) is sent: the table's state and, once the game has
        started, the table as that seat sees it."""
        table = None
        if self.started:
            table = table_view(self, [] if seat is None else [seat], you=seat)
        return {"status": self.status(seat), "table": table}

    def listing(self) -> dict[str, Any]:
        """The table in the lobby: its game, rules, seats taken and the agents seated."""
        status = self.status(None)
        return {key: status[key] for key in ("id", "state", "game", "title", "rules", "episode", "players", "seats")}


def seat_name(name: Any, account: Optional[str]) -> str:
    """The name a person sits under: their own (``person_name``), or with accounts on their
    account's (a different name given is refused)."""
    if account is None:
        return person_name(name)
    if name is not None and name != account:
        raise WebError(400, f"with accounts on, a seat's name is its account's ({account!r}); got name {str(name)[:40]!r}")
    return account


def new_people_table(data: dict[str, Any], choices: AgentChoices, playable: Sequence[Game],
                     account: Optional[str] = None) -> tuple[PeopleTable, int]:
    """A table from a checked request (``FIELDS``; ``rummy_env.web.lobby`` says what each
    is) and the seat of its creator, who has joined it (with accounts on, as ``account``).
    It is dealt from a secret seed."""
    seated = data.get("seats")
    if (not isinstance(seated, list) or not all(isinstance(v, str) and v.strip() for v in seated)):
        raise WebError(400, "seats must be a list with an entry per seat: 'person' or an agent spec such as 'hard', "
                            f"got {str(seated)[:80]!r}")
    game, n, preset, rules, episode = game_settings({"players": len(seated), **data}, playable)
    if len(seated) != n:
        raise WebError(400, f"seats: give one entry for each of the {n} players, got {len(seated)}")
    people = [k for k, v in enumerate(seated) if v.strip() == PERSON]
    if not people:
        raise WebError(400, "a people's table needs at least one seat for a person ('person' in seats); "
                            "to watch agents alone, start a game to watch")
    seat = integer(data, "seat", 0, n - 1, people[0])
    if seat not in people:
        raise WebError(400, f"seat {seat} is an agent's: your seat must be one of the people's, {people}")
    name = seat_name(data.get("name"), account)
    takeover = number(data, "takeover", 1, 3600, TAKEOVER)
    pace = number(data, "pace", 0, 10, PACE)
    turn_limit = number(data, "turn_limit", 0, 3600, TURN_LIMIT)
    stand_in = data.get("stand_in", agents.default_opponent(game.name))
    seed = secrets.randbelow(DEALS)
    made, seats = [], []
    for k, entry in enumerate(seated):
        person = k in people
        agent, shown = choices.make(stand_in if person else entry, game, seed + 1 + k)
        made.append(agent)
        seats.append(Seat(person, shown, invite=secrets.token_urlsafe(24) if person else None))
    table = PeopleTable(game, rules, preset, seats, made, episode, seed, takeover, pace, turn_limit=turn_limit)
    table._seat_person(seat, name, account)
    table.settings = {key: data[key] for key in FIELDS - {"seat", "name"} if key in data}
    return table, seat


def rematch_of(table: PeopleTable, seat: int, choices: AgentChoices, playable: Sequence[Game]) -> PeopleTable:
    """A new table with ``table``'s settings (game, rules, length, seats and agents, pace,
    times), dealt anew, its seat ``seat`` taken by that seat's person (under the same name
    and account); its other person seats wait for theirs (``rematch_seats`` keeps the
    invitations, each given to the holder of the old seat's token alone)."""
    if not table.over:
        raise WebError(409, "the game is not over: a rematch starts once it has ended")
    s = table.seats[seat]
    made, _ = new_people_table({**table.settings, "seat": seat, "name": None if s.account else s.name}, choices,
                               playable, s.account)
    return made
