"""What observation encoders share: named 52-wide card slices, then scalars, as a flat
vector or as 4 x 13 planes, and the ``Encoding`` objects a game registers.

Why named slices: every entry of an observation has a name and a documented meaning
(the games' encoding modules list them), the flat and planes views are two layouts of
the same numbers, and tests and docs read the positions from here, so they cannot drift.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Optional, Sequence

import numpy as np

from rummy_env.core import melds
from rummy_env.core.cards import NUM_CARDS
from rummy_env.core.compiled import UNDECIDED, Compiled

FlatEncoder = Callable[[Any, Any, Optional[Sequence[int]]], np.ndarray]  # (info, rules, scores) -> flat vector


def masks_to_bits(masks) -> np.ndarray:
    """52-bit masks (shape S) -> float32 0/1 array of shape S + (52,)."""
    m = np.ascontiguousarray(masks, dtype="<u8")
    bits = np.unpackbits(m[..., None].view(np.uint8), axis=-1, bitorder="little")[..., :NUM_CARDS]
    return bits.astype(np.float32)


def write_card_bits(out: np.ndarray, masks: Sequence[int]) -> None:
    """Write 52-bit Python-int ``masks`` as 0/1 into ``out[: 52 * len(masks)]`` (float32).

    The scalar twin of ``masks_to_bits`` for one observation: the masks are packed into
    one Python int and unpacked by numpy in one call, which is about three times faster
    than building a uint64 array first (a per-step cost of every observation)."""
    packed = 0
    for i, m in enumerate(masks):
        packed |= m << (NUM_CARDS * i)
    n = NUM_CARDS * len(masks)
    out[:n] = np.unpackbits(np.frombuffer(packed.to_bytes((n + 7) // 8, "little"), np.uint8), count=n, bitorder="little")


class CompiledEncoder(Compiled):
    """A game's flat encoder (a ``FlatEncoder``): its compiled version when that can be
    used, else its Python one; decided on the first call (``rummy_env.core.compiled``).

    Why one mechanism: each game writes its observation in Python, and, with numba, in one
    compiled call (``rummy_env/gin/encoding_jit.py``, ``rummy_env/basic/encoding_jit.py``),
    a third of an env step less. The compiled one (``load()``, which imports numba) is used
    when the meld solver's compiled kernels are (numba installed, not switched off with
    ``RUMMY_ENV_NO_NUMBA=1``) and it gives the Python encoder's very arrays on every
    ``(info, rules, scores)`` of ``cases()``; otherwise the Python one, with one warning
    naming ``what`` when the compiled one disagrees or fails to compile. ``chosen`` is the
    encoder in use once decided (tests may set it)."""

    def __init__(self, python: FlatEncoder, load: Callable[[], FlatEncoder], cases: Callable[[], Iterable[tuple]],
                 what: str) -> None:
        super().__init__(f"the compiled {what}", load, self._disagreement, "observations are built in Python",
                         needs=melds.KERNELS, otherwise=python)
        self.python, self._cases = python, cases

    def __call__(self, info: Any, rules: Any, scores: Optional[Sequence[int]]) -> np.ndarray:
        chosen = self.chosen  # read directly: one env step, one encoder call
        if chosen is UNDECIDED:
            chosen = self.get()
        return chosen(info, rules, scores)

    def _disagreement(self, encoder: FlatEncoder) -> str:
        """'' when ``encoder`` gives the Python encoder's arrays on every case, else what differs."""
        for info, rules, scores in self._cases():
            if not np.array_equal(encoder(info, rules, scores), self.python(info, rules, scores)):
                return "it disagrees with the Python encoder"
        return ""


def random_positions(state: Any, rng: np.random.Generator) -> Iterable[Any]:
    """``state`` at each position of a uniformly random playing of it, to its end (the same
    object, stepped in place): positions for a compiled encoder's check."""
    while True:
        yield state
        if state.is_over:
            return
        legal = state.legal_actions()
        state.step(legal[rng.integers(len(legal))])


class CardLayout:
    """``card_slices`` (52 wide, card-id order) then single ``scalars``, as a flat vector of
    ``flat_size`` or as planes of ``planes_shape`` (each card slice a 4 x 13 plane, suit
    rows and rank columns, then each scalar a constant plane)."""

    def __init__(self, card_slices: Sequence[str], scalars: Sequence[str]) -> None:
        self.card_slices = tuple(card_slices)
        self.scalars = tuple(scalars)
        self.card_size = len(self.card_slices) * NUM_CARDS
        self.flat_size = self.card_size + len(self.scalars)
        self.planes_shape = (len(self.card_slices) + len(self.scalars), 4, 13)

    def slices(self) -> dict[str, slice]:
        """Where each named part lies in the flat vector."""
        out, pos = {}, 0
        for name in self.card_slices:
            out[name] = slice(pos, pos + NUM_CARDS)
            pos += NUM_CARDS
        for name in self.scalars:
            out[name] = slice(pos, pos + 1)
            pos += 1
        return out

    def planes(self, flat: np.ndarray, out: Optional[np.ndarray] = None) -> np.ndarray:
        """Flat vectors (..., flat_size) as planes (..., *planes_shape), written into ``out``
        when it is given (float32 of that shape)."""
        lead = flat.shape[:-1]
        if out is None:
            out = np.empty(lead + self.planes_shape, dtype=np.float32)
        k = len(self.card_slices)
        out[..., :k, :, :] = flat[..., : self.card_size].reshape(lead + (k, 4, 13))
        out[..., k:, :, :] = flat[..., self.card_size :, None, None]
        return out


class FlatEncoding:
    """The ``flat`` view of a layout: ``encode_flat(info, rules, scores)`` as it is.

    ``high_flat(rules)`` gives the upper bounds of the flat vector, ``low_flat(rules)`` its
    lower bounds (None: every entry is at least 0); the env's observation space is the box
    between them."""

    name = "flat"

    def __init__(self, layout: CardLayout, encode_flat: FlatEncoder, high_flat: Callable[[Any], np.ndarray],
                 low_flat: Optional[Callable[[Any], np.ndarray]] = None) -> None:
        self.layout, self._encode, self._high, self._low = layout, encode_flat, high_flat, low_flat

    def shape(self, rules: Any = None) -> tuple[int, ...]:
        return (self.layout.flat_size,)

    def high(self, rules: Any) -> np.ndarray:
        return self._high(rules)

    def low(self, rules: Any) -> np.ndarray:
        if self._low is None:
            return np.zeros(self.layout.flat_size, dtype=np.float32)
        return self._low(rules)

    def encode(self, info: Any, rules: Any, scores: Optional[Sequence[int]] = None) -> np.ndarray:
        return self._encode(info, rules, scores)

    def encode_batch(self, engine: Any, players: Optional[np.ndarray] = None,
                     out: Optional[np.ndarray] = None) -> np.ndarray:
        """Observations (N, flat_size) of many games of a vector engine: the rows the
        engine's ``observe_flat`` writes from the game's layout (``rummy_env.core.vector``)."""
        return engine.observe_flat(players, out)


class PlanesEncoding(FlatEncoding):
    """The ``planes`` view of a layout, for convolutional networks."""

    name = "planes"

    def shape(self, rules: Any = None) -> tuple[int, ...]:
        return self.layout.planes_shape

    def high(self, rules: Any) -> np.ndarray:
        return self.layout.planes(self._high(rules))

    def low(self, rules: Any) -> np.ndarray:
        return self.layout.planes(super().low(rules))

    def encode(self, info: Any, rules: Any, scores: Optional[Sequence[int]] = None) -> np.ndarray:
        return self.layout.planes(self._encode(info, rules, scores))

    def encode_batch(self, engine: Any, players: Optional[np.ndarray] = None,
                     out: Optional[np.ndarray] = None) -> np.ndarray:
        """Observations (N, *planes_shape): the engine's flat rows laid out as planes."""
        return self.layout.planes(engine.observe_flat(players), out)


def standard_encodings(layout: CardLayout, encode_flat: FlatEncoder, high_flat: Callable[[Any], np.ndarray],
                       low_flat: Optional[Callable[[Any], np.ndarray]] = None) -> dict[str, FlatEncoding]:
    """``{"flat": ..., "planes": ...}`` for a game's layout: the dict a game registers its
    encodings in (``Game.add_encoding`` adds to it). ``low_flat``: lower bounds where some
    entry can be negative (None: 0)."""
    return {cls.name: cls(layout, encode_flat, high_flat, low_flat) for cls in (FlatEncoding, PlanesEncoding)}


def lookup(encodings: dict, name: str) -> Any:
    """``encodings[name]``, or a ValueError naming the encodings there are."""
    if name not in encodings:
        raise ValueError(f"unknown encoding {name!r}; choose one of {tuple(encodings)}")
    return encodings[name]


def observation_space(encoding: Any, rules: Any) -> Any:
    """The space of ``encoding``'s observations under ``rules``: its own ``space(rules)``
    where it has one (a text view's ``gymnasium.spaces.Text``: ``rummy_env.core.textview``),
    else the float32 box of its ``shape`` between ``low`` (0 without one) and ``high``."""
    from gymnasium import spaces

    own = getattr(encoding, "space", None)
    if callable(own):
        return own(rules)
    high = np.asarray(encoding.high(rules), dtype=np.float32)
    low = encoding.low(rules) if hasattr(encoding, "low") else 0.0  # ``low`` is optional: 0
    return spaces.Box(low, high, tuple(encoding.shape(rules)), dtype=np.float32)
