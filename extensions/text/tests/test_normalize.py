"""``evalcore_text.normalize_text`` (public as ``evalcore.text.normalize_text``) equals DSPy's
``normalize_text`` (the reference) and, with any step switched off, the steps applied one after
another as its docstring lists them."""

from __future__ import annotations

import re
import string
import unicodedata

from evalcore_text import normalize_text
from hypothesis import given, settings
from hypothesis import strategies as st

dspy_metrics = __import__("pytest").importorskip("dspy.evaluate.metrics")

_ARTICLES = re.compile(r"\b(a|an|the)\b")

# ASCII-heavy text with the characters where a faster path could differ: articles inside and
# around words, underscores (punctuation, yet a word character), control characters that are or
# are not whitespace for str.split, and non-ASCII letters, digits and dashes
texts = (st.text(st.sampled_from(list("aAnNtThHeE xyz019_.,-'\t\n\x00\x1c\x7féÉ–’²")), max_size=30)
         | st.text(max_size=30))


def step_by_step(text: str, lowercase: bool, remove_punctuation: bool, remove_articles: bool) -> str:
    text = unicodedata.normalize("NFD", text)
    if lowercase:
        text = text.lower()
    if remove_punctuation:
        text = "".join(ch for ch in text if ch not in string.punctuation)
    if remove_articles:
        text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


@settings(max_examples=3000, deadline=None)
@given(text=texts)
def test_equals_dspy(text: str) -> None:
    assert normalize_text(text) == dspy_metrics.normalize_text(text)


@settings(max_examples=3000, deadline=None)
@given(text=texts, lowercase=st.booleans(), remove_punctuation=st.booleans(), remove_articles=st.booleans())
def test_each_step_can_be_switched_off(text: str, lowercase: bool, remove_punctuation: bool,
                                       remove_articles: bool) -> None:
    switches = {"lowercase": lowercase, "remove_punctuation": remove_punctuation, "remove_articles": remove_articles}
    assert normalize_text(text, **switches) == step_by_step(text, **switches)
