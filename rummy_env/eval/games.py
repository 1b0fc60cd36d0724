"""The games of a tournament: which ones (the schedule) and playing one (a record).

Every game of the library is played the same way, through the game interface: the
agents sit in their seats, the game's env deals the same deck for every seating of a
deal (seeded by the tournament seed and the deal number), and the agents' own seeds
derive from the game's identity, so a game's outcome never depends on which worker
plays it or when. A record holds what is needed to replay the game exactly: per hand
the deck order, the dealer and every action, next to the outcome.

Two seatings, by the game's player count (the records differ as the 0.1 files did):

- a game for two players only is played in pairs, ``PairGame(i, j, deal, swap)``: agents
  ``i`` and ``j``, each deal twice, ``swap`` 1 putting agent ``j`` in seat 0. The record
  adds ``winner`` (a seat) and ``margin`` (seat 0's points: the hand's score, or the
  grand-total difference of a match).
- other games are played at tables, ``TableGame(table, deal, rotation)``: each deal once
  per seat rotation (rotation ``r`` puts table member ``(s + r) % k`` in seat ``s``), so
  every agent plays every seat of the same deal. The record adds each seat's ``points``
  and the finishing ``order`` (groups of seats, best first; ties share a group).
"""

from __future__ import annotations

from typing import Any, NamedTuple, Union

import numpy as np

from rummy_env import agents
from rummy_env.agents.arena import decisions
from rummy_env.core.game import GameState, get_game
from rummy_env.eval.config import DEFAULT_GAME


class PairGame(NamedTuple):
    """A game of a pair: agents ``i`` and ``j`` on deal ``deal``, seats swapped if ``swap``."""

    i: int
    j: int
    deal: int
    swap: int

    @property
    def key(self) -> str:
        return f"{self.i}-{self.j}-{self.deal}-{self.swap}"

    @property
    def members(self) -> tuple[int, ...]:
        return (self.i, self.j)

    @property
    def seats(self) -> list[int]:
        """Agent index in each seat."""
        return [self.j, self.i] if self.swap else [self.i, self.j]

    def fields(self) -> dict[str, Any]:
        return {"key": self.key, "i": self.i, "j": self.j, "deal": self.deal, "swap": self.swap}


class TableGame(NamedTuple):
    """A game at a table of agents (indices), on deal ``deal``, seats rotated ``rotation``."""

    table: tuple[int, ...]
    deal: int
    rotation: int

    @property
    def key(self) -> str:
        return f"{'.'.join(map(str, self.table))}-{self.deal}-{self.rotation}"

    @property
    def members(self) -> tuple[int, ...]:
        return self.table

    @property
    def seats(self) -> list[int]:
        """Agent index in each seat."""
        k = len(self.table)
        return [self.table[(s + self.rotation) % k] for s in range(k)]

    def fields(self) -> dict[str, Any]:
        return {"key": self.key, "table": list(self.table), "deal": self.deal, "rotation": self.rotation,
                "seats": self.seats}


AnyGame = Union[PairGame, TableGame]


def table_schedule(tables: list[tuple[int, ...]], deals: int) -> list[TableGame]:
    """Every game at tables, deal by deal, each deal once per seat rotation."""
    return [TableGame(tuple(t), d, r) for d in range(deals) for t in tables for r in range(len(t))]


def schedule(pairs: list[tuple[int, int]], deals: int) -> list[PairGame]:
    """Every game of pairs, deal by deal so that partial results cover all pairs evenly."""
    return [PairGame(i, j, d, s) for d in range(deals) for (i, j) in pairs for s in (0, 1)]


def deal_seed(seed: int, deal: int) -> int:
    return int(np.random.SeedSequence([seed, deal]).generate_state(1)[0])


def deck_for(seed: int, deal: int, size: int) -> list[int]:
    """The deck order of deal ``deal``: the same for every seating of the deal."""
    return np.random.default_rng([seed, deal]).permutation(size).tolist()


def _order(scores: list[float]) -> list[list[int]]:
    """Seats grouped by score, best first (equal scores share a place)."""
    return [[s for s in range(len(scores)) if scores[s] == v] for v in sorted(set(scores), reverse=True)]


def play_game(spec: dict[str, Any], game: AnyGame) -> dict[str, Any]:
    """Play one game; ``spec`` holds the game's name, agents, rules, mode, seed and record."""
    rules_game = get_game(spec["game"])
    seats = game.seats
    k = len(seats)
    names = [spec["agents"][i] for i in seats]
    base = deal_seed(spec["seed"], game.deal)
    players = [agents.make(spec["agents"][i], seed=base + 1 + game.members.index(i)) for i in seats]
    match = spec["mode"] == "matches"
    env = rules_game.raw_env(num_players=k, rules=spec["rules"], episode="match" if match else "hand")
    options: dict[str, Any] = {"dealer": k - 1}
    if not match:
        options["deck"] = deck_for(spec["seed"], game.deal, rules_game.deck_size)
    env.reset(seed=base, options=options)
    hands: list[dict[str, Any]] = []
    for seat, obs, info in decisions(env):
        before = env.game  # a match deals the next hand inside step: keep the one being played
        env.step(players[seat].act(obs, info))
        if before is not None and before.is_over:
            hands.append(hand_record(before, spec["record"]))
    record: dict[str, Any] = {**game.fields(), "players": names, "hands": hands}
    if match:
        final = env.match.result()
        record["match"] = final.to_dict()
        winner, scores = final.winner, list(final.scores)
    else:
        result = env.game.result
        winner, scores = result.winner, list(result.rewards)
    record["winner"] = winner
    if isinstance(game, PairGame):
        record["margin"] = scores[0] - scores[1] if match else scores[0]
    else:
        record["points"] = scores
        record["order"] = _order(scores)
    return record


def hand_record(state: GameState, keep_moves: bool) -> dict[str, Any]:
    """A finished hand: its result and length, and (``keep_moves``) what replays it."""
    assert state.result is not None
    actions = state.actions
    out: dict[str, Any] = {"result": state.result.to_dict(), "length": len(actions)}
    if keep_moves:
        out.update(deck=list(state.deck or ()), dealer=state.dealer, actions=actions)
    return out


def replay_hand(hand: dict[str, Any], rules: Any, game: str = DEFAULT_GAME, num_players: int = 2) -> GameState:
    """Replay a recorded hand of ``game``; raises if the recorded outcome does not come out again."""
    if "actions" not in hand:
        raise ValueError("this game was stored without its moves (record: false); it cannot be replayed")
    played = get_game(game)
    state = played.deal(played.load_rules(rules), num_players, deck=hand["deck"], dealer=hand["dealer"])
    for action in hand["actions"]:
        state.step(action)
    if state.result is None or state.result.to_dict() != hand["result"]:
        raise ValueError("the replay does not reproduce the recorded outcome: the record or the rules differ")
    return state
