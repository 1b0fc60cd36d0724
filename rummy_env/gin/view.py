"""Gin Rummy on a person's screen: one seat's table and the legal moves as
``rummy_env.core.view`` shapes them (``Game.view``, ``Game.move_view``).

Built from the seat's ``InformationSet`` alone: the hand grouped into its least-deadwood
melds, what is known of the opponent's hand, the pile and the stock; after a knock the
showdown as the rules lay it out (the knocker's melds with the cards laid off onto them,
both deadwoods).
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

from rummy_env.core import melds
from rummy_env.core.cards import card_str
from rummy_env.core.view import (
    group, hand_as_shown, mask_texts, move, outcome_text, player, seat_view, sheet_row, total, winner_points,
)
from rummy_env.gin.game import (
    BIG_GIN, DISCARD, DRAW_STOCK, KNOCK, PASS, TAKE_DISCARD, HandResult, InformationSet, action_name,
)
from rummy_env.gin.match import MatchResult
from rummy_env.gin.rules import Rules


def view(info: InformationSet, rules: Rules) -> dict[str, Any]:
    """The seat ``info.player``'s table (``rummy_env.core.view``). Once the hand is shown
    down, the seat's hand is laid out as the showdown laid it out (the defender's lay-offs
    taken off its deadwood), so the table and the showdown tell one deadwood."""
    high = rules.aces_high
    best = melds.best_arrangement(info.hand, aces_high=high, five_under_ten=rules.five_under_ten)
    groups = [group(m.kind, mask_texts(m.cards, high)) for m in best.melds]
    if best.deadwood_cards:
        groups.append(group("deadwood", mask_texts(best.deadwood_cards, high)))
    showdown = _showdown(info.result, high)
    groups, note = hand_as_shown(showdown, info.player, groups, f"deadwood {best.deadwood}")
    opponent = info.opponent
    players = [None, None]
    players[info.player] = player(info.player, info.hand.bit_count())
    players[opponent] = player(opponent, info.opponent_hand_size, mask_texts(info.opponent_known, high))
    facts = [["turn", str(info.turn + 1)], ["knock limit", str(info.knock_limit)],
             ["dealer", f"player_{info.dealer}"], ["phase", info.phase.name.lower()]]
    if info.taken_card is not None:
        facts.append(["taken from the pile", card_str(info.taken_card)])
    return seat_view(groups, note, players, [], [card_str(c) for c in info.discard_pile],
                     info.stock_size, facts, showdown)


def _showdown(result: Any, aces_high: bool) -> Any:
    """Both hands as the showdown laid them out, or None (no hand over, or a draw: nothing shown)."""
    if result is None or result.knocker is None:
        return None
    knocker, defender = result.knocker, 1 - result.knocker
    laid = {i: [c for c, k in result.layoffs if k == i] for i in range(len(result.knocker_melds))}
    kgroups = [group(m.kind, mask_texts(m.cards, aces_high), added=[card_str(c) for c in laid[i]])
               for i, m in enumerate(result.knocker_melds)]
    if result.knocker_deadwood_cards:
        kgroups.append(group("deadwood", mask_texts(result.knocker_deadwood_cards, aces_high)))
    dgroups = [group(m.kind, mask_texts(m.cards, aces_high)) for m in result.defender_melds]
    if result.layoffs:
        dgroups.append(group("laid off", [card_str(c) for c, _ in result.layoffs]))
    if result.defender_deadwood_cards:
        dgroups.append(group("deadwood", mask_texts(result.defender_deadwood_cards, aces_high)))
    did = {"big_gin": "Big Gin", "gin": "gin"}.get(result.outcome, "knocked")
    return {"seats": [
        {"seat": knocker, "title": did, "groups": kgroups, "note": f"deadwood {result.knocker_deadwood}"},
        {"seat": defender, "title": "defender", "groups": dgroups, "note": f"deadwood {result.defender_deadwood}"},
    ]}


def move_view(action: int, rules: Rules, info: Optional[InformationSet] = None) -> dict[str, Any]:
    """How a Gin Rummy move is offered: draws on the stock and the pile, a discard on its
    card in the hand, the rest as buttons. With the mover's ``info``, a knock says the
    deadwood it leaves (the rules' own count: ``melds.discard_deadwood``, which decides
    which knocks are legal), so a person choosing among knocks need not count."""
    if action == DRAW_STOCK:
        return move("draw from the stock", "stock")
    if action == TAKE_DISCARD:
        return move("take the face-up card", "pile")
    if action == PASS:
        return move("pass", group="pass")
    if DISCARD <= action < KNOCK:
        return move(action_name(action), "hand", card_str(action - DISCARD), "discard")
    if KNOCK <= action < BIG_GIN:
        card = card_str(action - KNOCK)
        if info is None:
            return move(f"knock, discard {card} face down", card=card, group="knock")
        left = melds.discard_deadwood(info.hand, aces_high=rules.aces_high,
                                      five_under_ten=rules.five_under_ten)[action - KNOCK]
        return move(f"knock, discard {card}: deadwood {left}", card=card, group="knock")
    return move("declare Big Gin", group="knock") if action == BIG_GIN else move(action_name(action))


def _hand_row(number: int, r: HandResult, rules: Rules) -> dict[str, Any]:
    """A hand's row: the deadwoods it was scored on, and the bonus inside its points."""
    k, d = r.knocker_deadwood, r.defender_deadwood
    how, bonus = {
        "knock": (f"knock: deadwood {k} against {d}", ()),
        "gin": (f"gin: the defender's deadwood {d}", (("gin bonus", rules.gin_bonus),)),
        "big_gin": (f"Big Gin: the defender's deadwood {d}", (("Big Gin bonus", rules.big_gin_bonus),)),
        "undercut": (f"undercut: deadwood {d} against the knocker's {k}", (("undercut bonus", rules.undercut_bonus),)),
        "tie": (f"tie: deadwood {k} each, no points", ()),
    }.get(r.outcome, (outcome_text(r), ()))
    return sheet_row(number, r.winner, how, winner_points(r, 2), bonus)


def score_sheet(results: Sequence[HandResult], final: Optional[MatchResult], rules: Rules) -> dict[str, Any]:
    """A Gin Rummy match's score sheet (``rummy_env.core.view``): each hand with its gin,
    Big Gin or undercut bonus, the hand points, and once the match is over its game, line
    and shutout bonuses (``MatchResult``, as ``rummy_env.gin.match`` adds them) and the
    grand totals."""
    rows = [_hand_row(k + 1, r, rules) for k, r in enumerate(results)]
    totals = [total("hand points", (sum(row["points"][s] for row in rows) for s in (0, 1)))]
    if final is not None:
        if rules.game_bonus:
            totals.append(total(f"game bonus ({rules.game_bonus} to whoever reached {rules.target_score})",
                                final.game_bonus))
        if rules.line_bonus:
            totals.append(total(f"line bonus ({rules.line_bonus} a hand won)", final.line_bonus))
        if final.shutout:
            totals.append(total("shutout (hand points counted twice)", final.shutout_extra))
        totals.append(total("grand total", final.grand_total))
    return {"rows": rows, "totals": totals, "final": final is not None}
