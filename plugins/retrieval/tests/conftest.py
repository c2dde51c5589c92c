"""Fixtures of the retrieval tests."""

from pathlib import Path

import pytest

REFERENCE = Path(__file__).resolve().parents[3].parent / "shared" / "reference" / "trec_eval"


@pytest.fixture
def trec_reference() -> Path:
    """trec_eval's test collection and outputs (the repository's sibling ``shared/``); skips without it."""
    if not REFERENCE.is_dir():
        pytest.skip(f"trec_eval reference data not found at {REFERENCE} (the repository's sibling shared/)")
    return REFERENCE
