"""ROUGE against rouge-score itself: every variant, stemmer on and off, several references."""

from __future__ import annotations

import evalcore
import pytest
from evalcore_overlap._lcs import lcs_indices, lcs_length
from hypothesis import given, settings
from hypothesis import strategies as st
from overlap_strategies import any_texts, references, texts
from rouge_score import rouge_scorer

VARIANTS = {"1": "rouge1", "2": "rouge2", "3": "rouge3", "L": "rougeL", "Lsum": "rougeLsum"}
SETTINGS = settings(max_examples=150, deadline=None)


def ours(variant: str, refs: list[str], pred: str, **params: object) -> dict:
    metric = evalcore.get_metric("overlap/rouge", variant=variant, **params)
    score = metric.score_one({"reference_answer": refs}, {"response": pred})
    assert score.ok, score
    return dict(score.details)


def reference(variant: str, refs: list[str], pred: str, stem: bool) -> rouge_scorer.scoring.Score:
    scorer = rouge_scorer.RougeScorer([VARIANTS[variant]], use_stemmer=stem)
    return scorer.score_multi(refs, pred)[VARIANTS[variant]]


@SETTINGS
@given(pred=texts(40), refs=st.lists(texts(40), min_size=1, max_size=3), stem=st.booleans())
def test_all_variants_equal_rouge_score(pred: str, refs: list[str], stem: bool) -> None:
    for variant in VARIANTS:
        got = ours(variant, refs, pred, use_stemmer=stem)
        want = reference(variant, refs, pred, stem)
        assert (got["precision"], got["recall"], got["fmeasure"]) == tuple(want), variant


@SETTINGS
@given(pred=any_texts, refs=references)
def test_arbitrary_unicode_text_equals_rouge_score(pred: str, refs: list[str]) -> None:
    for variant in ("1", "L", "Lsum"):
        got = ours(variant, refs, pred, use_stemmer=True)
        assert got["fmeasure"] == reference(variant, refs, pred, True).fmeasure


@pytest.mark.parametrize(("pred", "refs"), [
    ("", ["the cat"]), ("the cat", [""]), ("", [""]), ("!!! ...", ["???"]),
    ("one\n\ntwo three\n", ["two\none three", "three two one"]),
    ("running quickly generously", ["run quick generous"]), ("東京 タワー", ["東京 タワー"]),
    ("a a a a", ["a"]), ("x " * 300, ["x " * 150 + "y " * 150]),
])
@pytest.mark.parametrize("stem", [False, True])
def test_edge_cases_equal_rouge_score(pred: str, refs: list[str], stem: bool) -> None:
    for variant in VARIANTS:
        got = ours(variant, refs, pred, use_stemmer=stem)
        assert (got["precision"], got["recall"], got["fmeasure"]) == tuple(reference(variant, refs, pred, stem))


def test_measure_selects_precision_or_recall() -> None:
    # "the cat sat" vs reference "the cat sat on the mat": LCS 3 -> P = 3/3, R = 3/6
    refs, pred = ["the cat sat on the mat"], "the cat sat"
    metric = lambda measure: evalcore.get_metric("overlap/rouge", variant="L", measure=measure)  # noqa: E731
    values = {m: metric(m).score_one({"reference_answer": refs}, {"response": pred}).value for m in "fpr"}
    assert values == {"p": 1.0, "r": 0.5, "f": pytest.approx(2 / 3)}


def test_ids_carry_identity_params() -> None:
    assert evalcore.get_metric("overlap/rouge(variant='L')").id == "overlap/rouge(variant='L')"
    metric = evalcore.get_metric("overlap/rouge", variant="1", use_stemmer=True, measure="r")
    assert metric.id == "overlap/rouge(variant='1', measure='r', use_stemmer=True)"


@pytest.mark.parametrize("text", [
    "東京は日本の首都です", "สวัสดีครับ ยินดีต้อนรับ", "Привет, мир!", "नमस्ते दुनिया", "مرحبا بالعالم",
])
def test_unicode_tokenizer_scores_identical_non_english_text_one(text: str) -> None:
    for variant in ("1", "2", "L", "Lsum"):  # each text has at least two tokens
        assert ours(variant, [text], text, tokenizer="unicode")["fmeasure"] == 1.0
    # rouge-score's tokenizer keeps only ASCII letters and digits: the same texts score 0
    assert ours("L", [text], text)["fmeasure"] == 0.0


def test_unicode_tokenizer_splits_cjk_into_characters() -> None:
    # 東京タワー vs 東京駅: 2 common characters of 5 and 3 -> P = 2/3, R = 2/5, F = 0.5
    got = ours("1", ["東京タワー"], "東京駅", tokenizer="unicode")
    assert (got["precision"], got["recall"]) == (2 / 3, 2 / 5) and got["fmeasure"] == pytest.approx(0.5)


def lcs_table_length(a: list[str], b: list[str]) -> int:
    previous = [0] * (len(b) + 1)
    for x in a:
        row = [0]
        for j, y in enumerate(b, 1):
            row.append(previous[j - 1] + 1 if x == y else max(previous[j], row[j - 1]))
        previous = row
    return previous[-1]


@settings(max_examples=500, deadline=None)
@given(a=st.lists(st.sampled_from("abcde"), max_size=90), b=st.lists(st.sampled_from("abcde"), max_size=90))
def test_bit_parallel_lcs_equals_table(a: list[str], b: list[str]) -> None:
    length = lcs_table_length(a, b)
    assert lcs_length(a, b) == length == lcs_length(b, a)
    assert len(lcs_indices(a, b)) == length
    assert rouge_scorer.lcs_ind(a, b) == lcs_indices(a, b)


SENTENCE_WORDS = (
    "the", "cat", "Cat", "sat", "on", "mat", "running", "Paris", "tower", "He", "it", "was", "i",
    "Mr.", "Dr.", "St.", "Inc.", "e.g.", "U.S.", "a.m.", "No.", "vs.", "3.88", "1990", "J.",
    "café", "über", "(see", "below)", "\"quoted\"", "it's",
)
ENDINGS = (".", ".", "?", "!", "...", "", ".)", '."')
GAPS = (" ", "  ", "\n", "\n\n", " \n")


@st.composite
def summaries(draw: st.DrawFn) -> str:
    """Sentences of words with end punctuation, abbreviations and numbers between them."""
    sentences = draw(st.lists(st.lists(st.sampled_from(SENTENCE_WORDS), min_size=1, max_size=8), max_size=5))
    parts = [" ".join(words) + draw(st.sampled_from(ENDINGS)) + draw(st.sampled_from(GAPS))
             for words in sentences]
    return "".join(parts)


@SETTINGS
@given(pred=st.one_of(summaries(), any_texts), refs=st.lists(st.one_of(summaries(), any_texts), min_size=1,
                                                                 max_size=3), stem=st.booleans())
def test_lsum_split_summaries_equals_rouge_score(nltk_punkt_data: object, pred: str, refs: list[str],
                                                 stem: bool) -> None:
    got = ours("Lsum", refs, pred, use_stemmer=stem, split_summaries=True)
    scorer = rouge_scorer.RougeScorer(["rougeLsum"], use_stemmer=stem, split_summaries=True)
    assert (got["precision"], got["recall"], got["fmeasure"]) == tuple(scorer.score_multi(refs, pred)["rougeLsum"])


def test_split_summaries_hand_worked() -> None:
    # Punkt: "Dr." is an abbreviation, so each side has two sentences and every sentence has
    # an exact partner: union LCS 4 + 3 of 7 tokens -> 1. At newlines (none here) each side
    # is one sentence: LCS(dr smith went home he was tired, he was tired dr smith went home) = 4.
    ref, pred = "Dr. Smith went home. He was tired.", "He was tired. Dr. Smith went home."
    assert ours("Lsum", [ref], pred, split_summaries=True)["fmeasure"] == 1.0
    assert ours("Lsum", [ref], pred)["fmeasure"] == pytest.approx(4 / 7)


def test_split_summaries_needs_no_nltk_data(monkeypatch: pytest.MonkeyPatch) -> None:
    import nltk
    from evalcore_overlap import _punkt

    monkeypatch.setattr(nltk.data, "path", [])
    _punkt._tokenizer.cache_clear()
    # NLTK's own documentation example of sent_tokenize
    text = "Good muffins cost $3.88\nin New York.  Please buy me\ntwo of them.\n\nThanks."
    assert _punkt.sent_tokenize(text) == ["Good muffins cost $3.88\nin New York.", "Please buy me\ntwo of them.",
                                          "Thanks."]
    assert ours("Lsum", ["Mr. Smith sat. It was late."], "It was late. Mr. Smith sat.",
                split_summaries=True)["fmeasure"] == 1.0


def test_split_summaries_is_for_lsum_only() -> None:
    with pytest.raises(evalcore.ParameterError, match="split_summaries"):
        evalcore.get_metric("overlap/rouge", variant="L", split_summaries=True)
    metric = evalcore.get_metric("overlap/rouge", variant="Lsum", split_summaries=True)
    assert metric.id == "overlap/rouge(variant='Lsum', split_summaries=True)"
