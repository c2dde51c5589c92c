"""Exact match, token F1, HotPotQA F1 and DSPy's answer matchers against DSPy itself; HF
evaluate's exact_match against its own lines."""

from __future__ import annotations

import re
import string

import dspy
import evalcore
import numpy as np
import pytest
from dspy.evaluate import metrics as dm
from hypothesis import given, settings
from hypothesis import strategies as st
from overlap_strategies import any_texts, references, texts

SETTINGS = settings(max_examples=300, deadline=None)


def value(metric_id: str, refs: str | list[str], response: str, **params: object) -> float | None:
    return evalcore.get_metric(metric_id, **params).score_one(
        {"reference_answer": refs}, {"response": response}
    ).value


@SETTINGS
@given(pred=any_texts, refs=references)
def test_em_f1_hotpot_equal_dspy(pred: str, refs: list[str]) -> None:
    assert value("overlap/exact_match", refs, pred, empty_reference="score") == float(dm.EM(pred, refs))
    assert value("overlap/token_f1", refs, pred) == dm.F1(pred, refs)
    assert value("overlap/hotpot_f1", refs, pred) == dm.HotPotF1(pred, refs)


@SETTINGS
@given(pred=any_texts, refs=references)
def test_answer_exact_match_equals_dspy(pred: str, refs: list[str]) -> None:
    example, prediction = dspy.Example(answer=refs), dspy.Prediction(answer=pred)
    for frac in (1.0, 0.5, 0.8):
        metric = evalcore.get_metric("overlap/answer_exact_match", frac=frac)
        assert metric(example, prediction) == float(dm.answer_exact_match(example, prediction, frac=frac))


@SETTINGS
@given(refs=references, context=references)
def test_answer_passage_match_equals_dspy(refs: list[str], context: list[str]) -> None:
    example, prediction = dspy.Example(answer=refs), dspy.Prediction(context=context)
    expected = float(dm.answer_passage_match(example, prediction))
    assert evalcore.get_metric("overlap/answer_passage_match")(example, prediction) == expected
    retrieved = {"retrieved": [{"doc_id": str(i), "text": t} for i, t in enumerate(context)]}
    assert value_passage(refs, retrieved) == expected


def value_passage(refs: list[str], prediction: dict) -> float | None:
    metric = evalcore.get_metric("overlap/answer_passage_match")
    return metric.score_one({"reference_answer": refs}, prediction).value


@pytest.mark.parametrize(("pred", "refs"), [
    ("", [""]), ("the", ["a"]), ("!!!", ["..."]), ("", ["Paris"]), ("Paris", [""]),
    ("yes", ["Yes."]), ("no", ["yes"]), ("noanswer", ["no answer"]), ("Café", ["cafe\u0301"]),
    ("The Eiffel Tower", ["Eiffel Tower", "Louvre"]), ("a b c", ["c b a", "a b"]),
])
def test_edge_cases_equal_dspy(pred: str, refs: list[str]) -> None:
    assert value("overlap/exact_match", refs, pred, empty_reference="score") == float(dm.EM(pred, refs))
    assert value("overlap/token_f1", refs, pred) == dm.F1(pred, refs)
    assert value("overlap/hotpot_f1", refs, pred) == dm.HotPotF1(pred, refs)


def test_exact_match_skips_blank_references_as_the_rag_spec_says() -> None:
    # "mean of em over samples with non-empty reference_answer"
    metric = evalcore.get_metric("overlap/exact_match")
    blank = metric.score_one({"reference_answer": "  "}, {"response": ""})
    assert blank.status.value == "skipped" and "reference_answer is empty" in blank.reason
    assert metric.score_one({"reference_answer": ["", "Paris"]}, {"response": ""}).value == 0.0
    assert metric.score_one({"reference_answer": ["", "Paris"]}, {"response": "paris"}).value == 1.0
    result = evalcore.evaluate(examples=[{"reference_answer": "Paris"}, {"reference_answer": ""}],
                               predictions=[{"response": "Paris"}, {"response": ""}], metrics=[metric])
    summary = result.metrics[metric.id]
    assert summary.value == 1.0 and summary.n == 1 and summary.n_skipped == 1
    assert value("overlap/exact_match", "", "", empty_reference="score") == 1.0  # the former behaviour


def test_both_empty_is_a_parameter() -> None:
    # "the" and "!!!" both normalise to no tokens: DSPy gives 0, SQuAD v2 gives 1.
    assert value("overlap/token_f1", "the", "!!!") == 0.0
    assert value("overlap/token_f1", "the", "!!!", both_empty=1.0) == 1.0
    assert value("overlap/hotpot_f1", "the", "", both_empty=1.0) == 1.0
    # one side empty stays 0 under both conventions
    assert value("overlap/token_f1", "Paris", "", both_empty=1.0) == 0.0
    assert evalcore.get_metric("overlap/token_f1", both_empty=1.0).id == "overlap/token_f1(both_empty=1.0)"


def test_normalisation_switches() -> None:
    assert value("overlap/exact_match", "Paris", "paris") == 1.0
    assert value("overlap/exact_match", "Paris", "paris", ignore_case=False) == 0.0
    assert value("overlap/exact_match", "Paris!", "Paris", ignore_punctuation=False) == 0.0
    assert value("overlap/exact_match", "the tower", "tower", ignore_articles=False) == 0.0
    # "the cat sat" vs "cat sat": 2 common tokens, P = 2/2, R = 2/3 -> F1 = 0.8
    assert value("overlap/token_f1", "the cat sat", "cat sat", ignore_articles=False) == pytest.approx(0.8)


def test_multi_reference_takes_the_max() -> None:
    score = evalcore.get_metric("overlap/token_f1").score_one(
        {"reference_answer": ["Louvre museum", "Eiffel Tower"]}, {"response": "the Eiffel Tower"}
    )
    assert score.value == 1.0 and score.details["best_reference"] == 1


def test_frac_threshold() -> None:
    # "eiffel tower in paris" vs "eiffel tower": P = 2/4, R = 1 -> F1 = 2/3
    assert value("overlap/answer_exact_match", "Eiffel Tower", "Eiffel Tower in Paris", frac=0.6) == 1.0
    assert value("overlap/answer_exact_match", "Eiffel Tower", "Eiffel Tower in Paris", frac=0.7) == 0.0
    assert value("overlap/answer_exact_match", "Eiffel Tower", "Eiffel Tower in Paris") == 0.0


def test_passage_source() -> None:
    metric = evalcore.get_metric("overlap/answer_passage_match", passage_source="retrieved")
    prediction = {"context": ["Paris is nice"], "retrieved": [{"doc_id": "d", "text": "Rome"}]}
    assert metric.score_one({"reference_answer": "Paris"}, prediction).value == 0.0
    assert value_passage(["Paris"], prediction) == 1.0
    assert value_passage(["Paris"], {"context": []}) == 0.0


def test_dspy_calling_convention() -> None:
    gold, pred = dspy.Example(answer=["Eiffel Tower"]), dspy.Prediction(answer="the eiffel tower!")
    metric = evalcore.get_metric("overlap/token_f1")
    assert metric(gold, pred) == 1.0
    assert metric(gold, dspy.Prediction(answer="Tower"), trace=[]) is False  # F1 2/3 < pass value 1


def evaluate_exact_match(predictions: list[str], references: list[str], regexes_to_ignore: list[str] | None = None,
                         ignore_case: bool = False, ignore_punctuation: bool = False,
                         ignore_numbers: bool = False) -> float:
    """The reference: HF evaluate's exact_match ``_compute`` (metrics/exact_match/exact_match.py
    on evaluate's main branch), ported line for line. evaluate loads its metric scripts from
    the Hugging Face hub, which the tests cannot reach."""
    if regexes_to_ignore is not None:
        for s in regexes_to_ignore:
            predictions = np.array([re.sub(s, "", x) for x in predictions])
            references = np.array([re.sub(s, "", x) for x in references])
    else:
        predictions = np.asarray(predictions)
        references = np.asarray(references)
    if ignore_case:
        predictions = np.char.lower(predictions)
        references = np.char.lower(references)
    if ignore_punctuation:
        repl_table = string.punctuation.maketrans("", "", string.punctuation)
        predictions = np.char.translate(predictions, table=repl_table)
        references = np.char.translate(references, table=repl_table)
    if ignore_numbers:
        repl_table = string.digits.maketrans("", "", string.digits)
        predictions = np.char.translate(predictions, table=repl_table)
        references = np.char.translate(references, table=repl_table)
    score_list = predictions == references
    return float(np.mean(score_list))


REGEXES = ("the ", "yell", "YELL", r"\d+", r"\s+", "[aeiou]", "^a", "s$", r"\W", "(?i)cat", "a|b")
# numpy's fixed-width strings drop trailing NUL characters, which evalcore keeps
plain_texts = st.one_of(texts(8), st.text(max_size=20)).filter(lambda t: "\x00" not in t)


def string_match_mean(preds: list[str], refs: list[str], **params: object) -> float:
    metric = evalcore.get_metric("overlap/string_exact_match", **params)
    scores = metric.score_many([{"reference_answer": r} for r in refs], [{"response": p} for p in preds])
    return sum(s.value for s in scores) / len(scores)


@SETTINGS
@given(pairs=st.lists(st.tuples(plain_texts, plain_texts), min_size=1, max_size=6),
       regexes=st.lists(st.sampled_from(REGEXES), max_size=3), flags=st.tuples(*[st.booleans()] * 3))
def test_string_exact_match_equals_hf_evaluate(pairs: list[tuple[str, str]], regexes: list[str],
                                                flags: tuple[bool, bool, bool]) -> None:
    preds, refs = [p for p, _ in pairs], [r for _, r in pairs]
    options = dict(zip(("ignore_case", "ignore_punctuation", "ignore_numbers"), flags))
    want = evaluate_exact_match(preds, refs, regexes_to_ignore=regexes or None, **options)
    assert string_match_mean(preds, refs, regexes_to_ignore=regexes, **options) == want


# the examples of HF evaluate's exact_match documentation, with the rates it prints
EVALUATE_EXAMPLES = [
    ({}, 0.25),
    ({"regexes_to_ignore": ["the ", "yell"], "ignore_case": True, "ignore_punctuation": True}, 0.5),
    ({"regexes_to_ignore": ["the ", "yell", "YELL"], "ignore_case": True, "ignore_punctuation": True}, 0.75),
    ({"regexes_to_ignore": ["the ", "yell", "YELL"], "ignore_case": True, "ignore_punctuation": True,
      "ignore_numbers": True}, 1.0),
]


@pytest.mark.parametrize(("params", "rate"), EVALUATE_EXAMPLES)
def test_string_exact_match_documented_examples(params: dict, rate: float) -> None:
    refs, preds = ["the cat", "theater", "YELLING", "agent007"], ["cat?", "theater", "yelling", "agent"]
    assert string_match_mean(preds, refs, **params) == rate


def test_string_exact_match_is_not_normalised_by_default() -> None:
    refs = ["The cat sat on the mat.", "Theaters are great.", "It's like comparing oranges and apples."]
    preds = ["The cat sat on the mat?", "Theaters are great.", "It's like comparing apples and oranges."]
    assert string_match_mean(preds, refs) == pytest.approx(1 / 3)
    assert value("overlap/string_exact_match", "Paris ", "Paris") == 0.0  # whitespace counts
    assert value("overlap/string_exact_match", ["Rome", "Paris"], "Paris") == 1.0  # any reference
    assert value("overlap/exact_match", "Paris ", "the paris") == 1.0  # the DSPy / SQuAD match


def test_string_exact_match_parameters() -> None:
    metric = evalcore.get_metric("overlap/string_exact_match", regexes_to_ignore=[r"\s"], ignore_numbers=True)
    assert metric.id == "overlap/string_exact_match(regexes_to_ignore=['\\\\s'], ignore_numbers=True)"
    with pytest.raises(evalcore.ParameterError, match="regexes_to_ignore.*'\\('"):
        evalcore.get_metric("overlap/string_exact_match", regexes_to_ignore=["("])
    with pytest.raises(evalcore.ParameterError):
        evalcore.get_metric("overlap/string_exact_match", regexes_to_ignore="the ")
    with pytest.raises(evalcore.ParameterError, match="expected strings"):
        evalcore.get_metric("overlap/string_exact_match", regexes_to_ignore=[3])
