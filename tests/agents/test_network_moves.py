"""``network_actions`` reads only each row's legal entries: its moves, greedy and sampled,
must be exactly those of the whole-row formula it replaced, draw for draw, ties and a draw
landing past the last legal entry included."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from rummy_env.agents.network_moves import network_actions  # noqa: E402


def _whole_rows(logp, mask, greedy, rng):
    """The moves as the whole rows give them (the formula before): the first most probable
    legal action; the draw's action by running sums over every entry of the row."""
    if greedy:
        action = np.argmax(np.where(mask, logp, -np.inf), axis=1)
    else:
        cumulative = np.cumsum(np.where(mask, np.exp(logp.astype(np.float64)), 0.0), axis=1)
        u = rng.random(len(logp)) * cumulative[:, -1]
        action = np.minimum(np.argmax(cumulative > u[:, None], axis=1), mask.shape[1] - 1)
        bad = ~mask[np.arange(len(action)), action]
        if bad.any():
            action[bad] = [int(np.flatnonzero(m)[-1]) for m in mask[bad]]
    return action


class _Given:
    """A stand-in network returning the log-probabilities it was made with."""

    def __init__(self, logp):
        self.logp = torch.from_numpy(logp)

    def __call__(self, obs, mask):
        return self.logp, torch.zeros(len(self.logp))


@pytest.mark.parametrize("width", [110, 5776])
def test_the_moves_are_those_of_the_whole_rows_draw_for_draw(width):
    rng = np.random.default_rng(width)
    n = 300
    mask = rng.random((n, width)) < 20 / width
    mask[np.arange(n), rng.integers(0, width, n)] = True
    logp = rng.normal(0, 2, (n, width)).astype(np.float32)
    logp[::7] = np.round(logp[::7])  # ties among the legal entries
    logp[5] = -1e9  # every legal entry's probability 0: the draw lands past the last one
    mask[5, 0] = False  # ... where action 0 is not legal: the row's last legal action
    logp[6] = -1e9
    mask[6, 0] = True  # ... where it is: action 0, as the whole row's running sums give
    logp[~mask] = -1e9
    net = _Given(logp)
    for greedy in (True, False):
        for seed in range(3):
            got, got_logp, values = network_actions(net, np.zeros((n, 1)), mask, greedy, np.random.default_rng(seed))
            want = _whole_rows(logp, mask, greedy, np.random.default_rng(seed))
            np.testing.assert_array_equal(got, want)
            np.testing.assert_array_equal(got_logp, logp[np.arange(n), want])
            assert got.dtype == np.int64 and values.shape == (n,)
    sampled = network_actions(net, np.zeros((n, 1)), mask, False, np.random.default_rng(0))[0]
    assert sampled[5] == np.flatnonzero(mask[5])[-1] and sampled[6] == 0


def test_a_row_without_a_legal_action_is_refused():
    mask = np.zeros((3, 110), dtype=bool)
    mask[[0, 2], 4] = True
    with pytest.raises(ValueError, match="row 1 of the mask has no legal action"):
        network_actions(_Given(np.zeros((3, 110), np.float32)), np.zeros((3, 1)), mask, True)
