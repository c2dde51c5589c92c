"""Word tokenisers for ROUGE and the evidence-overlap metric.

* ``rouge_score``: exactly rouge-score's ``DefaultTokenizer`` — lower-case, runs of
  ``[a-z0-9]``, optional Porter stemming (NLTK) of tokens longer than 3 characters.
  Everything outside ASCII letters and digits is dropped, so non-English text has no tokens.
* ``unicode``: NFKC + case folding; runs of letters, marks and digits for space-delimited
  scripts, one token per character for scripts written without spaces (Han, Hiragana,
  Katakana, Thai, Lao, Khmer, Myanmar). Stemming applies to ASCII words only.

Stems are cached per distinct token, which is where rouge-score spends most of its time.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable
from typing import Any

import regex

Tokenizer = Callable[[str], list[str]]

_ROUGE_TOKEN = re.compile(r"[a-z0-9]+")
_ROUGE_VALID = re.compile(r"^[a-z0-9]+$")
# ASCII text: every character outside [a-z0-9] becomes a space (faster than the regex)
_ASCII_SPACES = str.maketrans({
    chr(code): chr(code) if _ROUGE_VALID.match(chr(code)) else " " for code in range(128)
})
_UNSPACED = r"\p{Han}\p{Hiragana}\p{Katakana}\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}"
_UNICODE_TOKEN = regex.compile(rf"[{_UNSPACED}]|[[\p{{L}}\p{{M}}\p{{N}}]--[{_UNSPACED}]]+", regex.V1)
_STEMS: dict[str, str | None] = {}


@functools.cache
def _porter() -> Any:
    """NLTK's Porter stemmer in its default mode, as rouge-score builds it (imported on use)."""
    from nltk.stem.porter import PorterStemmer

    return PorterStemmer()


def _stem(token: str) -> str | None:
    """rouge-score's stemming of one token, cached: Porter (NLTK) for ASCII tokens longer than
    3 characters; ``None`` when the stem is not a valid token. Other tokens pass unchanged."""
    if len(token) <= 3 or not token.isascii():
        result: str | None = token
    else:
        stem = _porter().stem(token)
        result = stem if _ROUGE_VALID.match(stem) else None
    _STEMS[token] = result
    return result


def _stemmed(tokens: list[str]) -> list[str]:
    lookup = _STEMS.__getitem__
    try:
        out = list(map(lookup, tokens))
    except KeyError:
        for token in tokens:
            if token not in _STEMS:
                _stem(token)
        out = list(map(lookup, tokens))
    return [token for token in out if token is not None] if None in out else out


def rouge_score_tokens(text: str, stem: bool = False) -> list[str]:
    """Tokens exactly as rouge-score's default tokenizer produces them."""
    text = text.lower()
    tokens = text.translate(_ASCII_SPACES).split() if text.isascii() else _ROUGE_TOKEN.findall(text)
    return _stemmed(tokens) if stem else tokens


def unicode_tokens(text: str, stem: bool = False) -> list[str]:
    """Script-aware tokens: words for space-delimited scripts, characters for CJK and Thai."""
    tokens = _UNICODE_TOKEN.findall(unicodedata.normalize("NFKC", text).casefold())
    return _stemmed(tokens) if stem else tokens


TOKENIZERS: dict[str, Callable[..., list[str]]] = {
    "rouge_score": rouge_score_tokens, "unicode": unicode_tokens,
}


def get_tokenizer(name: str, stem: bool = False) -> Tokenizer:
    """The tokenizer called ``name`` with stemming on or off."""
    function = TOKENIZERS[name]
    return lambda text: function(text, stem)
