"""Rommé on a person's screen: one seat's table and the legal moves as
``rummy_env.core.view`` shapes them (``Game.view``, ``Game.move_view``).

Built from the seat's ``RommeInformationSet`` alone: the hand grouped into its
least-penalty melds (the exact solver, ``rummy_env.romme.melds.best_arrangement``; a joker
shows the card it would stand for, ``JK:7D``), the pending meld and the melds on the
table, each player's hand size, whether they have come out and their known cards; once a
player has gone out, every hand left with what it pays.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from rummy_env.core.view import group, hand_as_shown, move, outcome_text, player, seat_view, sheet_row, total, went_out_showdown
from rummy_env.romme import melds
from rummy_env.romme.cards import JOKER, kind_str
from rummy_env.romme.game import RommeHandResult, RommeInformationSet, decode_action
from rummy_env.romme.match import RommeTableResult
from rummy_env.romme.rules import RommeRules


def _meld_cards(meld: melds.Meld) -> list[str]:
    """A meld's places in order, a joker as ``JK:`` the card it stands for."""
    return [f"JK:{kind_str(k)}" if joker else kind_str(k) for k, joker in zip(meld.represented, meld.is_joker)]


def _kinds(kinds: Any) -> list[str]:
    """Kinds as texts, by suit then rank, jokers last."""
    return [kind_str(k) for k in sorted(kinds)]


def view(info: RommeInformationSet, rules: RommeRules) -> dict[str, Any]:
    """The seat ``info.player``'s table (``rummy_env.core.view``)."""
    best = melds.best_arrangement(np.array(info.hand_counts, dtype=np.uint8), rules)
    groups = [group(m.kind, _meld_cards(m)) for m in best.melds]
    if best.left:
        groups.append(group("others", [kind_str(k) for k in best.left]))
    players = [player(s, info.hand_sizes[s], [] if s == info.player else _kinds(info.known[s]),
                      "came out" if info.came_out[s] else "")
               for s in range(info.num_players)]
    table = [group(f"slot {slot}", _meld_cards(m.meld), owner=m.owner) for slot, m in enumerate(info.table)]
    if info.pending:
        table.append(group("pending meld", [kind_str(k) if c != JOKER else f"JK:{kind_str(k)}"
                                            for c, k in info.pending], owner=info.current_player))
    facts = [["turn", str(info.turn + 1)], ["dealer", f"player_{info.dealer}"], ["phase", info.phase.name.lower()],
             ["to come out", f"{rules.come_out_points} points" + (" with a run" if rules.come_out_needs_run else "")]]
    if info.turn_points:
        facts.append(["points laid this turn", str(info.turn_points)])
    if info.taken_card is not None:
        facts.append(["taken from the pile", kind_str(info.taken_card)])
    note = f"{best.penalty} penalty points left over" + (f" after these melds (worth {best.value})" if best.melds else "")
    showdown = went_out_showdown(info.result, _kinds)
    groups, note = hand_as_shown(showdown, info.player, groups, note)
    return seat_view(groups, note, players, table, [kind_str(k) for k in info.discard_pile], info.stock_size, facts,
                     showdown)


_LABELS = {"commit": "lay the pending meld on the table", "pick": "meld {k}", "joker_as": "meld a joker as {k}",
           "layoff": "lay off {k} on slot {s}", "layoff_joker": "lay off a joker as {k} on slot {s}",
           "swap": "swap {k} for the joker on slot {s}"}
_GROUPS = {"commit": "meld", "pick": "meld", "joker_as": "meld with a joker", "layoff": "lay off",
           "layoff_joker": "lay off", "swap": "swap a joker"}


def move_view(action: int, rules: RommeRules, info: Optional[RommeInformationSet] = None) -> dict[str, Any]:
    """How a Rommé move is offered: draws on the stock and the pile, a discard or a card
    put into the pending meld on its card in the hand, the rest as buttons."""
    name, slot, kind = decode_action(action)
    if name == "draw":
        return move("draw from the stock", "stock")
    if name == "take":
        return move("take the top discard", "pile")
    card = kind_str(kind) if kind >= 0 else None
    if name == "discard":
        return move(f"discard {card}", "hand", card, "discard")
    label = _LABELS[name].format(k=card, s=slot)
    return move(label, "hand" if name == "pick" else None, card, _GROUPS[name])


def score_sheet(results: Sequence[RommeHandResult], final: Optional[RommeTableResult],
                rules: RommeRules) -> dict[str, Any]:
    """A Rommé table's score sheet (``rummy_env.core.view``): each hand's winner and what
    it adds to every seat's total (the winner the others' penalties, each other seat minus
    its own), a hand rummy's multiplied part shown as its bonus, and the totals (a table
    has no bonus of its own: ``rummy_env.romme.match``)."""
    n = len(results[0].penalties) if results else 0
    rows = []
    for k, r in enumerate(results):
        how = "went out" if r.outcome == "out" else outcome_text(r)
        m = rules.hand_rummy_multiplier
        extra = r.points - r.points // m if r.outcome == "hand_rummy" else 0
        rows.append(sheet_row(k + 1, r.winner, how, r.rewards, ((f"hand rummy (penalties x{m})", extra),)))
    sums = [sum(row["points"][s] for row in rows) for s in range(n)]
    label = "total" if final is None or final.ended_by != "loss_limit" else f"total (ended at the loss limit, -{rules.loss_limit})"
    return {"rows": rows, "totals": [total(label, sums if final is None else final.totals)], "final": final is not None}
