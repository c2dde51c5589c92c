"""Text normalisation and tokenisation shared by the text metrics of every plugin (also public as
``evalcore.text``).

Implementations import this module; registration modules must not (it is cheap, but the
rule keeps listing free of implementation code).
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence

__all__ = [
    "collapse_whitespace", "jaccard", "ngram_counts", "ngrams", "normalize_text", "overlap_count", "whitespace_tokens",
]

_DROP_PUNCTUATION = str.maketrans("", "", string.punctuation)
_ARTICLES = re.compile(r"\b(?:an?|the)\b")  # DSPy's \b(a|an|the)\b: the same words, found with less backtracking


def normalize_text(
    text: str, *, unicode_form: str | None = "NFD", lowercase: bool = True,
    remove_punctuation: bool = True, remove_articles: bool = True,
) -> str:
    """Normalise text for comparison, by default exactly as DSPy's ``normalize_text``.

    Steps, each switchable: Unicode normalisation (NFD), lower-casing, removal of ASCII
    punctuation, removal of the English articles a/an/the, whitespace collapse.
    """
    if text.isascii():  # the common case, in fewer steps with the same result
        return _normalize_ascii(text, lowercase, remove_punctuation, remove_articles)
    if unicode_form:
        text = unicodedata.normalize(unicode_form, text)
    if lowercase:
        text = text.lower()
    if remove_punctuation:
        text = text.translate(_DROP_PUNCTUATION)
    if remove_articles:
        text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


_PUNCTUATION_BYTES = string.punctuation.encode()
_ARTICLE_WORDS = frozenset({"a", "an", "the"})


def _normalize_ascii(text: str, lowercase: bool, remove_punctuation: bool, remove_articles: bool) -> str:
    """:func:`normalize_text` of an ASCII string: Unicode normalisation leaves it as it is,
    punctuation goes as bytes, and where every token is letters and digits an article is a
    whole token, so the pattern is needed only for the rest."""
    if lowercase:
        text = text.lower()
    if remove_punctuation:
        text = text.encode().translate(None, _PUNCTUATION_BYTES).decode()
    tokens = text.split()
    if not remove_articles:
        return " ".join(tokens)
    if "".join(tokens).isalnum():
        return " ".join(token for token in tokens if token not in _ARTICLE_WORDS)
    return " ".join(_ARTICLES.sub(" ", text).split())


def ngrams(tokens: Sequence[str], n: int) -> list[tuple[str, ...]]:
    """The ``n``-grams of a token sequence, in order."""
    if n < 1:
        raise ValueError(f"n must be >= 1; got {n}")
    return [tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1)]


def ngram_counts(tokens: Sequence[str], n: int) -> Counter[tuple[str, ...]]:
    """A multiset of the ``n``-grams of a token sequence."""
    return Counter(ngrams(tokens, n))


def overlap_count(a: Iterable[str], b: Iterable[str]) -> int:
    """Size of the multiset intersection of two token sequences."""
    return sum((Counter(a) & Counter(b)).values())


def collapse_whitespace(text: str) -> str:
    """``text`` with every run of whitespace made one space and the ends stripped."""
    return " ".join(text.split())


def whitespace_tokens(text: str, *, lowercase: bool = False) -> list[str]:
    """Tokens separated by whitespace, optionally lower-cased (``str.casefold``)."""
    return (text.casefold() if lowercase else text).split()


def jaccard(a: Iterable[object], b: Iterable[object]) -> float:
    """Jaccard index |A ∩ B| / |A ∪ B| of two collections taken as sets; 1.0 when both are empty."""
    set_a, set_b = set(a), set(b)
    union = set_a | set_b
    return len(set_a & set_b) / len(union) if union else 1.0
