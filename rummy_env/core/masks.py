"""Reading action masks: the ids of a mask's legal entries, fast for every game's width.

Why a module of its own: agents (``rummy_env.agents.base.legal_actions``), the array
policies, the Gymnasium views and every network's move picking
(``rummy_env.agents.network_moves``) turn masks into ids, and the fast way depends on a
numpy detail worth keeping in one place. numpy finds the nonzero entries of a bool array
several times faster than those of an int8 one; over Rommé's 5,776 actions that is 1.8 us
instead of 9.8 a mask, more than the rest of a random agent's move.
"""

from __future__ import annotations

import numpy as np


def _as_bools(mask: np.ndarray) -> np.ndarray:
    """A mask of one-byte integers (the envs' int8 masks) as booleans, where numpy counts
    any nonzero byte as true, as it counts the int8 entry: the same entries, found faster.
    Other dtypes as they are."""
    m = np.asarray(mask)
    return m.view(np.bool_) if m.dtype.itemsize == 1 and m.dtype.kind in "iu" else m


def mask_ids(mask: np.ndarray) -> np.ndarray:
    """The ids of ``mask``'s nonzero entries (flattened), increasing."""
    return np.flatnonzero(_as_bools(mask))


def mask_id_rows(mask: np.ndarray) -> np.ndarray:
    """(n, the most in a row) int64: each row of the (n, actions) ``mask``, its nonzero
    entries' ids, increasing, padded with -1 (at least one column)."""
    rows, ids = np.nonzero(_as_bools(mask))
    counts = np.bincount(rows, minlength=mask.shape[0])
    out = np.full((mask.shape[0], max(int(counts.max(initial=0)), 1)), -1, dtype=np.int64)
    starts = np.cumsum(counts) - counts
    out[rows, np.arange(rows.size) - starts[rows]] = ids
    return out
