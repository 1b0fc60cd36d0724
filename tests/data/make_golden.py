"""Writes golden_game.json: one recorded hand (seed 272, random play that knocks when it
can) with its actions, result and a digest of every observation. Rerun only when a
change of behaviour is intended, and bump the env version then.

    python tests/data/make_golden.py
"""

import json
from pathlib import Path

import numpy as np

from rummy_env.gin import encoding

if __package__:  # imported by the tests (data.make_...)
    from . import digest
else:  # run as a script: this folder is on the path
    import digest
from rummy_env.gin.game import KNOCK, GinRummyState

SEED = 272


def observation_digest(deck, dealer, actions) -> str:
    """SHA-256 over both seats' flat and planes observations before every action and at the end."""
    return digest.observation_digest(GinRummyState.from_deck(deck, "classic", dealer), encoding, actions,
                                     mask_each_seat=True)


def main() -> None:
    rng = np.random.default_rng(SEED)
    s = GinRummyState.new_hand("classic", seed=SEED, dealer=1)
    while not s.is_over:
        legal = s.legal_actions()
        knocks = [a for a in legal if a >= KNOCK]
        s.step(knocks[0] if knocks else int(rng.choice(legal)))
    record = {
        "rules": "classic",
        "dealer": s.dealer,
        "deck": list(s.deck),
        "actions": s.history,
        "result": s.result.to_dict(),
        "observation_sha256": observation_digest(s.deck, s.dealer, s.history),
    }
    Path(__file__).with_name("golden_game.json").write_text(json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
