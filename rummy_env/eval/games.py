"""The games of a tournament: which ones (the schedule) and playing one (a record).

A game is identified by ``(i, j, deal, swap)``: agents ``i`` and ``j`` of the config, the
deal number, and whether the seats are swapped (``swap`` 1 puts agent ``j`` in seat 0).
Every pair plays the same deals (seeded by the tournament seed and the deal number), and
the agents' own seeds derive from the game's identity, so a game's outcome never depends
on which worker plays it or when.

A record holds what is needed to replay the game exactly: per hand the deck order, the
dealer and every action, next to the outcome.

Basic Rummy tables (``game: rummy``) are ``TableGame``s: a table of agent indices, the
deal number and a seat rotation; each deal is played once per rotation (rotation ``r``
puts table member ``(s + r) % k`` in seat ``s``), so every agent plays every seat of
the same deal. A rummy record adds each seat's points and the finishing order.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from rummy_env import agents
from rummy_env.agents.arena import decisions
from rummy_env import gin_rummy_v0, rummy_v0
from rummy_env.core.cards import NUM_CARDS
from rummy_env.gin.game import GinRummyState
from rummy_env.gin.rules import load_rules
from rummy_env.basic.game import BasicRummyState


class Game(NamedTuple):
    i: int
    j: int
    deal: int
    swap: int

    @property
    def key(self) -> str:
        return f"{self.i}-{self.j}-{self.deal}-{self.swap}"


class TableGame(NamedTuple):
    table: tuple[int, ...]
    deal: int
    rotation: int

    @property
    def key(self) -> str:
        return f"{'.'.join(map(str, self.table))}-{self.deal}-{self.rotation}"

    @property
    def seats(self) -> list[int]:
        """Agent index in each seat."""
        k = len(self.table)
        return [self.table[(s + self.rotation) % k] for s in range(k)]


def table_schedule(tables: list[tuple[int, ...]], deals: int) -> list[TableGame]:
    """Every rummy game, deal by deal, each deal once per seat rotation."""
    return [TableGame(tuple(t), d, r) for d in range(deals) for t in tables for r in range(len(t))]


def schedule(pairs: list[tuple[int, int]], deals: int) -> list[Game]:
    """Every game, deal by deal so that partial results cover all pairs evenly."""
    return [Game(i, j, d, s) for d in range(deals) for (i, j) in pairs for s in (0, 1)]


def deal_seed(seed: int, deal: int) -> int:
    return int(np.random.SeedSequence([seed, deal]).generate_state(1)[0])


def deck_for(seed: int, deal: int) -> list[int]:
    return np.random.default_rng([seed, deal]).permutation(NUM_CARDS).tolist()


def play_game(spec: dict[str, Any], game: Game | TableGame) -> dict[str, Any]:
    """Play one game; ``spec`` holds agents, rules, mode, seed and record from the config."""
    if isinstance(game, TableGame):
        return play_table_game(spec, game)
    names = [spec["agents"][game.i], spec["agents"][game.j]]
    if game.swap:
        names.reverse()
    seeds = [deal_seed(spec["seed"], game.deal) + 1 + (k ^ game.swap) for k in (0, 1)]
    players = [agents.make(name, seed=seed) for name, seed in zip(names, seeds)]
    match = spec["mode"] == "matches"
    env = gin_rummy_v0.raw_env(rules=spec["rules"], episode="match" if match else "hand")
    options: dict[str, Any] = {"dealer": 1}
    if not match:
        options["deck"] = deck_for(spec["seed"], game.deal)
    env.reset(seed=deal_seed(spec["seed"], game.deal), options=options)
    hands: list[dict[str, Any]] = []
    for seat, obs, info in decisions(env):
        before = env.game  # a match deals the next hand inside step: keep the one being played
        env.step(players[seat].act(obs, info))
        if before is not None and before.is_over:
            hands.append(_hand_record(before, spec["record"]))
    record: dict[str, Any] = {"key": game.key, "i": game.i, "j": game.j, "deal": game.deal, "swap": game.swap,
                              "players": names, "hands": hands}
    if match:
        assert env.match is not None
        final = env.match.result()
        record["match"] = final.to_dict()
        record["winner"] = final.winner
        record["margin"] = final.grand_total[0] - final.grand_total[1]
    else:
        result = hands[0]["result"]
        record["winner"] = result["winner"]
        record["margin"] = result["rewards"][0]
    return record


def _hand_record(state: GinRummyState, keep_moves: bool) -> dict[str, Any]:
    assert state.result is not None
    out: dict[str, Any] = {"result": state.result.to_dict(), "length": len(state.history)}
    if keep_moves:
        out.update(deck=list(state.deck or ()), dealer=state.dealer, actions=list(state.history))
    return out


def replay_hand(hand: dict[str, Any], rules: str) -> GinRummyState:
    """Replay a recorded hand; raises if the recorded outcome does not come out again."""
    if "actions" not in hand:
        raise ValueError("this game was stored without its moves (record: false); it cannot be replayed")
    state = GinRummyState.from_deck(hand["deck"], load_rules(rules), hand["dealer"])
    for action in hand["actions"]:
        state.step(action)
    if state.result is None or state.result.to_dict() != hand["result"]:
        raise ValueError("the replay does not reproduce the recorded outcome: the record or the rules differ")
    return state


def play_table_game(spec: dict[str, Any], game: TableGame) -> dict[str, Any]:
    """Play one Basic Rummy game at a table; the record has each seat's points and the
    finishing order (a list of groups of seats, best first; ties share a group)."""
    seats = game.seats
    k = len(seats)
    names = [spec["agents"][i] for i in seats]
    base = deal_seed(spec["seed"], game.deal)
    players = [agents.make(spec["agents"][i], seed=base + 1 + game.table.index(i)) for i in seats]
    match = spec["mode"] == "matches"
    env = rummy_v0.raw_env(num_players=k, rules=spec["rules"], episode="match" if match else "hand")
    options: dict[str, Any] = {"dealer": k - 1}
    if not match:
        options["deck"] = deck_for(spec["seed"], game.deal)
    env.reset(seed=base, options=options)
    hands: list[dict[str, Any]] = []
    for seat, obs, info in decisions(env):
        before = env.game
        env.step(players[seat].act(obs, info))
        if before is not None and before.is_over:
            hands.append(_rummy_hand_record(before, spec["record"]))
    record: dict[str, Any] = {"key": game.key, "table": list(game.table), "deal": game.deal,
                              "rotation": game.rotation, "seats": seats, "players": names, "hands": hands}
    if match:
        assert env.match is not None
        final = env.match.result()
        record["match"] = final.to_dict()
        record["winner"] = final.winner
        record["points"] = list(final.totals)
        totals = sorted(set(final.totals), reverse=True)
        record["order"] = [[s for s in range(k) if final.totals[s] == t] for t in totals]
    else:
        assert env.game is not None and env.game.result is not None
        result = env.game.result
        record["winner"] = result.winner
        record["points"] = list(result.rewards)
        record["order"] = result.finishing_order
    return record


def _rummy_hand_record(state: BasicRummyState, keep_moves: bool) -> dict[str, Any]:
    assert state.result is not None
    out: dict[str, Any] = {"result": state.result.to_dict(), "length": len(state.history)}
    if keep_moves:
        out.update(deck=list(state.deck or ()), dealer=state.dealer, actions=[a for _, a in state.history])
    return out


def replay_rummy_hand(hand: dict[str, Any], rules: str, num_players: int) -> BasicRummyState:
    """Replay a recorded Basic Rummy hand; raises if the recorded outcome does not come out again."""
    if "actions" not in hand:
        raise ValueError("this game was stored without its moves (record: false); it cannot be replayed")
    state = BasicRummyState.from_deck(hand["deck"], num_players, rules, hand["dealer"])
    for action in hand["actions"]:
        state.step(action)
    if state.result is None or state.result.to_dict() != hand["result"]:
        raise ValueError("the replay does not reproduce the recorded outcome: the record or the rules differ")
    return state
