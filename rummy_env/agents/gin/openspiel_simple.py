"""``openspiel-simple``: OpenSpiel's ``SimpleGinRummyBot`` playing in our env, an external
baseline for the agent tables (needs open_spiel: ``pip install "rummy-env[openspiel]"``).

The bot (``open_spiel/bots/gin_rummy/simple_gin_rummy_bot.cc``) decides from one player's
observation: its hand, the upcard, the stock size and the knock card. Its rules, over
OpenSpiel's own meld utilities (``pyspiel.gin_rummy.GinRummyUtils``):
- Drawing: take the upcard if, with it, the least deadwood after a discard is within the
  knock card, or if the upcard is not left over by the best meld group of the hand with
  it; else draw from the stock (or pass, at the first-turn offer). At the wall (2 cards
  left in the stock) knock if it may, else pass.
- Discarding: knock as soon as the least deadwood of the 11 cards is within the knock
  card; the card to discard (or put face down) is the highest-ranked card left over by
  the best meld group (ties: the highest card id, as its sort leaves them), or, when
  every card is melded, the first card whose removal keeps the hand at 0 deadwood.

Why the rules are applied here instead of calling the bot: the bot reads an OpenSpiel
state, and building one from an information set would mean making up the hidden cards'
history. Its decisions are functions of the observation alone, so this module computes
them with the same utilities on our information set's cards (mapped to OpenSpiel's card
ids, ``rummy_env.gin.openspiel.to_openspiel``), and ``tests/gin/test_gin_openspiel.py`` holds
them to the real bot's at every draw, discard, knock and wall decision of games played
in OpenSpiel.

Under the ``openspiel`` preset our rules are OpenSpiel's: at the wall (``wall_knock``) the
bot takes the discard (OpenSpiel's knock there) when OpenSpiel's least deadwood of its
hand with that card is within the knock card, else passes, and then puts down its usual
card. Under rules that forbid discarding, or knocking with, the card just taken
(``discard_taken_card: false``, e.g. ``classic``) the bot's choice may not be legal
here: then its next card in the same order is played (a knock only if one is legal with
it). Under rules without the wall knock the wall is never reached (hands end drawn
there). It plays OpenSpiel's card values only: aces low, face cards 10, others their
rank (no ``aces: high``, no ``five_under_ten``).
"""

from __future__ import annotations

import functools
from typing import Any, Optional

import numpy as np

from rummy_env.agents.base import Agent, game_input, legal_actions
from rummy_env.core.cards import NUM_RANKS, mask_to_cards
from rummy_env.gin.game import BIG_GIN, DISCARD, DRAW_STOCK, KNOCK, PASS, TAKE_DISCARD, InformationSet, Phase
from rummy_env.gin.openspiel import from_openspiel, pyspiel_module, to_openspiel
from rummy_env.gin.rules import Rules

@functools.lru_cache(maxsize=1)
def utils() -> Any:
    """OpenSpiel's ``GinRummyUtils`` for the standard deck and 10-card hands, or an
    ImportError saying how to install open_spiel."""
    return pyspiel_module().gin_rummy.GinRummyUtils(NUM_RANKS, 4, 10)


def best_deadwood(hand: list[int], card: Optional[int] = None) -> list[int]:
    """The cards of ``hand`` (+ ``card``), OpenSpiel ids in the order given, that the best
    meld group leaves over (the bot's ``GetBestDeadwood``)."""
    cards = hand + [card] if card is not None else list(hand)
    melded = {c for meld in utils().best_meld_group(cards) for c in meld}
    return [c for c in cards if c not in melded]


def discard_order(hand: list[int]) -> list[int]:
    """The bot's cards to discard from an 11-card ``hand`` (sorted OpenSpiel ids), best
    first: its ``GetDiscard`` choice, then the next ones in the same order (the left-over
    cards by rank, highest first, ties the highest id; then every other card, for when a
    rule here forbids those)."""
    left = best_deadwood(hand)
    if left:
        ranked = sorted(left, key=lambda c: c % NUM_RANKS)  # stable, as its sort of <= 11 cards
        return ranked[::-1] + [c for c in hand if c not in left]
    keeps_gin = [c for c in hand if utils().min_deadwood([x for x in hand if x != c]) == 0]
    return keeps_gin + [c for c in hand if c not in keeps_gin]


def takes_upcard(hand: list[int], upcard: int, knock_card: int) -> bool:
    """The bot's draw: take the upcard (else draw from the stock, or pass at the offer)."""
    return utils().min_deadwood(hand, upcard) <= knock_card or upcard not in best_deadwood(hand, upcard)


def knocks(hand: list[int], knock_card: int) -> bool:
    """The bot's knock: the least deadwood of the 11 cards within the knock card."""
    return utils().min_deadwood(hand) <= knock_card


class OpenSpielSimpleAgent(Agent):
    name = "openspiel-simple"
    game = "gin"
    extra = "openspiel"

    def __init__(self, seed: Optional[int] = None) -> None:
        super().__init__(seed)  # it draws no random numbers: the seed changes nothing
        utils()  # open_spiel is there, or a clear error now rather than at the first move

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any]) -> int:
        infoset, rules = game_input(self, observation, info)
        return self.choose(infoset, rules, set(legal_actions(observation).tolist()))

    def choose(self, info: InformationSet, rules: Rules, legal: set[int]) -> int:
        """The bot's move from an information set and the legal actions (module docstring)."""
        if rules.aces_high or rules.five_under_ten:
            raise ValueError("openspiel-simple plays OpenSpiel's card values only (aces low, no five_under_ten); "
                             f"these rules have aces={rules.aces!r}, five_under_ten={rules.five_under_ten}")
        if len(legal) == 1:
            return next(iter(legal))
        hand = sorted(to_openspiel(c) for c in mask_to_cards(info.hand))
        if info.phase == Phase.DRAW and PASS in legal:  # the wall: its knock there takes the discard
            top = to_openspiel(info.discard_pile[-1])
            return TAKE_DISCARD if TAKE_DISCARD in legal and utils().min_deadwood(hand, top) <= info.knock_limit else PASS
        if info.phase in (Phase.OFFER, Phase.DRAW):
            if TAKE_DISCARD in legal and takes_upcard(hand, to_openspiel(info.discard_pile[-1]), info.knock_limit):
                return TAKE_DISCARD
            return PASS if PASS in legal else DRAW_STOCK
        order = [from_openspiel(c) for c in discard_order(hand)]
        if knocks(hand, info.knock_limit) or not any(DISCARD <= a < KNOCK for a in legal):  # after a take at the wall
            for card in order:
                if KNOCK + card in legal:
                    return KNOCK + card
        for card in order:
            if DISCARD + card in legal:
                return DISCARD + card
        return BIG_GIN if BIG_GIN in legal else min(legal)  # not reached: some discard or knock is always legal

