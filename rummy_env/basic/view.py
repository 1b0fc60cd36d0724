"""Basic Rummy on a person's screen: one seat's table and the legal moves as
``rummy_env.core.view`` shapes them (``Game.view``, ``Game.move_view``).

Built from the seat's ``RummyInformationSet`` alone: the hand grouped into the melds it
could lay down (the exact solver of ``rummy_env.core.melds``; sets and runs are Gin's)
with what the cards would pay if another player went out, the melds on the table, each
player's hand size and known cards; once a player has gone out, every hand left.
"""

from __future__ import annotations

from typing import Any

from rummy_env.basic.game import (
    DISCARD, DRAW_STOCK, LAYOFF, MELD, TAKE_DISCARD, RummyInformationSet, action_name, hand_value,
)
from rummy_env.basic.rules import BasicRummyRules
from rummy_env.core import melds
from rummy_env.core.cards import NUM_CARDS, card_str
from rummy_env.core.meld_table import meld_table
from rummy_env.core.view import group, mask_texts, move, player, seat_view, went_out_showdown


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
    return seat_view(groups, note, players, table, [card_str(c) for c in info.discard_pile], info.stock_size, facts,
                     went_out_showdown(info.result, lambda left: mask_texts(left, high)))


def move_view(action: int, rules: BasicRummyRules) -> dict[str, Any]:
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
