"""DPR-style passage tokenisation and answer containment (as DSPy's ``answer_passage_match``)."""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Sequence
from typing import Any


@functools.cache
def _token_pattern() -> Any:
    """DPR's SimpleTokenizer: runs of letters/digits/marks, or any single other visible character
    (compiled on first use: importing ``regex`` costs the metrics that never tokenise this way)."""
    import regex

    return regex.compile(r"[\p{L}\p{N}\p{M}]+|[^\p{Z}\p{C}]",
                         flags=regex.IGNORECASE | regex.UNICODE | regex.MULTILINE)


def dpr_tokens(text: str) -> list[str]:
    """Lower-cased DPR tokens of ``text`` after NFD normalisation."""
    return [token.lower() for token in _token_pattern().findall(unicodedata.normalize("NFD", text))]


def contains_any(tokens: Sequence[str], needles: Sequence[Sequence[str]]) -> bool:
    """Whether any needle occurs as a contiguous run in ``tokens`` (an empty needle always does)."""
    for needle in needles:
        size = len(needle)
        first = needle[0] if size else None
        for start in range(len(tokens) - size + 1):
            if (size == 0 or tokens[start] == first) and list(tokens[start:start + size]) == list(needle):
                return True
    return False
