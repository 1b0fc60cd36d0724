"""One recorded hand must replay identically: actions, result and every observation.

The record (tests/data/golden_game.json, written by tests/data/make_golden.py) was checked
by hand: player_1 knocks holding 4C 5C 6C, 5H 6H 7H and deadwood AD 4D AS 4S (10; the set
4C 4D 4S instead would leave 13). player_0 lays 3C on the clubs and 4H on the hearts and
keeps AC KC QD JH QH 2S 7S TS: 1 + 10 + 10 + 10 + 10 + 2 + 7 + 10 = 60. Knock: 60 - 10 = 50.
"""

import json
from pathlib import Path

from rummy_env.gin.game import GinRummyState

RECORD = json.loads((Path(__file__).resolve().parents[1] / "data" / "golden_game.json").read_text())


def test_golden_game_replays_identically():
    from data.make_golden import observation_digest

    s = GinRummyState.from_deck(RECORD["deck"], RECORD["rules"], RECORD["dealer"])
    for a in RECORD["actions"]:
        s.step(a)
    assert s.is_over
    assert s.result.to_dict() == RECORD["result"]
    assert RECORD["result"]["points"] == 50 and RECORD["result"]["winner"] == 1
    assert RECORD["result"]["defender_deadwood"] == 60 and RECORD["result"]["knocker_deadwood"] == 10
    assert observation_digest(RECORD["deck"], RECORD["dealer"], RECORD["actions"]) == RECORD["observation_sha256"]
