"""Rommé's ``heuristic`` over many games at once: its array policy, move for move the
scripted agent's (``RommeHeuristicAgent.act``, ``rummy_env.agents.romme.agents``).

Why: tournaments, training rollouts and the search's playouts play thousands of Rommé
hands with it, and through the env each move costs the information set and the
observation besides the agent's own planning. Here one call decides for every game given,
reading the vector engine's arrays (``rummy_env.romme.vector.VectorRomme``) straight into
the agent's inputs (``agents.Position``: the hand's kind counts, the pile's top, the table's
readings, the meld being built, the turn's flags, the kinds known to be in the next hand
and the kinds the next player let go by, which the engine keeps as it steps: ``passes``),
and deciding by the agent's own code (``RommeHeuristicAgent.decide``), so the moves are the
agent's by construction: the exact solver's plans (``rummy_env.romme.melds``, compiled in
``melds_jit``) per game, the engine's mask as the legal moves.

The tie-breaks are the agent's own: ``rng.choice`` over the equally scored discards (and
over the legal moves in the rare position with no plan and no discard), its generator made
from its seed for each game. A tournament makes the agent per game with a seed whose
64-bit key (``rummy_env.agents.draws.key_of``) it passes the policy, so the policy keeps,
per engine, game row and seat, ``np.random.default_rng(key)`` made anew at the seat's
first decision of the hand (decision 0) and draws from it exactly where the agent does:
only at a choice among two or more (a choice among one draws nothing from a numpy
generator), the index as ``integers(0, k)``, which is how ``Generator.choice`` draws it
(tests hold both). It is the one stateful part, and asking a row's decisions out of order
is refused.

Without the compiled engine (numba missing or ``RUMMY_ENV_NO_NUMBA=1``) the batch player
runs the pure hands in a loop (``StatesEngine``); the policy then reads each row's
information set (``agents.position_of``) and decides by the same code.
"""

from __future__ import annotations

import functools
import weakref
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Optional

import numpy as np

from rummy_env.agents.romme.position import Position, passed_set, position_of
from rummy_env.romme import melds as M
from rummy_env.romme.cards import JOKER
from rummy_env.romme.game import Phase
from rummy_env.romme.vector import VectorRomme

__all__ = ["HeuristicPolicy", "positions_of"]


@functools.lru_cache(maxsize=1 << 14)
def meld_of(code: tuple[int, int, int, int, int]) -> M.Meld:
    """The table meld read by the engine's five numbers (``game._meld_code``): a set (0, rank,
    suits mask, jokers, 0) or a run (1, suit, start, length, joker offsets mask)."""
    run, a, b, c, d = code
    if run == 0:
        return M.Meld.make_set(a, [s for s in range(4) if b >> s & 1], c)
    return M.Meld.make_run(a, b, c, [t for t in range(c) if d >> t & 1])


def _pending(natm: int, jokm: int) -> tuple[tuple[int, int], ...]:
    """The meld being built from the engine's masks: each natural (k, k), each joker (JOKER, k)
    (the order it was picked in is not kept: the heuristic reads it sorted)."""
    return tuple((k, k) for k in range(JOKER) if natm >> k & 1) + tuple(
        (JOKER, k) for k in range(JOKER) if jokm >> k & 1)


def positions_of(env: Any, rows: np.ndarray) -> list[tuple[Position, Phase]]:
    """The heuristic's inputs and the phase of the player to move in games ``rows`` of a Rommé
    vector engine: ``VectorRomme``'s arrays, or the information sets of the pure hands of the
    engine without numba (``StatesEngine``)."""
    if not isinstance(env, VectorRomme):
        out = []
        for g in rows.tolist():
            info = env.states[g].information_set(env.states[g].current_player)
            out.append((position_of(info, env.rules), info.phase))
        return out
    jit = env._jit
    n = env.num_players
    st = env.st[rows]
    seats = st[:, jit.CUR].astype(np.intp)
    nxt = (seats + 1) % n
    hands = env.hands[rows, seats]  # copies: the agent's code never sees the engine's arrays
    known = env.known[rows, nxt]
    passed = env.passed[rows, nxt].tolist()
    came_out = env.came_out[rows].astype(bool)
    out = []
    for i, g in enumerate(rows.tolist()):
        s = st[i].tolist()
        pile_len = s[jit.PILE_LEN]
        upcard = int(env.pile[g, 0]) if s[jit.UP_STAYS] and pile_len else -1
        table = tuple(meld_of(tuple(code)) for code in env.codes[g, : s[jit.NUM_TABLE]].tolist())
        pos = Position(seats[i].item(), n, hands[i], int(env.pile[g, pile_len - 1]) if pile_len else -1,
                       tuple(came_out[i].tolist()), table, _pending(s[jit.NATM], s[jit.JOKM]), s[jit.POINTS],
                       bool(s[jit.RUN]), s[jit.TAKEN] if s[jit.HELD] else None, bool(s[jit.MUST]),
                       bool(s[jit.DEBT]), known[i], functools.partial(passed_set, passed[i], upcard))
        out.append((pos, Phase(s[jit.PHASE])))
    return out


class _TieBreaks:
    """One row's seat's tie-breaks as the agent's ``rng.choice``: the generator kept for
    (row, seat) and made from the hand's key at its first draw (module docstring)."""

    __slots__ = ("kept", "key", "why")

    def __init__(self, kept: Optional[list], key: int, why: str) -> None:
        self.kept, self.key, self.why = kept, key, why

    def choice(self, options: Any) -> Any:
        if len(options) == 1:  # numpy draws nothing for a choice among one
            return options[0]
        kept = self.kept
        if kept is None or kept[0] != self.key:
            raise ValueError(self.why)
        if kept[1] is None:
            kept[1] = np.random.default_rng(kept[0])
        return options[kept[1].integers(0, len(options))]


@dataclass(frozen=True)
class HeuristicPolicy:
    """``heuristic`` with its settings (``RommeHeuristicAgent``) over many games
    (``rummy_env.core.game.BatchPolicy``), its tie-breaks the agent's generator per game
    (module docstring). Equal when the settings are: the batch player asks it once a step
    for all its games, every seat's generators kept apart."""

    partial_weight: float
    danger_weight: float
    joker_hold: int
    # the agent's ``decide`` with these settings (``RommeHeuristicAgent.batch_policy`` gives it)
    decide: Callable[..., int] = field(compare=False, repr=False)
    observation: ClassVar[Optional[str]] = None
    # per engine (dropped with it): per (row, seat), the key of the hand being played and its generator
    # (None until the first tie of the hand)
    _tie_breaks: weakref.WeakKeyDictionary = field(default_factory=weakref.WeakKeyDictionary, init=False,
                                                   compare=False, repr=False)

    def __getstate__(self) -> dict:
        """Pickled without the generators (a worker process plays hands of its own)."""
        return {k: v for k, v in self.__dict__.items() if k != "_tie_breaks"}

    def __setstate__(self, state: dict) -> None:
        for k, v in {**state, "_tie_breaks": weakref.WeakKeyDictionary()}.items():
            object.__setattr__(self, k, v)

    def __call__(self, env: Any, rows: np.ndarray, keys: np.ndarray, decisions: np.ndarray) -> np.ndarray:
        rows = np.asarray(rows, dtype=np.intp)
        mask = env.action_mask()
        row_list, seat_list = rows.tolist(), env.current[rows].tolist()
        key_list = np.asarray(keys, dtype=np.uint64).tolist()
        decision_list = np.asarray(decisions).tolist()
        games = self._tie_breaks.setdefault(env, {})
        for i in np.flatnonzero(np.asarray(decisions) == 0).tolist():  # a seat's first decision: a fresh generator
            games[row_list[i], seat_list[i]] = [key_list[i], None]
        out = np.empty(rows.size, dtype=np.int64)
        decide, rules = self.decide, env.rules
        counts = mask[rows].sum(axis=1)
        single = counts == 1
        out[single] = np.argmax(mask[rows[single]], axis=1)
        choose = np.flatnonzero(~single)
        for i, (pos, phase) in zip(choose.tolist(), positions_of(env, rows[choose])):
            row, seat = row_list[i], seat_list[i]
            why = (f"the heuristic's array policy was asked decision {decision_list[i]} of seat {seat} in game row "
                   f"{row} without that hand's first decision (decision 0): its tie-breaks draw from one generator "
                   "per hand and seat, as the agent's, so it must be asked every decision of a hand in order")
            legal = np.flatnonzero(mask[row]).tolist()
            out[i] = decide(pos, phase, rules, legal, _TieBreaks(games.get((row, seat)), key_list[i], why))
        return out
