"""Writes rummy_golden_game.json: one recorded Basic Rummy hand for 3 players (random play
that melds and lays off when it can) with its actions, result and a digest of every
observation. Rerun only when a change of behaviour is intended, and bump the env version.

    python tests/data/make_rummy_golden.py
"""

import json
from pathlib import Path

import numpy as np

from rummy_env.basic import encoding as rummy_encoding

if __package__:  # imported by the tests (data.make_...)
    from . import digest
else:  # run as a script: this folder is on the path
    import digest
from rummy_env.basic.game import LAYOFF, MELD, BasicRummyState

SEED = 23
PLAYERS = 3


def observation_digest(deck, dealer, actions, num_players=PLAYERS) -> str:
    """SHA-256 over every seat's flat and planes observations and the mask, before every
    action and at the end."""
    return digest.observation_digest(BasicRummyState.from_deck(deck, num_players, "basic", dealer), rummy_encoding,
                                     actions)


def play(seed: int) -> BasicRummyState:
    rng = np.random.default_rng(seed)
    s = BasicRummyState.new_hand(PLAYERS, "basic", seed=seed, dealer=seed % PLAYERS)
    while not s.is_over:
        legal = s.legal_actions()
        plays = [a for a in legal if a >= MELD]
        s.step(int(rng.choice(plays)) if plays else int(rng.choice(legal)))
    return s


def main() -> None:
    s = play(SEED)
    assert s.result.winner is not None and any(a >= LAYOFF for _, a in s.history)
    record = {
        "rules": "basic",
        "num_players": PLAYERS,
        "dealer": s.dealer,
        "deck": list(s.deck),
        "actions": [a for _, a in s.history],
        "result": s.result.to_dict(),
        "observation_sha256": observation_digest(s.deck, s.dealer, [a for _, a in s.history]),
    }
    Path(__file__).with_name("rummy_golden_game.json").write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
