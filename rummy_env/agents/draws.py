"""Counter-based random draws: an agent's random choice as a pure function of (its key,
the decision index, the option), the same one game at a time and over arrays of games.

Why: an agent that draws from its own generator (``Agent.rng``) makes choices that depend
on everything it drew before in its game, which an array version playing thousands of
games at once cannot reproduce without a Python loop per game. A counter-based hash has
no state: ``noise(key, decision, option)`` is computed from its arguments alone, so
``RandomAgent.act`` on decision 7 of a game and the array policy on row ``g`` with key and
decision 7 compute the very same number, by construction, and so make the same move.
Tournaments use it to play many deals of a pair at once with the same results as the
games played one by one (``rummy_env.eval``).

The hash is splitmix64's finaliser (Steele, Lea and Flood, 2014), chained over the key, the
decision and the option in 64-bit unsigned arithmetic: Python integers masked to 64 bits
one at a time, numpy ``uint64`` arrays (which wrap) for many. A float is the top 53 bits
of a hash times 2**-53: exact in both, in [0, 1).

An agent's key is its seed modulo 2**64 (``key_of``); the decision index counts the
agent's ``act`` calls since it was made or re-seeded (``Agent.next_decision``). In a
tournament the seed derives from the game's identity (``rummy_env.eval.games``), so the
key and the index together name one decision of one game.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

MASK64 = (1 << 64) - 1
_GAMMA, _M1, _M2 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB
_UNIT = 1.0 / (1 << 53)
_GAMMA64, _M1_64, _M2_64 = np.uint64(_GAMMA), np.uint64(_M1), np.uint64(_M2)
_S30, _S27, _S31, _S11 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(11)


def key_of(seed: Optional[int]) -> int:
    """The 64-bit key of an agent seeded with ``seed`` (an integer; None: a fresh random key,
    as an unseeded generator is)."""
    if seed is None:
        return int(np.random.SeedSequence().generate_state(1, dtype=np.uint64)[0])
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"an agent seed must be an integer or None, got {seed!r}")
    return int(seed) % (1 << 64)


def mix(x: int) -> int:
    """splitmix64 of one 64-bit integer."""
    z = (x + _GAMMA) & MASK64
    z = ((z ^ (z >> 30)) * _M1) & MASK64
    z = ((z ^ (z >> 27)) * _M2) & MASK64
    return z ^ (z >> 31)


def mix_array(x: np.ndarray) -> np.ndarray:
    """splitmix64 of every element of a ``uint64`` array (``mix`` element-wise)."""
    z = x + _GAMMA64
    z = (z ^ (z >> _S30)) * _M1_64
    z = (z ^ (z >> _S27)) * _M2_64
    return z ^ (z >> _S31)


def _decision_hash(key: int, decision: int) -> int:
    return mix(mix(key) ^ (decision & MASK64))


def _decision_hashes(keys: np.ndarray, decisions: np.ndarray) -> np.ndarray:
    keys = np.asarray(keys, dtype=np.uint64)
    decisions = np.asarray(decisions).astype(np.uint64)
    return mix_array(mix_array(keys) ^ decisions)


def uniform(key: int, decision: int) -> float:
    """One float in [0, 1) for decision ``decision`` of the agent keyed ``key``."""
    return (_decision_hash(key, decision) >> 11) * _UNIT


def uniforms(keys: np.ndarray, decisions: np.ndarray) -> np.ndarray:
    """``uniform`` of each (key, decision) pair of two (n,) arrays, as float64 (n,)."""
    return (_decision_hashes(keys, decisions) >> _S11).astype(np.float64) * _UNIT


def noise(key: int, decision: int, option: int) -> float:
    """A float in [0, 1) for ``option`` (an action or card id) at decision ``decision``:
    the agent's tie-break key for that option (the largest wins)."""
    return (mix(_decision_hash(key, decision) ^ option) >> 11) * _UNIT


def noise_table(keys: np.ndarray, decisions: np.ndarray, width: int, start: int = 0) -> np.ndarray:
    """(n, width) float64: ``noise(keys[r], decisions[r], o)`` for every row r and option o
    in ``start``..``start + width - 1`` (options past the card ids give a decision more
    numbers that are independent of its tie-breaks)."""
    h = _decision_hashes(keys, decisions)
    options = np.arange(start, start + width, dtype=np.uint64)
    return (mix_array(h[:, None] ^ options[None, :]) >> _S11).astype(np.float64) * _UNIT


def pick(key: int, decision: int, count: int) -> int:
    """An index in 0..count-1, uniform: ``floor(uniform * count)``."""
    return int(uniform(key, decision) * count)


def picks(keys: np.ndarray, decisions: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``pick`` of each row, as int64 (n,)."""
    return (uniforms(keys, decisions) * np.asarray(counts)).astype(np.int64)
