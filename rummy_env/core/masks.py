"""Reading action masks: the ids of a mask's legal entries, fast for every game's width.

Why a module of its own: agents (``rummy_env.agents.base.legal_actions``), the array
policies, the Gymnasium views and every network's move picking
(``rummy_env.agents.network_moves``) turn masks into ids, and the fast way depends on a
numpy detail worth keeping in one place. numpy finds the nonzero entries of a bool array
several times faster than those of an int8 one; over Rommé's 5,776 actions that is 1.8 us
instead of 9.8 a mask, more than the rest of a random agent's move. The envs' own masks
(``ActionMask``) use the same detail, so that the loop users write,
``np.flatnonzero(obs["action_mask"])``, gets it too.
"""

from __future__ import annotations

from typing import Any

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


# From this many actions on, an env hands out its masks as ``ActionMask``s: below it numpy's
# own int8 search costs less than the subclass's Python-level call (measured: Gin Rummy's
# 108 actions 1.1 us plain, 1.5 us as an ``ActionMask``; Rommé's 5,776 8.7 us against 1.9).
WIDE_MASK = 512


class ActionMask(np.ndarray):
    """An env's int8 action mask that finds its nonzero entries as booleans: ``nonzero()``,
    and so ``np.nonzero`` and ``np.flatnonzero``, give exactly the entries numpy gives for
    the int8 array (any nonzero byte counts, ``_as_bools``), 4.5x faster over Rommé's 5,776
    actions. In every other way the int8 ndarray it views (dtype, shape, space membership,
    ``torch.as_tensor``, pickling); arithmetic, comparisons and ``astype`` on it give plain
    arrays, so the subclass stays with the masks the envs hand out. ``env_mask`` makes one."""

    def nonzero(self) -> tuple[np.ndarray, ...]:
        return _as_bools(self.view(np.ndarray)).nonzero()

    def astype(self, *args: Any, **kwargs: Any) -> np.ndarray:
        return self.view(np.ndarray).astype(*args, **kwargs)

    def __array_wrap__(self, array, context=None, return_scalar=False):
        if return_scalar:
            return array[()]
        return array.view(np.ndarray)


def env_mask(mask: np.ndarray) -> np.ndarray:
    """``mask`` as an env hands it out: an ``ActionMask`` view (no copy) from ``WIDE_MASK``
    actions on (Basic Rummy's and Rommé's), else the array itself (Gin Rummy's)."""
    return mask.view(ActionMask) if mask.shape[-1] >= WIDE_MASK else mask
