"""Rommé's compiled game (numba) gives the Python reference's very numbers: the observation
writer (``romme.encoding_jit``) its arrays, the legal mask (``romme.legal_jit``) its actions,
and what a table meld accepts (``melds_jit.table_meld_accepts``) what ``game._accepts``
lists; in every position of random play at 2 to 6 players, under the presets and the
options that change melds, the turn and the observation. A compiled twin that disagrees is
dropped when it loads (one warning), and without the solver's kernels
(``RUMMY_ENV_NO_NUMBA=1``) the Python references run."""

import collections
import itertools

import numpy as np
import pytest

pytest.importorskip("numba")

from rummy_env.core.compiled import UNDECIDED, numba_switched_off  # noqa: E402
from rummy_env.romme import encoding, melds  # noqa: E402
from rummy_env.romme.cards import parse_kind, parse_kinds  # noqa: E402
from rummy_env.romme.game import (  # noqa: E402
    COMMIT, JOKER_AS, LAYOFF, LAYOFF_JOKER, LEGAL_KERNEL, PICK, SWAP, Phase, RommeState, TableMeld, _accepts,
    _meld_code,
)
from rummy_env.romme.match import TableScores  # noqa: E402
from rummy_env.romme.melds import Meld  # noqa: E402
from rummy_env.romme.rules import PRESETS, RommeRules  # noqa: E402

pytestmark = pytest.mark.skipif(numba_switched_off(), reason="RUMMY_ENV_NO_NUMBA is set: the kernels are off")

MELD_RULES = [RommeRules(), RommeRules(aces_around_the_corner=True), RommeRules(adjacent_jokers=True),
              RommeRules(naturals_per_meld="more_than_jokers"),
              RommeRules(aces_around_the_corner=True, adjacent_jokers=True, naturals_per_meld="more_than_jokers")]
TURN_RULES = {  # the presets, and the options that change what may end a turn or what is observed
    **PRESETS,
    "loose": RommeRules(go_out_without_discard=True, take_discard_before_out="free", adjacent_jokers=True,
                        turnover="flip"),
    "strict": RommeRules(come_out_points=40, come_out_needs_run=True, naturals_per_meld="more_than_jokers",
                         aces_around_the_corner=True, jokers=4, deal_extra_card=False),
    "corner_out": RommeRules(aces_around_the_corner=True, go_out_without_discard=True, come_out_points=0,
                             loss_limit=300, hands_per_table=5),
}


def decided_afresh(twin, monkeypatch):
    """What ``twin`` (a ``rummy_env.core.compiled.Compiled``) chooses when it decides again now."""
    monkeypatch.setattr(twin, "chosen", UNDECIDED)
    return twin.get()


def positions(rules: RommeRules, n: int, games: int, seed: int):
    """Every position of ``games`` random hands (meld-building moves preferred, so that
    tables, lay-offs and swaps come up), the same state object stepped in place."""
    for game in range(games):
        rng = np.random.default_rng([seed, n, game])
        state = RommeState.new_hand(n, rules.replace(max_turns=140), seed=rng, dealer=game % n)
        while True:
            yield state
            if state.is_over:
                break
            legal = state._legal_actions(reference=False)
            plays = [a for a in legal if a >= PICK or a == COMMIT]
            state._legal = legal
            state.step(int(rng.choice(plays)) if plays and rng.random() < 0.6 else int(rng.choice(legal)))


def random_melds(rules: RommeRules, rng: np.random.Generator, count: int):
    """Legal melds under ``rules``: every set, and ``count`` random runs (any start, length
    and joker places)."""
    for rank, size in itertools.product(range(13), (2, 3, 4)):
        for suits in itertools.combinations(range(4), size):
            for jokers in range(0, 4 - size + 1):
                meld = Meld.make_set(rank, suits, jokers)
                if meld.is_legal(rules):
                    yield meld
    made = 0
    while made < count:
        length = int(rng.integers(3, 14))
        places = [t for t in range(length) if rng.random() < 0.3]
        meld = Meld.make_run(int(rng.integers(4)), int(rng.integers(13)), length, places)
        if meld.is_legal(rules):
            made += 1
            yield meld


@pytest.mark.parametrize("rules", MELD_RULES, ids=range(len(MELD_RULES)))
def test_what_a_table_meld_accepts_equals_the_reference(rules):
    flags = (rules.aces_around_the_corner, rules.adjacent_jokers, rules.naturals_per_meld == "more_than_jokers")
    seen = collections.Counter()
    for meld in random_melds(rules, np.random.default_rng(3), 3000):
        lay, joker_kinds, swaps = _accepts(meld, rules)
        naturals = [k for k, _ in lay if k != 52]
        want = (sum(1 << k for k in set(naturals)), sum(1 << k for k in set(naturals) if naturals.count(k) == 2),
                sum(1 << k for k in joker_kinds), sum(1 << k for k in swaps))
        got = melds._kernels().table_meld_accepts(*_meld_code(meld), *flags)
        assert tuple(int(x) for x in got) == want, meld
        seen["takes"] += want[0] != 0
        seen["twice"] += want[1] != 0
        seen["joker"] += want[2] != 0
        seen["swap"] += want[3] != 0
    assert seen["takes"] > 500 and seen["joker"] > 300 and seen["swap"] > 300, seen
    if rules.aces_around_the_corner:
        assert seen["twice"] > 0, seen  # a run of 12 around the corner takes its missing rank at both ends


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_compiled_observation_equals_the_python_encoder(n):
    from rummy_env.romme import encoding_jit

    seen = collections.Counter()
    for name in ("romme", "romme_40_run", "loose", "corner_out"):
        rules = TURN_RULES[name]
        totals = TableScores(tuple(range(-290, -290 + 97 * n, 97)), 4)
        for i, state in enumerate(positions(rules, n, 2, 11)):
            scores = (None, totals, tuple(range(n)))[i % 3]  # outside a table, at one, totals without hands played
            for seat in {state.current_player, i % n}:
                info = state.information_set(seat)
                got = encoding_jit.encode_flat(info, rules, scores)
                want = encoding._python_encode_flat(info, rules, scores)
                assert got.dtype == want.dtype == np.float32
                np.testing.assert_array_equal(got, want, err_msg=f"{name}, seat {seat}\n{state.render()}")
            seen["positions"] += 1
            seen["table"] += bool(state.table)
            seen["pending joker"] += any(c >= 104 for c, _ in state.pending)
            seen["public stock"] += state.stock_public
            seen["known"] += any(state.known)
    assert seen["positions"] > 600 and seen["table"] > 200 and seen["pending joker"] > 5 and seen["known"] > 100, seen
    assert encoding._flat.get() is encoding_jit.encode_flat  # and the env's encoder uses it


def test_the_compiled_observation_is_dropped_if_it_disagrees_or_is_switched_off(monkeypatch):
    from rummy_env.core import melds as core_melds
    from rummy_env.romme import encoding_jit

    python = encoding._python_encode_flat
    monkeypatch.setattr(encoding_jit, "encode_flat", lambda *args: python(*args) * np.float32(0.5))
    with pytest.warns(RuntimeWarning, match="compiled Rommé observation encoder is not used .it disagrees"):
        assert decided_afresh(encoding._flat, monkeypatch) is python
    monkeypatch.undo()
    monkeypatch.setattr(core_melds.KERNELS, "chosen", None)  # RUMMY_ENV_NO_NUMBA=1, or numba missing
    assert decided_afresh(encoding._flat, monkeypatch) is python


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_compiled_legal_mask_equals_the_python_mask(n):
    from rummy_env.romme import legal_jit

    seen = collections.Counter()
    for name, rules in TURN_RULES.items():
        for state in positions(rules, n, 1, 5):
            want = state._legal_actions(reference=False)
            assert legal_jit.legal_actions(state) == want, f"{name}\n{state.render()}"
            seen["positions"] += 1
            seen["pending"] += bool(state.pending)
            seen["commit"] += COMMIT in want
            seen["pick"] += any(PICK <= a < JOKER_AS for a in want)
            seen["joker_as"] += any(JOKER_AS <= a < LAYOFF for a in want)
            seen["layoff"] += any(LAYOFF <= a < LAYOFF_JOKER for a in want)
            seen["layoff_joker"] += any(LAYOFF_JOKER <= a < SWAP for a in want)
            seen["swap"] += any(a >= SWAP for a in want)
            seen["joker debt"] += state.swapped_joker is not None
            seen["must meld"] += state.must_meld_taken
    assert seen["positions"] > 600, seen
    for what in ("pending", "commit", "pick", "joker_as", "layoff", "layoff_joker", "swap", "joker debt"):
        assert seen[what] >= 3, seen
    assert LEGAL_KERNEL.get() is legal_jit  # and the game's mask uses it


def test_the_compiled_legal_mask_is_dropped_if_it_disagrees_or_is_switched_off(monkeypatch):
    from rummy_env.romme import legal_jit

    state = RommeState.new_hand(3, seed=4)
    want = state._legal_actions(reference=False)
    monkeypatch.setattr(legal_jit, "legal_actions", lambda s: s._legal_actions(reference=False)[1:])
    with pytest.warns(RuntimeWarning, match="Rommé's compiled legal mask is not used .it disagrees"):
        assert decided_afresh(LEGAL_KERNEL, monkeypatch) is None
    assert state.legal_actions() == want  # the Python mask
    monkeypatch.undo()
    monkeypatch.setattr(melds.KERNELS, "chosen", None)  # RUMMY_ENV_NO_NUMBA=1, or numba missing
    assert decided_afresh(LEGAL_KERNEL, monkeypatch) is None


def scripted(pending: str, hand: str, table: list, rules: RommeRules = RommeRules(), swapped: bool = False):
    """Seat 0 of 2 in the play phase, out, holding ``hand`` (text), building ``pending``
    (text, a joker as the card it stands for in brackets), with ``table`` (the texts of
    melds seat 1 laid); ``swapped``: the joker in hand was taken by a swap (it must be
    played). The other cards: 13 in seat 1's hand, the rest in the stock and the pile."""
    free = {k: [k, k + 52] for k in range(52)}
    free[52] = list(range(104, 104 + rules.jokers))
    melds_ = [melds.parse_meld(text, rules) for text in table]
    laid = [TableMeld(1, tuple(sorted([free[k].pop(0) for k in m.naturals] + [free[52].pop(0) for _ in
                                                                             range(m.num_jokers)])), m) for m in melds_]
    building = []
    for token in pending.split():
        kind = parse_kind(token.strip("[]"))
        building.append((free[52 if token.startswith("[") else kind].pop(0), kind))
    own = sorted(free[k].pop(0) for k in parse_kinds(hand))
    rest = [c for k in range(53) for c in free[k]]
    joker = next(c for c in own if c >= 104) if swapped else None
    return RommeState(rules=rules, num_players=2, hands=[own, sorted(rest[:13])], stock=rest[14:],
                      discard_pile=[rest[13]], dealer=1, current_player=0, phase=Phase.PLAY, table=laid,
                      came_out=[True, True], pending=building, swapped_joker=joker,
                      known=[[joker] if swapped else [], []])


def same_three_ways(state: RommeState) -> list:
    """The legal actions of ``state`` by the compiled mask, checked against the Python mask
    and the plain reference."""
    from rummy_env.romme import legal_jit

    got = legal_jit.legal_actions(state)
    assert got == state._legal_actions(reference=False) == state._compute_legal_reference()
    return got


def test_a_run_of_twelve_takes_its_missing_card_at_either_end():
    """2H..KH takes the ace low and the ace high: ``_accepts`` lists the ace twice, but its
    lay-off is one action, listed once (the legal actions are distinct, in increasing order)."""
    state = scripted("", "AH 9S 4D", ["2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH"])
    legal = same_three_ways(state)
    assert legal.count(LAYOFF + parse_kind("AH")) == 1 and legal == sorted(set(legal))


@pytest.mark.parametrize("pending, rules, can_commit", [
    ("7C 7D 7S", RommeRules(), True),  # the set takes the joker (a fourth card)
    ("7C 7D 7S", RommeRules(naturals_per_meld="more_than_jokers"), True),
    ("7C 7D 7S 7H", RommeRules(), False),  # four of a kind take nothing, and the joker makes no meld
    ("5C 6C 7C", RommeRules(), True),  # the run takes it at either end
    ("2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC", RommeRules(), True),  # the ace, low or high
    ("AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC", RommeRules(), False),  # a run of 13 takes nothing
])
def test_a_joker_taken_by_a_swap_may_be_laid_off_on_the_meld_just_committed(pending, rules, can_commit):
    """Holding a joker taken by a swap, a meld may be committed when the joker can still be
    played: here only by laying it off on that meld (the table's KC KD KH KS takes nothing)."""
    state = scripted(pending, "JK 2H 9S", ["KC KD KH KS"], rules, swapped=True)
    assert (COMMIT in same_three_ways(state)) is can_commit
