"""Reading action masks: the ids of a mask's legal entries, fast for every game's width.

Why a module of its own: agents (``rummy_env.agents.base.legal_actions``), the array
policies and the Gymnasium views all turn masks into ids, and the fast way depends on a
numpy detail worth keeping in one place. numpy finds the nonzero entries of a bool array
several times faster than those of an int8 one; over Rommé's 5,776 actions that is 1.8 us
instead of 9.8 a mask, more than the rest of a random agent's move.
"""

from __future__ import annotations

import numpy as np


def mask_ids(mask: np.ndarray) -> np.ndarray:
    """The ids of ``mask``'s nonzero entries (flattened), increasing. A mask of one-byte
    integers (the envs' int8 masks) is read as booleans, where numpy counts any nonzero
    byte as true, as it counts the int8 entry: the same ids, found faster. Other dtypes
    are read as they are."""
    m = np.asarray(mask)
    if m.dtype.itemsize == 1 and m.dtype.kind in "iu":
        m = m.view(np.bool_)
    return np.flatnonzero(m)
