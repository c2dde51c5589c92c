"""Fixtures of the retrieval tests."""

from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
from evalcore.testing import compiled_part
from evalcore_retrieval import _compiled

REFERENCE = Path(__file__).resolve().parents[3].parent / "shared" / "reference" / "trec_eval"


@pytest.fixture
def trec_reference() -> Path:
    """trec_eval's test collection and outputs (the repository's sibling ``shared/``); skips without it."""
    if not REFERENCE.is_dir():
        pytest.skip(f"trec_eval reference data not found at {REFERENCE} (the repository's sibling shared/)")
    return REFERENCE


@pytest.fixture
def reference_dicts(trec_reference: Path) -> Callable[[str], dict[str, dict[str, float]]]:
    """``reference_dicts(name)``: a qrels or run file of the reference collection as pytrec_eval-style
    dicts (``{qid: {docno: grade or score}}``)."""

    def read(name: str) -> dict[str, dict[str, float]]:
        column, kind = (3, int) if name.startswith("qrels") else (4, float)
        table: dict[str, dict[str, float]] = {}
        for line in (trec_reference / name).read_text().splitlines():
            fields = line.split()
            table.setdefault(fields[0], {})[fields[2]] = kind(fields[column])
        return table

    return read


@pytest.fixture(params=["compiled", "pyarrow"])
def trec_reader(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each way of reading TREC files in turn: the compiled scanner, and pyarrow + numpy (where it is not built)."""
    if request.param == "pyarrow":
        monkeypatch.setattr(_compiled, "scanner", None)
    else:
        _require("scanner")
    return request.param


@pytest.fixture
def scanner() -> ModuleType:
    """The compiled TREC file scanner itself."""
    return _require("scanner")


@pytest.fixture
def dict_reader() -> ModuleType:
    """The compiled reader of pytrec_eval-style dicts."""
    return _require("dict_reader")


def _require(name: str) -> ModuleType:
    """A compiled part of the package (see :func:`evalcore.testing.compiled_part`)."""
    return compiled_part(getattr(_compiled, name), f"evalcore_retrieval's compiled {name}")
