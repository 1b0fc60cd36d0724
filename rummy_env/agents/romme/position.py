"""What Rommé's ``heuristic`` reads of the player to move's information set (``Position``),
built from the set itself (``position_of``, the agent's ``act``) or from a vector engine's
arrays (``rummy_env.agents.romme.heuristic_vector``, its array policy), so that both decide
by the same code from the same inputs; and the kinds each seat let go by
(``passed_kinds``), which the agent reads of the public history and the engine keeps as it
steps (``rummy_env.romme.vector.passes``).
"""

from __future__ import annotations

from typing import Callable, NamedTuple, Optional

import numpy as np

from rummy_env.romme import melds as M
from rummy_env.romme.cards import NUM_KINDS
from rummy_env.romme.game import RommeInformationSet
from rummy_env.romme.rules import RommeRules
from rummy_env.romme.vector import PASSED_UPCARD, passes

__all__ = ["Position", "passed_kinds", "passed_set", "position_of"]


def passed_kinds(info: RommeInformationSet, rules: RommeRules) -> list[set[int]]:
    """Per seat, the kinds that lay on top of the discard pile when that seat drew from
    the stock instead (public: the pile is replayed from the public moves, stock
    turnovers included: ``rummy_env.romme.vector.passes``, which the vector engine keeps
    as it steps). The upcard counts while it still lies at the bottom of the pile (the
    history does not name it; the pile shows it)."""
    masks, stays = passes(info.public_history, info.num_players, rules)
    upcard = info.discard_pile[0] if stays and info.discard_pile else -1
    return [passed_set(mask, upcard) for mask in masks]


def passed_set(mask: int, upcard: int) -> set[int]:
    """The kinds of a seat's ``passes`` bits, the upcard's bit read as ``upcard`` (-1: it no
    longer lies at the bottom of the pile, so it is not counted)."""
    kinds = {k for k in range(NUM_KINDS) if mask >> k & 1}
    if mask >> PASSED_UPCARD & 1 and upcard >= 0:
        kinds.add(upcard)
    return kinds


class Position(NamedTuple):
    """What the heuristic reads of the player to move's information set, and nothing else:
    built from it (``position_of``) or from a vector engine's arrays (the array policy,
    ``rummy_env.agents.romme.heuristic_vector``), so both decide from the same inputs."""

    player: int
    num_players: int
    hand: np.ndarray  # (53,) uint8 kind counts
    top: int  # the discard pile's top (-1: empty)
    came_out: tuple[bool, ...]
    table: tuple[M.Meld, ...]  # the table melds' readings
    pending: tuple[tuple[int, int], ...]  # the meld being built: (card kind, kind it stands for)
    turn_points: int
    turn_run: bool
    taken: Optional[int]  # the card taken from the pile this turn, while it is held
    must_meld_taken: bool
    joker_debt: bool
    known_next: np.ndarray  # (53,) the kinds known to be in the next player's hand
    passed_next: Callable[[], set[int]]  # the kinds the next player let go by (``passed_kinds``), when asked


def position_of(info: RommeInformationSet, rules: RommeRules) -> Position:
    """The heuristic's inputs from the player to move's information set."""
    nxt = (info.player + 1) % info.num_players
    known = np.zeros(NUM_KINDS, dtype=np.uint8)
    for k in info.known[nxt]:
        known[k] += 1
    return Position(info.player, info.num_players, np.array(info.hand_counts, dtype=np.uint8),
                    info.discard_pile[-1] if info.discard_pile else -1, info.came_out,
                    tuple(m.meld for m in info.table), info.pending, info.turn_points, info.turn_run,
                    info.taken_card if info.taken_held else None, info.must_meld_taken, info.joker_debt, known,
                    lambda: passed_kinds(info, rules)[nxt])
