"""Bad and missing input: one bad record is a per-sample ``error`` or ``skipped`` result."""

from __future__ import annotations

import evalcore
import pytest

SAMPLE_METRICS = [
    "overlap/exact_match", "overlap/token_f1", "overlap/hotpot_f1", "overlap/answer_exact_match",
    "overlap/rouge(variant='L')", "overlap/rouge(variant='Lsum')", "overlap/sentence_bleu",
    "overlap/sentence_chrf", "overlap/sentence_ter", "overlap/string_exact_match",
]
CORPUS_METRICS = ["overlap/bleu", "overlap/chrf", "overlap/ter"]
GOOD = ({"reference_answer": "the cat sat"}, {"response": "a cat sat"})

BAD = [  # (example, prediction, status, text the reason or error message contains)
    ({"reference_answer": "x"}, {"response": 42}, "error", "prediction.response: expected a string"),
    ({"reference_answer": 3.5}, {"response": "x"}, "error", "example.reference_answer"),
    ({"reference_answer": ["x", 2]}, {"response": "x"}, "error", "example.reference_answer"),
    ({"reference_answer": {"a": 1}}, {"response": "x"}, "error", "example.reference_answer"),
    ({}, {"response": "x"}, "skipped", "example.reference_answer is missing"),
    ({"reference_answer": []}, {"response": "x"}, "skipped", "empty list"),
    ({"reference_answer": "x"}, {}, "skipped", "prediction.response is missing"),
    ({"reference_answer": "x"}, {"response": None}, "skipped", "prediction.response is missing"),
]


def message(score: evalcore.Score) -> str:
    return score.reason if score.status.value == "skipped" else f"{score.error_type}: {score.error_message}"


@pytest.mark.parametrize("metric_id", SAMPLE_METRICS + CORPUS_METRICS)
def test_bad_records_do_not_hide_the_good_ones(metric_id: str) -> None:
    metric = evalcore.get_metric(metric_id)
    examples = [GOOD[0], *(b[0] for b in BAD), GOOD[0]]
    predictions = [GOOD[1], *(b[1] for b in BAD), GOOD[1]]
    scores = metric.score_many(examples, predictions)
    assert scores[0].ok and scores[-1].ok
    for score, (_, _, status, text) in zip(scores[1:-1], BAD):
        assert score.status.value == status and text in message(score), message(score)


@pytest.mark.parametrize("metric_id", CORPUS_METRICS)
def test_corpus_value_ignores_bad_records(metric_id: str) -> None:
    metric = evalcore.get_metric(metric_id)
    good = metric.states([GOOD[0]], [GOOD[1]])
    mixed = metric.states([GOOD[0], *(b[0] for b in BAD)], [GOOD[1], *(b[1] for b in BAD)])
    states = [state for score, state in mixed if score.ok]
    assert metric.corpus_score(states) == metric.corpus_score([s for _, s in good])


@pytest.mark.parametrize("metric_id", SAMPLE_METRICS + CORPUS_METRICS)
def test_empty_response_is_scored_or_skipped_on_request(metric_id: str) -> None:
    example, empty = {"reference_answer": "the cat sat"}, {"response": "  "}
    assert evalcore.get_metric(metric_id).score_one(example, empty).ok
    skipped = evalcore.get_metric(metric_id, empty_response="skip").score_one(example, empty)
    assert skipped.status.value == "skipped" and skipped.reason == "prediction.response is empty"


def test_empty_response_scores_zero() -> None:
    example, empty = {"reference_answer": "the cat sat"}, {"response": ""}
    for metric_id in ("overlap/exact_match", "overlap/token_f1", "overlap/rouge(variant='1')"):
        assert evalcore.get_metric(metric_id).score_one(example, empty).value == 0.0


@pytest.mark.parametrize(("prediction", "text"), [
    ({"context": "one string"}, "prediction.context: expected a list of documents"),
    ({"retrieved": [{"doc_id": "d"}]}, "prediction.retrieved[0].text: document has no text"),
    ({}, "prediction.retrieved is missing"),
])
def test_passage_match_bad_passages(prediction: dict, text: str) -> None:
    score = evalcore.get_metric("overlap/answer_passage_match").score_one({"reference_answer": "x"}, prediction)
    assert not score.ok and text in message(score)


def test_rouge_query_comparison_needs_a_query() -> None:
    metric = evalcore.get_metric("overlap/rouge", variant="1", compare_to="query")
    assert metric.score_one({"query": "cat sat"}, {"response": "the cat"}).value == pytest.approx(0.5)
    assert metric.score_one({}, {"response": "the cat"}).reason == "example.query is missing"


def test_bad_parameters_are_rejected() -> None:
    with pytest.raises(evalcore.ParameterError):
        evalcore.get_metric("overlap/rouge", variant="X")
    with pytest.raises(evalcore.ParameterError):
        evalcore.get_metric("overlap/rouge")
    with pytest.raises(evalcore.ParameterError):
        evalcore.get_metric("overlap/bleu", tokenize="ja-mecab")
