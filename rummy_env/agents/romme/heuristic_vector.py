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
``melds_jit``) per game, the engine's mask as the legal moves. Where numba is used, one
compiled call decides for all the games instead (``rummy_env.agents.romme.heuristic_jit``:
the same plans as loops over the engine's arrays, 10 to 15 times as fast), once it has
decided as this code does in a few hundred positions (``HEURISTIC_KERNEL``, once per
process); the tie-breaks are drawn here either way.

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
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Optional, Sequence

import numpy as np

from rummy_env.agents.tie_breaks import SeatGenerators
from rummy_env.agents.romme.position import Position, passed_set, position_of
from rummy_env.core.compiled import UNDECIDED, Compiled, self_check
from rummy_env.core.masks import mask_ids
from rummy_env.romme import melds as M
from rummy_env.romme.cards import JOKER
from rummy_env.romme.game import Phase
from rummy_env.romme.vector import COMPILED_ENGINE, VectorRomme

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
    # the tie-breaks' generators per engine, row and seat (``rummy_env.agents.tie_breaks``)
    _tie_breaks: SeatGenerators = field(default_factory=SeatGenerators, init=False, compare=False, repr=False)

    def __call__(self, env: Any, rows: np.ndarray, keys: np.ndarray, decisions: np.ndarray) -> np.ndarray:
        rows = np.asarray(rows, dtype=np.intp)
        seats = self._tie_breaks.ask(env, rows, keys, decisions)
        return choose(self, env, rows, seats, heuristic_kernel())


def heuristic_kernel() -> Any:
    """``rummy_env.agents.romme.heuristic_jit`` where the compiled heuristic is used, else None."""
    kernel = HEURISTIC_KERNEL.chosen  # read directly: one call per step of a batch
    if kernel is UNDECIDED:
        kernel = HEURISTIC_KERNEL.get()
    return kernel


def choose(policy: HeuristicPolicy, env: Any, rows: np.ndarray, choosers: Sequence[Any], kernel: Any) -> np.ndarray:
    """The heuristic's moves in games ``rows`` of ``env``, its tie-breaks drawn by
    ``choosers[i].choice(options)`` (the agent's ``rng.choice``): decided by the compiled
    ``kernel`` (``heuristic_jit``) on a compiled engine, else by the agent's ``decide``."""
    mask = env.action_mask()
    out = np.empty(rows.size, dtype=np.int64)
    if kernel is not None and isinstance(env, VectorRomme):
        flags, pen, scratch, _ = env._kernel_rules()
        ties = np.empty((rows.size, kernel.MAX_TIES), dtype=np.int64)
        num_ties = np.empty(rows.size, dtype=np.int64)
        kernel.decide_rows(rows, env.st, env.hands, env.came_out, env.pile, env.codes, env.known, env.passed, mask,
                           env._num_legal, env._legal_ids, env.num_players,
                           env.rules.take_discard_before_out == "meld", policy.partial_weight, policy.danger_weight,
                           policy.joker_hold, flags, pen, scratch, out, ties, num_ties)
        for i in np.flatnonzero(out < 0).tolist():
            options = ties[i, :num_ties[i]] if out[i] == kernel.TIES else mask_ids(mask[rows[i]])
            out[i] = choosers[i].choice(options.tolist())
        return out
    decide, rules = policy.decide, env.rules
    counts = mask[rows].sum(axis=1)
    single = counts == 1
    out[single] = np.argmax(mask[rows[single]], axis=1)
    choose_rows = np.flatnonzero(~single)
    for i, (pos, phase) in zip(choose_rows.tolist(), positions_of(env, rows[choose_rows])):
        legal = mask_ids(mask[rows[i]]).tolist()
        out[i] = decide(pos, phase, rules, legal, choosers[i])
    return out


# the compiled heuristic (``rummy_env.core.compiled``): used on the compiled engine where it
# decides as the agent does in a few hundred positions (``heuristic_jit.self_check``)
HEURISTIC_KERNEL = Compiled("Rommé's compiled heuristic", "rummy_env.agents.romme.heuristic_jit", self_check,
                            "the heuristic's array policy decides in Python", needs=COMPILED_ENGINE)
