"""Fixtures of evalcore-tables' tests."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def private_cache_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Caches (the listing of ``evalcore list``) go to a fresh folder, not the user's."""
    monkeypatch.setenv("EVALCORE_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
