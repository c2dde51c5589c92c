"""DSPy's answer normalisation (:func:`evalcore_text.normalize_text`) of many texts at once,
remembered across calls and shared by every metric with the same switches: exact match and
token F1 over the same records normalise each distinct text once.

ASCII texts are normalised together, as one string with NUL between them: lower-casing,
punctuation removal, the article pattern and whitespace collapse each run once over all of
them, with the same result as text by text (NUL is neither a word character, punctuation nor
whitespace, so each step treats it as the end of one text and the start of the next).
"""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Iterable

from evalcore_text import normalize_text

_PUNCTUATION = string.punctuation.encode()
_ARTICLES = re.compile(r"\b(?:an?|the)\b")  # DSPy's remove_articles, \b(a|an|the)\b: the same words, found faster
_SEPARATOR = "\x00"


class Normalizer:
    """:func:`~evalcore_text.normalize_text` with fixed switches, remembering up to ``size``
    results (answers repeat across a dataset)."""

    def __init__(self, lowercase: bool, remove_punctuation: bool, remove_articles: bool,
                 size: int = 1 << 17) -> None:
        self.switches = (lowercase, remove_punctuation, remove_articles)
        self.size = size
        self.seen: dict[str, str] = {}

    def __call__(self, text: str) -> str:
        found = self.seen.get(text)
        if found is None:
            if len(self.seen) >= self.size:
                self.seen.clear()
            found = self.seen[text] = self._one(text)
        return found

    def _one(self, text: str) -> str:
        lowercase, punctuation, articles = self.switches
        return normalize_text(text, lowercase=lowercase, remove_punctuation=punctuation, remove_articles=articles)

    def table(self, texts: Iterable[str]) -> dict[str, str]:
        """A mapping that holds the normalised form of each of ``texts`` (and maybe others)."""
        seen = self.seen
        missing = set(texts).difference(seen)
        if not missing:
            return seen
        if len(seen) + len(missing) > self.size:
            seen.clear()
        batch = list(missing)
        joined = _SEPARATOR.join(batch)
        if not joined.isascii() or joined.count(_SEPARATOR) != len(batch) - 1:  # some texts go one by one
            batch = [text for text in batch if text.isascii() and _SEPARATOR not in text]
            joined = _SEPARATOR.join(batch)
        if len(batch) > 1:
            seen.update(zip(batch, self._ascii_many(joined)))
            missing.difference_update(batch)
        for text in missing:
            seen[text] = self._one(text)
        return seen

    def _ascii_many(self, joined: str) -> list[str]:
        """The normalised forms of the ASCII texts joined by NUL in ``joined`` (none holds a NUL)."""
        lowercase, punctuation, articles = self.switches
        if lowercase:
            joined = joined.lower()
        if punctuation:
            joined = joined.encode().translate(None, _PUNCTUATION).decode()
        if articles:
            joined = _ARTICLES.sub(" ", joined)
        joined = " ".join(joined.split()).replace(" " + _SEPARATOR, _SEPARATOR).replace(_SEPARATOR + " ", _SEPARATOR)
        return joined.split(_SEPARATOR)


@functools.cache
def normalizer(lowercase: bool = True, remove_punctuation: bool = True, remove_articles: bool = True) -> Normalizer:
    """The shared :class:`Normalizer` with these switches."""
    return Normalizer(lowercase, remove_punctuation, remove_articles)
