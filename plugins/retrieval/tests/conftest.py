"""Fixtures of the retrieval tests."""

import os
from pathlib import Path
from types import ModuleType

import pytest
from evalcore_retrieval import _compiled

REFERENCE = Path(__file__).resolve().parents[3].parent / "shared" / "reference" / "trec_eval"


@pytest.fixture
def trec_reference() -> Path:
    """trec_eval's test collection and outputs (the repository's sibling ``shared/``); skips without it."""
    if not REFERENCE.is_dir():
        pytest.skip(f"trec_eval reference data not found at {REFERENCE} (the repository's sibling shared/)")
    return REFERENCE


@pytest.fixture(params=["compiled", "pyarrow"])
def trec_reader(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each way of reading TREC files in turn: the compiled scanner, and pyarrow + numpy (where it is not built)."""
    if request.param == "pyarrow":
        monkeypatch.setattr(_compiled, "scanner", None)
    else:
        _require_scanner()
    return request.param


@pytest.fixture
def scanner() -> ModuleType:
    """The compiled scanner itself."""
    return _require_scanner()


def _require_scanner() -> ModuleType:
    """The scanner; a skip where it was not built, a failure with ``EVALCORE_REQUIRE_COMPILED=1`` (the test
    sessions set it)."""
    if _compiled.scanner is None:
        if os.environ.get("EVALCORE_REQUIRE_COMPILED") == "1":
            pytest.fail("evalcore_retrieval._trec_scan was not built (is a C compiler installed?)")
        pytest.skip("evalcore_retrieval._trec_scan was not built here")
    return _compiled.scanner
