"""``mask_ids``: the ids of a mask's nonzero entries, read fast from one-byte masks, must be
exactly ``np.flatnonzero``'s for every dtype and every byte value."""

import pickle

import numpy as np
import pytest

from rummy_env.agents import legal_actions
from rummy_env.core.masks import WIDE_MASK, ActionMask, mask_id_rows, mask_ids


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.bool_, np.int64, np.float32])
def test_mask_ids_are_the_nonzero_entries_of_any_mask(dtype):
    rng = np.random.default_rng(5)
    for width in (1, 7, 110, 5776):
        raw = rng.integers(-128, 128, width)
        raw[rng.random(width) < 0.7] = 0  # mostly illegal, as masks are
        mask = raw.astype(dtype) if dtype is not np.uint8 else (raw % 256).astype(np.uint8)
        got = mask_ids(mask)
        assert got.tolist() == np.flatnonzero(mask).tolist()
        assert got.dtype == np.intp


def test_a_byte_other_than_one_counts_as_legal_as_numpy_counts_it():
    mask = np.zeros(5776, dtype=np.int8)
    mask[[3, 4, 100, 5775]] = [1, -1, 2, 127]
    assert mask_ids(mask).tolist() == [3, 4, 100, 5775]


def test_a_mask_of_several_rows_gives_flat_ids():
    mask = np.zeros((3, 5), dtype=np.int8)
    mask[1, 2] = mask[2, 0] = 1
    assert mask_ids(mask).tolist() == [7, 10]
    assert mask_ids(mask[:, 1:]).tolist() == np.flatnonzero(mask[:, 1:]).tolist()  # a view that is not contiguous


def test_legal_actions_reads_the_mask_so():
    mask = np.zeros(5776, dtype=np.int8)
    mask[[0, 4000]] = 1
    assert legal_actions({"action_mask": mask}).tolist() == [0, 4000]
    with pytest.raises(ValueError, match="empty action mask"):
        legal_actions({"action_mask": np.zeros(5776, dtype=np.int8)})


def test_mask_id_rows_lists_each_rows_ids_padded():
    rng = np.random.default_rng(7)
    mask = (rng.random((40, 5776)) < 0.004).astype(np.int8)
    mask[3] = 0  # a row with none
    mask[5, [0, 5775]] = [-1, 2]  # any nonzero byte counts, as for np.nonzero
    rows = mask_id_rows(mask)
    assert rows.dtype == np.int64 and rows.shape == (40, max(np.count_nonzero(mask, axis=1)))
    for row, ids in zip(mask, rows):
        want = np.flatnonzero(row).tolist()
        assert ids.tolist() == want + [-1] * (rows.shape[1] - len(want))
    assert mask_id_rows(np.zeros((2, 9), dtype=bool)).tolist() == [[-1], [-1]]


def test_an_action_mask_finds_exactly_numpys_entries_and_is_plain_int8_otherwise():
    rng = np.random.default_rng(11)
    raw = rng.integers(-128, 128, (2, 5776)).astype(np.int8)
    raw[rng.random(raw.shape) < 0.9] = 0
    for plain in (raw[0], raw, raw[:, ::3], np.zeros(5776, np.int8)):
        mask = plain.view(ActionMask)
        assert np.flatnonzero(mask).tolist() == np.flatnonzero(plain).tolist()
        for got, want in zip(np.nonzero(mask), np.nonzero(plain)):
            assert got.tolist() == want.tolist()
    mask = raw[0].view(ActionMask)
    # arithmetic, comparisons, conversions and stacks give plain arrays; the values are the int8 ones
    for derived in (mask == 1, mask * 2, mask.astype(np.float32), mask.astype(bool), np.asarray(mask),
                    np.stack([mask, mask])):
        assert type(derived) is np.ndarray
    assert (mask * 2).dtype == np.int8 and mask.sum() == raw[0].astype(np.int64).sum()
    assert pickle.loads(pickle.dumps(mask)).tolist() == raw[0].tolist()

