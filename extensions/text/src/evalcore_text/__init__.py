"""evalcore-text: the texts evalcore's metric families compare, read from a record the same way
(:mod:`evalcore_text.inputs`), normalised and tokenised (:mod:`evalcore_text.normalize`), and the
vectors of embedding-based metrics (:mod:`evalcore_text.vectors`, which imports numpy)."""

from __future__ import annotations

from .normalize import (
    collapse_whitespace,
    jaccard,
    ngram_counts,
    ngrams,
    normalize_text,
    overlap_count,
    whitespace_tokens,
)

__all__ = [
    "collapse_whitespace", "jaccard", "ngram_counts", "ngrams", "normalize_text", "overlap_count", "whitespace_tokens",
]
