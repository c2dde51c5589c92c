"""BLEU, chrF and TER against sacrebleu itself, and exact merging of corpus shards."""

from __future__ import annotations

import evalcore
import pytest
import sacrebleu
from hypothesis import given, settings
from hypothesis import strategies as st
from overlap_strategies import any_texts, shards, texts
from sacrebleu.metrics import BLEU, CHRF, TER

SETTINGS = settings(max_examples=60, deadline=None)


@st.composite
def corpora(draw: st.DrawFn, max_refs: int = 3) -> tuple[list[str], list[list[str]]]:
    """Hypotheses and, per sample, the same number of references."""
    size = draw(st.integers(1, 12))
    nrefs = draw(st.integers(1, max_refs))
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


@pytest.mark.parametrize("metric_id", ["overlap/bleu", "overlap/chrf", "overlap/ter"])
@SETTINGS
@given(data=corpora(), cuts=st.lists(st.integers(0, 12), max_size=4))
def test_shards_merge_to_the_whole_exactly(metric_id: str, data: tuple[list[str], list[list[str]]],
                                           cuts: list[int]) -> None:
    hyps, refs = data
    metric = evalcore.get_metric(metric_id)
    states = [state for _, state in metric.states(*records(hyps, refs))]
    parts = [metric.merge(shard) for shard in shards(states, cuts)]
    assert metric.merge(parts).tolist() == metric.merge(states).tolist()
    assert metric.compute(metric.merge(parts)) == metric.corpus_score(states)
    journalled = [metric.decode_state(metric.encode_state(state)) for state in parts]
    assert metric.corpus_score(journalled) == metric.corpus_score(states)


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
    {"smooth_method": "none"}, {"tokenize": "intl", "ignore_case": True}, {"tokenize": "char"},
    {"tokenize": "zh"}, {"max_ngram_order": 2}, {"effective_order": True},
])
def test_bleu_options_equal_sacrebleu(params: dict) -> None:
    hyps = ["The cat sat on the mat.", "東京は日本の首都です", "", "No, it isn't!"]
    refs = [["the cat is on the mat", "A cat sat on a mat."], ["東京は首都です", "日本の首都"],
            ["nothing here", "empty"], ["No, it is not.", "no"]]
    want = BLEU(**sacre_options(params)).corpus_score(hyps, streams(refs)).score
    assert corpus("overlap/bleu", hyps, refs, **params).value == want


def test_unequal_reference_counts_are_an_error() -> None:
    hyps, refs = ["a cat", "a dog"], [["a cat"], ["a dog", "one dog"]]
    score = corpus("overlap/bleu", hyps, refs)
    assert score.status.value == "error" and "different numbers of references (from 1 to 2)" in score.error_message
    # accepted when asked for: sacrebleu pads the ragged stream with None and reports nrefs:var
    allowed = corpus("overlap/bleu", hyps, refs, variable_references=True)
    bleu = BLEU()
    assert allowed.value == bleu.corpus_score(hyps, [["a cat", "a dog"], [None, "one dog"]]).score
    assert allowed.details["signature"] == str(bleu.get_signature())


def test_empty_corpus_is_skipped() -> None:
    metric = evalcore.get_metric("overlap/bleu")
    assert metric.corpus_score([]).status.value == "skipped"
    assert metric.merge([]).tolist() == metric.merge([metric.merge([])]).tolist()


def sacre_options(params: dict) -> dict:
    """evalcore's parameters as sacrebleu's BLEU / chrF options (ignore_case is sacrebleu's lowercase)."""
    return {("lowercase" if k == "ignore_case" else k): v for k, v in params.items()}


# sacrebleu's TER options, as evalcore parameters (ignore_case = not case_sensitive)
TER_OPTIONS = [
    {}, {"normalized": True}, {"no_punct": True}, {"ignore_case": False},
    {"normalized": True, "asian_support": True}, {"no_punct": True, "asian_support": True},
    {"normalized": True, "no_punct": True, "asian_support": True, "ignore_case": False},
]


def sacre_ter(params: dict) -> TER:
    options = {k: v for k, v in params.items() if k != "ignore_case"}
    return TER(case_sensitive=not params.get("ignore_case", True), **options)


@SETTINGS
@given(data=corpora(max_refs=1), params=st.sampled_from(TER_OPTIONS))
def test_corpus_ter_equals_sacrebleu(data: tuple[list[str], list[list[str]]], params: dict) -> None:
    hyps, refs = data
    ter = sacre_ter(params)
    want = ter.corpus_score(hyps, streams(refs))
    got = corpus("overlap/ter", hyps, refs, **params)
    assert got.value == want.score
    assert (got.details["num_edits"], got.details["ref_length"]) == (want.num_edits, want.ref_length)
    assert got.details["signature"] == str(ter.get_signature())


@SETTINGS
@given(data=corpora())
def test_corpus_ter_with_several_references_equals_sacrebleu(data: tuple[list[str], list[list[str]]]) -> None:
    # sacrebleu adds average reference lengths (k/3 ...) as floats; evalcore adds fractions
    hyps, refs = data
    want = sacrebleu.corpus_ter(hyps, streams(refs)).score
    assert corpus("overlap/ter", hyps, refs).value == pytest.approx(want, rel=1e-13, abs=1e-13)


@SETTINGS
@given(hyp=any_texts, refs=st.lists(any_texts, min_size=1, max_size=3), params=st.sampled_from(TER_OPTIONS))
def test_sentence_ter_equals_sacrebleu(hyp: str, refs: list[str], params: dict) -> None:
    score = evalcore.get_metric("overlap/sentence_ter", **params).score_one(
        {"reference_answer": refs}, {"response": hyp})
    assert score.value == sacre_ter(params).sentence_score(hyp, refs).score


@pytest.mark.parametrize(("hyp", "refs", "value"), [
    ("a c b", ["a b c"], 100 / 3),          # one shift of one word over 3 reference words
    ("a b c", ["A B C"], 0.0),              # case-insensitive by default
    ("the cat", ["the cat sat on it"], 60.0),  # 3 insertions / 5
    ("x y", [""], 100.0),                   # empty reference, non-empty response
    ("", [""], 0.0),                        # both empty
    ("a c b", ["a b c", "a c b d"], 100 / 3.5),  # best edits 1; average length (3 + 4) / 2
])
def test_hand_worked_ter(hyp: str, refs: list[str], value: float) -> None:
    score = evalcore.get_metric("overlap/sentence_ter").score_one({"reference_answer": refs}, {"response": hyp})
    assert score.value == pytest.approx(value)
    assert score.value == sacrebleu.sentence_ter(hyp, refs).score


def test_ter_case_and_id() -> None:
    metric = evalcore.get_metric("overlap/sentence_ter", ignore_case=False)
    assert metric.id == "overlap/sentence_ter(ignore_case=False)"
    score = metric.score_one({"reference_answer": "A B C"}, {"response": "a b c"})
    assert score.value == 100.0 and "case:mixed" in score.details["signature"]
    assert evalcore.describe("overlap/ter").spec.direction.value == "lower"


def test_ter_unequal_reference_counts() -> None:
    hyps, refs = ["a cat", "a dog"], [["a cat"], ["a dog", "one dog"]]
    assert corpus("overlap/ter", hyps, refs).status.value == "error"
    allowed = corpus("overlap/ter", hyps, refs, variable_references=True)
    assert allowed.value == TER().corpus_score(hyps, [["a cat", "a dog"], [None, "one dog"]]).score
