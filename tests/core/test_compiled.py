"""The one way compiled twins are chosen (``rummy_env.core.compiled``): off by
``RUMMY_ENV_NO_NUMBA``, dropped with one warning when they fail to load or disagree,
silently when numba is missing, decided once. Fake twins: no numba needed."""

import warnings

import pytest

from rummy_env.core import cards
from rummy_env.core.compiled import UNDECIDED, Compiled, numba_switched_off

TWIN = object()


def agrees(twin) -> str:
    return ""


class Loader:
    """A loader that counts its calls and gives ``TWIN`` (or raises ``error``)."""

    def __init__(self, error=None):
        self.calls, self.error = 0, error

    def __call__(self):
        self.calls += 1
        if self.error is not None:
            raise self.error
        return TWIN


@pytest.fixture(autouse=True)
def numba_on(monkeypatch):
    monkeypatch.delenv("RUMMY_ENV_NO_NUMBA", raising=False)


def test_a_twin_that_loads_and_agrees_is_used_and_decided_once():
    load, checked = Loader(), []
    twin = Compiled("the fake kernels", load, lambda t: checked.append(t) or "", "the fake runs in Python")
    assert twin.chosen is UNDECIDED and load.calls == 0  # nothing loaded before the first use
    assert twin.get() is TWIN and twin.get() is TWIN and twin.chosen is TWIN
    assert load.calls == 1 and checked == [TWIN]


@pytest.mark.parametrize("value", ["1", "true", "yes", "TRUE"])
def test_the_variable_switches_every_twin_off_without_loading_it(monkeypatch, value):
    monkeypatch.setenv("RUMMY_ENV_NO_NUMBA", value)
    assert numba_switched_off()
    load = Loader()
    fallback = object()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # silently
        assert Compiled("the fake kernels", load, lambda t: "", "x", otherwise=fallback).get() is fallback
    assert load.calls == 0


@pytest.mark.parametrize("value", ["", "0", "no"])
def test_other_values_leave_them_on(monkeypatch, value):
    monkeypatch.setenv("RUMMY_ENV_NO_NUMBA", value)
    assert not numba_switched_off()
    assert Compiled("the fake kernels", Loader(), lambda t: "", "x").get() is TWIN


def test_a_loader_that_raises_falls_back_with_one_warning():
    load = Loader(RuntimeError("cannot cache function: no locator available"))
    twin = Compiled("the fake engine", load, lambda t: "", "the fake runs as numpy array operations")
    with pytest.warns(RuntimeWarning) as caught:
        assert twin.get() is None
    assert [str(w.message) for w in caught] == [
        "rummy_env: the fake engine is not used (RuntimeError: cannot cache function: no locator available); "
        "the fake runs as numpy array operations"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert twin.get() is None  # decided: no second warning, no second try
    assert load.calls == 1


def test_a_check_that_fails_or_raises_falls_back_with_a_warning():
    twin = Compiled("the fake kernels", Loader(), lambda t: "they disagree with the Python search", "it runs in Python")
    with pytest.warns(RuntimeWarning, match=r"^rummy_env: the fake kernels are not used \(they disagree with the "
                                            r"Python search\); it runs in Python$"):
        assert twin.get() is None
    twin = Compiled("the fake encoder", Loader(), lambda t: 1 / 0, "observations are built in Python", otherwise=len)
    with pytest.warns(RuntimeWarning, match=r"fake encoder is not used \(ZeroDivisionError: division by zero\)"):
        assert twin.get() is len


def test_numba_missing_falls_back_silently_but_another_import_error_warns():
    missing = ModuleNotFoundError("No module named 'numba'", name="numba")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert Compiled("the fake kernels", Loader(missing), lambda t: "", "x").get() is None
    broken = ImportError("cannot import name 'trailing_zeros' from 'numba.cpython.unsafe.numbers'")
    with pytest.warns(RuntimeWarning, match="ImportError: cannot import name 'trailing_zeros'"):
        assert Compiled("the fake kernels", Loader(broken), lambda t: "", "x").get() is None


def test_a_twin_is_not_used_where_what_it_needs_is_not():
    base = Compiled("the base kernels", Loader(), lambda t: "", "x")
    load = Loader()
    top = Compiled("the top kernels", load, lambda t: "", "x", needs=base)
    base.chosen = None  # as if it failed, or numba were missing
    assert top.get() is None and load.calls == 0
    top.chosen = UNDECIDED  # decided again
    base.chosen = UNDECIDED
    assert top.get() is TWIN and base.chosen is TWIN and load.calls == 1


def test_a_module_name_is_imported_on_first_use():
    twin = Compiled("the fake kernels", "rummy_env.core.cards", lambda t: "" if t is cards else "wrong module", "x")
    assert twin.get() is cards


def test_copies_share_the_decision_and_a_pickled_one_decides_in_its_own_process():
    import copy
    import pickle

    twin = Compiled("the fake kernels", "rummy_env.core.cards", lambda t: "", "x")
    assert twin.get() is cards  # a module: it does not pickle
    assert copy.deepcopy(twin) is twin and copy.copy(twin) is twin
    twin = Compiled("the fake kernels", "rummy_env.core.cards", agrees, "x")  # no lambda: it pickles
    twin.get()
    again = pickle.loads(pickle.dumps(twin))
    assert again.chosen is UNDECIDED and again.load == "rummy_env.core.cards" and again.get() is cards
