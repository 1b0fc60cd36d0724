"""The two paths of Rommé's meld search (``rummy_env.romme.melds``): its compiled kernels
and its Python code, which must agree; a test module's ``backend`` fixture runs its tests
on each (test_romme_melds.py, test_romme_legal_fast.py)."""

from typing import Any, Callable

import pytest

from rummy_env.romme import melds

BACKENDS = ["compiled", "python"]


def use_backend(request: Any, monkeypatch: Any, *caches: Callable) -> str:
    """Switch to the path ``request.param`` names for one test (skipped on ``compiled``
    without numba), its memoised ``caches`` (``functools.lru_cache`` functions) dropped
    before and after, so that each path computes its own."""
    for cache in caches:
        cache.cache_clear()
        request.addfinalizer(cache.cache_clear)
    if request.param == "python":
        monkeypatch.setattr(melds.KERNELS, "chosen", None)
    elif melds._kernels() is None:
        pytest.skip("the numba kernels are not in use here")
    return request.param
