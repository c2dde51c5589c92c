"""Fixtures of the Ray executor's tests."""

from __future__ import annotations

import pathlib

import pytest

SHARED = pathlib.Path(__file__).resolve().parents[3].parent / "shared"


@pytest.fixture
def shared() -> pathlib.Path:
    """The shared reference data beside the repository (skips the test when absent)."""
    if not SHARED.is_dir():
        pytest.skip(f"shared reference data not found at {SHARED}")
    return SHARED


@pytest.fixture(autouse=True)
def private_cache_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Caches (the listing of ``evalcore list``, model answers) go to a fresh folder, not the user's."""
    monkeypatch.setenv("EVALCORE_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
