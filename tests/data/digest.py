"""The observation digest of a recorded hand, shared by the golden-record writers
(make_golden.py, make_rummy_golden.py) and the tests that replay their records."""

import hashlib

from rummy_env.core.textview import array_encodings


def observation_digest(state, encoding, actions, mask_each_seat: bool = False) -> str:
    """SHA-256 over every seat's observations in each of ``encoding.ENCODINGS`` and the
    legal mask, before every action of ``actions`` (played on ``state``, a fresh deal) and
    at the end. ``mask_each_seat``: the mask is hashed after each seat's observations (how
    the Gin record was written), else once a step."""
    h = hashlib.sha256()
    for a in list(actions) + [None]:
        for seat in range(state.num_players):
            info = state.information_set(seat)
            for enc in array_encodings(encoding.ENCODINGS):  # the arrays the records were written with
                h.update(encoding.encode(info, state.rules, enc).tobytes())
            if mask_each_seat:
                h.update(state.legal_mask().tobytes())
        if not mask_each_seat:
            h.update(state.legal_mask().tobytes())
        if a is not None:
            state.step(a)
    return h.hexdigest()
