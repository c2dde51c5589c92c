"""Hypothesis strategies for generated answer and summary texts."""

from __future__ import annotations

from hypothesis import strategies as st

WORDS = (
    "the", "a", "an", "The", "A", "cat", "cats", "Cat", "sat", "sitting", "on", "mat", "mats",
    "running", "runs", "ran", "quickly", "Paris", "paris", "Eiffel", "tower", "towers",
    "yes", "no", "noanswer", "Yes", "1990", "3.14", "don't", "U.S.", "café", "cafe",
    "naïve", "Zürich", "über", "generously", "generalization", "relational", "happiness",
    "東京", "こんにちは", "Привет", "мир", "über-cool", ",", ".", "!", "?", "-", "(", ")",
    "\"quoted\"", "it's", "e-mail", "co-operate", "ABC", "x1", "___",
)
SEPARATORS = (" ", "  ", "\n", " \n ", "\t")

words = st.lists(st.sampled_from(WORDS), max_size=25)


@st.composite
def texts(draw: st.DrawFn, max_size: int = 25) -> str:
    """A text of vocabulary words joined by assorted whitespace (newlines included)."""
    tokens = draw(st.lists(st.sampled_from(WORDS), max_size=max_size))
    seps = draw(st.lists(st.sampled_from(SEPARATORS), min_size=len(tokens), max_size=len(tokens)))
    return "".join(t + s for t, s in zip(tokens, seps)).strip(" ")


any_texts = st.one_of(texts(), st.text(max_size=40))
references = st.lists(any_texts, min_size=1, max_size=3)


def shards(states: list, cuts: list[int]) -> list[list]:
    """``states`` cut into consecutive shards at the positions in ``cuts`` (clipped to the end)."""
    bounds = sorted({0, len(states), *(min(c, len(states)) for c in cuts)})
    return [states[a:b] for a, b in zip(bounds, bounds[1:])]
