"""The web tests' fixtures: ``browser_ready`` skips a browser test, saying why, where
playwright or Chromium is missing (and fails it instead under ``RUMMY_REQUIRE_BROWSER=1``,
as CI sets)."""

from __future__ import annotations

import os

import pytest

from web_helpers import browser_missing


@pytest.fixture()
def browser_ready() -> None:
    pytest.importorskip("starlette")
    pytest.importorskip("uvicorn")
    missing = browser_missing()
    if missing:
        if os.environ.get("RUMMY_REQUIRE_BROWSER") == "1":
            pytest.fail(f"RUMMY_REQUIRE_BROWSER=1 but {missing}")
        pytest.skip(missing)
