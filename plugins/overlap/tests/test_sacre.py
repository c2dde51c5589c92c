"""BLEU and chrF against sacrebleu itself, and exact merging of corpus shards."""

from __future__ import annotations

import evalcore
import pytest
import sacrebleu
from hypothesis import given, settings
from hypothesis import strategies as st
from overlap_strategies import any_texts, texts
from sacrebleu.metrics import BLEU, CHRF

SETTINGS = settings(max_examples=60, deadline=None)


@st.composite
def corpora(draw: st.DrawFn) -> tuple[list[str], list[list[str]]]:
    """Hypotheses and, per sample, the same number of references."""
    size = draw(st.integers(1, 12))
    nrefs = draw(st.integers(1, 3))
    hyps = draw(st.lists(texts(30), min_size=size, max_size=size))
    refs = draw(st.lists(st.lists(texts(30), min_size=nrefs, max_size=nrefs), min_size=size, max_size=size))
    return hyps, refs


def records(hyps: list[str], refs: list[list[str]]) -> tuple[list[dict], list[dict]]:
    return [{"reference_answer": r} for r in refs], [{"response": h} for h in hyps]


def streams(refs: list[list[str]]) -> list[list[str]]:
    return [list(stream) for stream in zip(*refs)]


def corpus(metric_id: str, hyps: list[str], refs: list[list[str]], **params: object) -> evalcore.Score:
    metric = evalcore.get_metric(metric_id, **params)
    states = metric.states(*records(hyps, refs))
    return metric.corpus_score([state for _, state in states])


@SETTINGS
@given(data=corpora())
def test_corpus_bleu_and_chrf_equal_sacrebleu(data: tuple[list[str], list[list[str]]]) -> None:
    hyps, refs = data
    bleu = BLEU()
    want = bleu.corpus_score(hyps, streams(refs))
    got = corpus("overlap/bleu", hyps, refs)
    assert got.value == want.score
    assert got.details["signature"] == str(bleu.get_signature())
    assert corpus("overlap/chrf", hyps, refs).value == sacrebleu.corpus_chrf(hyps, streams(refs)).score
    assert corpus("overlap/chrf", hyps, refs, word_order=2).value == CHRF(word_order=2).corpus_score(
        hyps, streams(refs)).score


@SETTINGS
@given(data=corpora(), cuts=st.lists(st.integers(0, 12), max_size=4))
def test_shards_merge_to_the_whole_exactly(data: tuple[list[str], list[list[str]]], cuts: list[int]) -> None:
    hyps, refs = data
    metric = evalcore.get_metric("overlap/bleu")
    states = [state for _, state in metric.states(*records(hyps, refs))]
    bounds = sorted({0, len(states), *(min(c, len(states)) for c in cuts)})
    shards = [metric.merge(states[a:b]) for a, b in zip(bounds, bounds[1:])]
    assert metric.compute(metric.merge(shards)) == metric.corpus_score(states)
    assert metric.corpus_score(shards).value == sacrebleu.corpus_bleu(hyps, streams(refs)).score


@SETTINGS
@given(hyp=any_texts, refs=st.lists(any_texts, min_size=1, max_size=3))
def test_sentence_bleu_and_chrf_equal_sacrebleu(hyp: str, refs: list[str]) -> None:
    example, prediction = {"reference_answer": refs}, {"response": hyp}
    bleu = evalcore.get_metric("overlap/sentence_bleu").score_one(example, prediction)
    assert bleu.value == sacrebleu.sentence_bleu(hyp, refs).score
    chrf = evalcore.get_metric("overlap/sentence_chrf").score_one(example, prediction)
    assert chrf.value == sacrebleu.sentence_chrf(hyp, refs).score


@pytest.mark.parametrize("params", [
    {"smooth_method": "floor"}, {"smooth_method": "add-k", "smooth_value": 2.0},
    {"smooth_method": "none"}, {"tokenize": "intl", "lowercase": True}, {"tokenize": "char"},
    {"tokenize": "zh"}, {"max_ngram_order": 2}, {"effective_order": True},
])
def test_bleu_options_equal_sacrebleu(params: dict) -> None:
    hyps = ["The cat sat on the mat.", "東京は日本の首都です", "", "No, it isn't!"]
    refs = [["the cat is on the mat", "A cat sat on a mat."], ["東京は首都です", "日本の首都"],
            ["nothing here", "empty"], ["No, it is not.", "no"]]
    want = BLEU(**params).corpus_score(hyps, streams(refs)).score
    assert corpus("overlap/bleu", hyps, refs, **params).value == want


def test_unequal_reference_counts_are_an_error() -> None:
    hyps, refs = ["a cat", "a dog"], [["a cat"], ["a dog", "one dog"]]
    score = corpus("overlap/bleu", hyps, refs)
    assert score.status.value == "error" and "different numbers of references (1, 2)" in score.error_message
    # accepted when asked for: sacrebleu pads the ragged stream with None and reports nrefs:var
    allowed = corpus("overlap/bleu", hyps, refs, variable_references=True)
    bleu = BLEU()
    assert allowed.value == bleu.corpus_score(hyps, [["a cat", "a dog"], [None, "one dog"]]).score
    assert allowed.details["signature"] == str(bleu.get_signature())


def test_empty_corpus_is_skipped() -> None:
    metric = evalcore.get_metric("overlap/bleu")
    assert metric.corpus_score([]).status.value == "skipped"
    assert metric.merge([]) == metric.merge([metric.merge([])])
