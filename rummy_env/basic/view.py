"""Basic Rummy on a person's screen: one seat's table and the legal moves as
``rummy_env.core.view`` shapes them (``Game.view``, ``Game.move_view``).

Built from the seat's ``RummyInformationSet`` alone: the hand grouped into the melds it
could lay down (the exact solver of ``rummy_env.core.melds``; sets and runs are Gin's)
with what the cards would pay if another player went out, the melds on the table, each
player's hand size and known cards; once a player has gone out, every hand left.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

from rummy_env.basic.game import (
    DISCARD, DRAW_STOCK, LAYOFF, MELD, TAKE_DISCARD, RummyHandResult, RummyInformationSet, action_name, hand_value,
)
from rummy_env.basic.match import RummyMatchResult
from rummy_env.basic.rules import BasicRummyRules
from rummy_env.core import melds
from rummy_env.core.cards import NUM_CARDS, card_str
from rummy_env.core.meld_table import meld_table
from rummy_env.core.view import (
    group, hand_as_shown, mask_texts, move, outcome_text, player, seat_view, sheet_row, total, went_out_showdown,
    winner_points,
)


def view(info: RummyInformationSet, rules: BasicRummyRules) -> dict[str, Any]:
    """The seat ``info.player``'s table (``rummy_env.core.view``)."""
    high = rules.aces_high
    best = melds.best_arrangement(info.hand, aces_high=high)
    groups = [group(m.kind, mask_texts(m.cards, high)) for m in best.melds]
    if best.deadwood_cards:
        groups.append(group("others", mask_texts(best.deadwood_cards, high)))
    players = [player(s, info.hand_sizes[s], [] if s == info.player else mask_texts(info.known[s], high),
                      "has melded" if info.has_melded[s] else "")
               for s in range(info.num_players)]
    facts = [["turn", str(info.turn + 1)], ["dealer", f"player_{info.dealer}"], ["phase", info.phase.name.lower()]]
    if info.turnovers:
        facts.append(["stock turned over", f"{info.turnovers} time(s), its order is public"])
    if info.taken_card is not None:
        facts.append(["taken from the pile", card_str(info.taken_card)])
    note = f"{hand_value(info.hand)} points in hand (what it pays if another player goes out)"
    table = [group(f"slot {slot}", mask_texts(m.cards, high), owner=m.owner) for slot, m in enumerate(info.table)]
    showdown = went_out_showdown(info.result, lambda left: mask_texts(left, high))
    groups, note = hand_as_shown(showdown, info.player, groups, note)
    return seat_view(groups, note, players, table, [card_str(c) for c in info.discard_pile], info.stock_size, facts,
                     showdown)


def move_view(action: int, rules: BasicRummyRules, info: Optional[RummyInformationSet] = None) -> dict[str, Any]:
    """How a Basic Rummy move is offered: draws on the stock and the pile, a discard on its
    card in the hand, melds and lay-offs as buttons."""
    if action == DRAW_STOCK:
        return move("draw from the stock", "stock")
    if action == TAKE_DISCARD:
        return move("take the top discard", "pile")
    aces_high = rules.aces_high
    name = action_name(action, aces_high)
    if action < MELD:
        return move(name, "hand", card_str(action - DISCARD), "discard")
    if action < LAYOFF:
        return move("meld " + " ".join(mask_texts(meld_table(aces_high).masks[action - MELD], aces_high)), group="meld")
    return move(name, card=card_str((action - LAYOFF) % NUM_CARDS), group="lay off")


def score_sheet(results: Sequence[RummyHandResult], final: Optional[RummyMatchResult],
                rules: BasicRummyRules) -> dict[str, Any]:
    """A Basic Rummy match's score sheet (``rummy_env.core.view``): each hand's winner and
    points, a rummy's double shown as its bonus, and the totals (Basic Rummy's match has no
    bonus of its own: ``rummy_env.basic.match``)."""
    n = len(results[0].penalties) if results else 0
    rows = []
    for k, r in enumerate(results):
        how = "went out" if r.outcome == "out" else outcome_text(r)
        extra = r.points - r.points // rules.rummy_multiplier if r.outcome == "rummy" else 0
        rows.append(sheet_row(k + 1, r.winner, how, winner_points(r, n),
                              ((f"rummy (points x{rules.rummy_multiplier})", extra),)))
    sums = [sum(row["points"][s] for row in rows) for s in range(n)]
    return {"rows": rows, "totals": [total("total", sums if final is None else final.totals)], "final": final is not None}
