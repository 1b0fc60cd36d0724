"""The compiled legal mask's kept answers and the vector engine's reused rows change no
mask and no observation: the solver's answers kept in buckets (``legal_jit._solves``,
the oldest of a full bucket forgotten) give the Python mask's actions even when the
table is so small that every question evicts another; the table grows for a large batch;
the engine's mask and observation rows are written whole into buffers that held anything."""

import numpy as np
import pytest

pytest.importorskip("numba")

from rummy_env.core.compiled import numba_switched_off  # noqa: E402
from rummy_env.romme.game import COMMIT, PICK, RommeState  # noqa: E402
from rummy_env.romme.rules import RommeRules  # noqa: E402

pytestmark = pytest.mark.skipif(numba_switched_off(), reason="RUMMY_ENV_NO_NUMBA is set: the kernels are off")

RULES = (RommeRules(max_turns=60),
         RommeRules(come_out_points=40, come_out_needs_run=True, naturals_per_meld="more_than_jokers", max_turns=60),
         RommeRules(go_out_without_discard=True, take_discard_before_out="free", adjacent_jokers=True,
                    aces_around_the_corner=True, max_turns=60))


@pytest.mark.parametrize("rows", [4, 16])
@pytest.mark.parametrize("rules", RULES, ids=["default", "strict", "loose"])
def test_a_tiny_answers_table_evicts_answers_and_changes_no_mask(monkeypatch, rules, rows):
    from rummy_env.romme import legal_jit

    flags, pen, _ = legal_jit._rules_of(rules)
    tiny = np.zeros((rows, 4), np.int64)  # one bucket (4 rows) or four: most answers are forgotten soon
    monkeypatch.setitem(legal_jit._RULES, id(rules), (rules, flags, pen, tiny))
    checked = 0
    for seed in range(2):
        rng = np.random.default_rng(seed)
        state = RommeState.new_hand(3, rules, seed=rng)
        while not state.is_over:
            want = state._legal_actions(reference=False)
            assert legal_jit.legal_actions(state) == want, state.render()
            assert legal_jit.legal_actions(state) == want, state.render()  # asked again: answers from the table
            checked += 1
            plays = [a for a in want if a >= PICK or a == COMMIT]
            state._legal = want
            state.step(int(rng.choice(plays)) if plays and rng.random() < 0.6 else int(rng.choice(want)))
    assert checked > 60
    assert (tiny[:, 3] != 0).all()  # every row filled: later answers pushed earlier ones out


def test_the_answers_table_is_sized_for_the_batch():
    from rummy_env.romme import legal_jit
    from rummy_env.romme.vector import ANSWERS_PER_GAME, VectorRomme

    rules = RommeRules(max_turns=50)
    assert legal_jit._rules_of(rules)[2].shape[0] == legal_jit.KNOWN_ROWS
    grown = legal_jit._rules_of(rules, legal_jit.KNOWN_ROWS + 1)[2]
    assert grown.shape[0] == 2 * legal_jit.KNOWN_ROWS  # a power of two, at least what was asked
    assert legal_jit._rules_of(rules)[2] is grown  # a smaller ask keeps the larger table
    engine = VectorRomme(8, 2, rules=rules, encoding=None, seed=0)
    need = 3 * legal_jit.KNOWN_ROWS // ANSWERS_PER_GAME  # games whose answers outgrow the grown table
    engine.num_envs = need  # (the size asked depends on the batch's size only)
    assert engine._kernel_rules()[3].shape[0] == 4 * legal_jit.KNOWN_ROWS


def test_mask_and_observation_rows_are_written_whole_into_dirty_buffers():
    from rummy_env.romme.vector import MAX_LEGAL, VectorRomme

    engine = VectorRomme(16, 4, seed=3)
    engine.reset()
    rng = np.random.default_rng(3)
    for _ in range(40):
        engine.step(engine.random_actions(rng))
        mask = engine.action_mask()
        flags, pen, scratch, answers = engine._kernel_rules()
        dirty = np.ones_like(mask)
        ids = np.full((engine.num_envs, MAX_LEGAL), -1, np.int16)
        counts = np.zeros(engine.num_envs, np.int16)
        engine._jit.legal_moves(engine.st, engine.hands, engine.came_out, engine.pile, engine.codes,
                                engine.rules.take_discard_before_out == "meld", flags, pen, scratch, answers, dirty,
                                counts, ids)
        assert np.array_equal(dirty, mask)
        assert (counts == mask.sum(axis=1)).all()
        assert np.array_equal(engine.observe(out=np.full_like(engine.observe(), 7.0)), engine.observe())
