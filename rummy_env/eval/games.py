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

Two ways to play them, with the same records: one game at a time through the env
(``play_game``), or, for single hands of a game with a batch engine whose agents all have
array policies (``can_batch``), thousands at once (``play_batched``, through
``Game.play_batched``). The agents' random choices are counter-based draws of their key
(from the seed the game gives them) and decision index (``rummy_env.agents.draws``), the
same numbers either way, so the same moves; tests compare the two results files line by
line.
"""

from __future__ import annotations

from typing import Any, Iterator, NamedTuple, Optional, Union

import numpy as np

from rummy_env import agents
from rummy_env.agents.arena import decisions
from rummy_env.agents.draws import key_of
from rummy_env.core.game import BatchPolicy, GameState, HandResult, get_game
from rummy_env.eval.config import DEFAULT_GAME
from rummy_env.eval.heap import long_lived_frozen

# games on the batch engine at once: its speed levels off above a few thousand (docs/benchmarks.md)
BATCH_WIDTH = 4096


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


def agent_seed(base: int, game: AnyGame, agent: int) -> int:
    """The seed agent ``agent`` (an index in the tournament's agents) is made with in
    ``game``, ``base`` being the deal's seed (``deal_seed``): from the deal and the agent's
    place among the game's members, so both seatings of a deal give an agent the same seed,
    and nothing depends on who plays the game when (a spec's own ``seed=`` wins)."""
    return base + 1 + game.members.index(agent)


def play_game(spec: dict[str, Any], game: AnyGame) -> dict[str, Any]:
    """Play one game; ``spec`` holds the game's name, agents, rules, mode, seed and record."""
    rules_game = get_game(spec["game"])
    seats = game.seats
    k = len(seats)
    names = [spec["agents"][i] for i in seats]
    base = deal_seed(spec["seed"], game.deal)
    players = [agents.make(spec["agents"][i], seed=agent_seed(base, game, i), game=rules_game.name) for i in seats]
    match = spec["mode"] == "matches"
    env = rules_game.raw_env(num_players=k, rules=spec["rules"], episode="match" if match else "hand")
    options: dict[str, Any] = {"dealer": k - 1}
    if not match:
        options["deck"] = deck_for(spec["seed"], game.deal, rules_game.deck_size_of(rules_game.load_rules(spec["rules"])))
    env.reset(seed=base, options=options)
    hands: list[dict[str, Any]] = []
    for seat, obs, info in decisions(env):
        before = env.game  # a match deals the next hand inside step: keep the one being played
        env.step(players[seat].act(obs, info))
        if before is not None and before.is_over:
            hands.append(hand_record(before, spec["record"]))
    counts = [player.stats() for player in players]
    if match:
        final = env.match.result()
        return game_record(game, names, hands, final.winner, list(final.scores), final.to_dict(), counts)
    result = env.game.result
    return game_record(game, names, hands, result.winner, list(result.rewards), agent_stats=counts)


def game_record(game: AnyGame, names: list[str], hands: list[dict[str, Any]], winner: Optional[int],
                scores: list[Any], match: Optional[dict[str, Any]] = None,
                agent_stats: Optional[list[Optional[dict[str, Any]]]] = None) -> dict[str, Any]:
    """A game's line of results.jsonl (docs/tournaments.md): the game's fields, the agents in
    seat order, its hands, and the outcome (``match``: a match's final result). Both ways
    of playing build it here, so their lines are the same. ``agent_stats``: each seat's
    agent's own counts for the game (``Agent.stats``, None for an agent without), kept
    only when some agent has them (so the records of the others are as they were)."""
    record: dict[str, Any] = {**game.fields(), "players": names, "hands": hands}
    if match is not None:
        record["match"] = match
    record["winner"] = winner
    if isinstance(game, PairGame):
        record["margin"] = scores[0] - scores[1] if match is not None else scores[0]
    else:
        record["points"] = scores
        record["order"] = _order(scores)
    if agent_stats is not None and any(s is not None for s in agent_stats):
        record["agent_stats"] = agent_stats
    return record


# the fields of a game's record, by whether it is a pair's game (True) or a table's (False)
RECORD_FIELDS = {
    True: ("key", "i", "j", "deal", "swap", "players", "hands", "winner", "margin"),
    False: ("key", "table", "deal", "rotation", "seats", "players", "hands", "winner", "points", "order"),
}


def record_problem(record: dict[str, Any], pairs: Optional[bool], game: Optional[AnyGame] = None) -> Optional[str]:
    """What is wrong with a game's record (a line of results.jsonl, as ``game_record`` makes
    it), or None: a field missing (``pairs``: of a pair's game, False: of a table's, None:
    one that both have), hands that are not hand records, or, given the scheduled ``game``
    of its key, a field that is not that game's. Why: statistics, reports and replays read
    these fields, and a damaged line must be named, not fail as a KeyError far from it."""
    need = RECORD_FIELDS[pairs] if pairs is not None else ("key", "players", "hands", "winner")
    missing = [name for name in need if name not in record]
    if missing:
        return f"lacks the field{'s' if len(missing) > 1 else ''} {', '.join(missing)}"
    for name, value in (game.fields() if game is not None else {}).items():
        if record[name] != value:
            return f"has {name} {record[name]!r}, but its key says {value!r}"
    hands = record["hands"]
    if not isinstance(hands, list) or not all(isinstance(h, dict) and isinstance(h.get("result"), dict)
                                              and "length" in h for h in hands):
        return "has hands that are not a list of hand records (each with its result and length)"
    if not isinstance(record["players"], list) or not all(isinstance(name, str) for name in record["players"]):
        return "has players that are not a list of agent specs"
    return None


def hand_record(state: GameState, keep_moves: bool) -> dict[str, Any]:
    """A finished hand: its result and length, and (``keep_moves``) what replays it."""
    assert state.result is not None
    return hand_entry(state.result, state.actions, list(state.deck or ()), state.dealer, keep_moves)


def hand_entry(result: HandResult, actions: list[int], deck: list[int], dealer: int,
               keep_moves: bool) -> dict[str, Any]:
    """A finished hand's record from its result, actions, deck order and dealer."""
    out: dict[str, Any] = {"result": result.to_dict(), "length": len(actions)}
    if keep_moves:
        out.update(deck=deck, dealer=dealer, actions=actions)
    return out


# ---------------------------------------------------------------------------------------
# many games at once


_POLICIES: dict[tuple[str, str], Optional[BatchPolicy]] = {}  # (game, agent spec) -> its array policy (made once a process)


def batch_policy_of(spec: str, game: str) -> Optional[BatchPolicy]:
    """The array policy of the agent ``spec`` of ``game`` (``Agent.batch_policy``), or None;
    None too for an agent that keeps its own counts (``Agent.stats``): only its games played
    one at a time can record them."""
    if (game, spec) not in _POLICIES:
        agent = agents.make(spec, game=game)
        _POLICIES[game, spec] = agent.batch_policy() if agent.stats() is None else None
    return _POLICIES[game, spec]


def can_batch(spec: dict[str, Any], members: tuple[int, ...]) -> bool:
    """Whether the games of agents ``members`` can be played many at once: single hands
    (matches are played one at a time) of a game with a batch engine (``Game.batched``),
    every agent having an array policy."""
    return (spec["mode"] == "hands" and get_game(spec["game"]).batched
            and all(batch_policy_of(spec["agents"][i], spec["game"]) is not None for i in members))


def play_batched(spec: dict[str, Any], games: list[AnyGame], width: Optional[int] = None
                 ) -> Iterator[list[dict[str, Any]]]:
    """Play ``games`` (each ``can_batch``) up to ``width`` (default ``BATCH_WIDTH``) at once on
    the game's batch engine (``Game.play_batched``). Yields their records in the order of
    ``games``, each as soon as every earlier game has finished too: the records
    ``play_game`` gives one game at a time (the same decks and dealer, each agent's key
    from the seed ``play_game`` makes it with)."""
    if not games:
        return
    played = get_game(spec["game"])
    members = sorted({i for g in games for i in g.members})
    policies = [batch_policy_of(spec["agents"][i], played.name) for i in members]
    missing = [spec["agents"][i] for i, p in zip(members, policies) if p is None]
    if missing:
        raise ValueError(f"agents without an array policy cannot be played many at once: {missing}")
    column = {i: c for c, i in enumerate(members)}
    deals = sorted({g.deal for g in games})
    decks = {d: deck_for(spec["seed"], d, played.deck_size_of(played.load_rules(spec["rules"]))) for d in deals}
    bases = {d: deal_seed(spec["seed"], d) for d in deals}
    own = {i: agents.seed_of(spec["agents"][i], game=played.name) for i in members}  # a spec's own seed=, which make() keeps
    dealer = len(games[0].seats) - 1  # as play_game deals
    seats = np.array([[column[i] for i in g.seats] for g in games], dtype=np.intp)
    keys = np.array([[key_of(agent_seed(bases[g.deal], g, i) if own[i] is None else own[i]) for i in g.seats]
                     for g in games], dtype=np.uint64)
    finished: dict[int, dict[str, Any]] = {}
    ready = 0  # games[:ready] have been yielded
    batches = played.play_batched(played.load_rules(spec["rules"]), np.array([decks[g.deal] for g in games]),
                                  np.full(len(games), dealer), seats, keys, policies, width or BATCH_WIDTH)
    with long_lived_frozen():  # the agents, their models and the imports, out of the collector's full passes
        for hands in batches:
            for hand in hands:
                g = games[hand.index]
                entry = hand_entry(hand.result, hand.actions, decks[g.deal], dealer, spec["record"])
                finished[hand.index] = game_record(g, [spec["agents"][i] for i in g.seats], [entry],
                                                   hand.result.winner, list(hand.result.rewards))
            out = []
            while ready in finished:
                out.append(finished.pop(ready))
                ready += 1
            if out:
                yield out
    if ready != len(games):
        raise RuntimeError(f"the batch engine finished {ready} of {len(games)} games; please report this bug")


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
