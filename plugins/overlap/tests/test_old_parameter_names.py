"""Old parameter names (``top_k``, ``lowercase``) still work and give the same numbers as the new ones."""

from __future__ import annotations

import warnings

import evalcore
import pytest

DOCS = [{"doc_id": "1", "text": "The Eiffel Tower is in Paris."}, {"doc_id": "2", "text": "It opened in 1889."}]
EXAMPLE = {"reference_answer": ["The cat sat on the mat.", "A CAT IS ON THE MAT"], "relevant_docs": DOCS[1:]}
PREDICTION = {"response": "the Cat sat on The mat, Paris opened", "retrieved": DOCS}


def old(metric_id: str, **params: object) -> evalcore.Metric:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", evalcore.DeprecatedParameterWarning)
        return evalcore.get_metric(metric_id, **params)


@pytest.mark.parametrize(("metric_id", "new", "was"), [
    ("overlap/evidence_overlap_faithfulness", {"k": 1}, {"top_k": 1}),
    ("overlap/sentence_bleu", {"ignore_case": True}, {"lowercase": True}),
    ("overlap/sentence_chrf", {"ignore_case": True}, {"lowercase": True}),
    ("overlap/sentence_ter", {"ignore_case": False}, {"lowercase": False}),
])
def test_old_name_gives_the_same_number(metric_id: str, new: dict, was: dict) -> None:
    metric, before = evalcore.get_metric(metric_id, **new), old(metric_id, **was)
    assert before.id == metric.id and before.params == metric.params
    assert before.score_one(EXAMPLE, PREDICTION).value == metric.score_one(EXAMPLE, PREDICTION).value
    assert metric.score_one(EXAMPLE, PREDICTION).value != \
        evalcore.get_metric(metric_id).score_one(EXAMPLE, PREDICTION).value  # the parameter matters here


@pytest.mark.parametrize("metric_id", ["overlap/bleu", "overlap/chrf", "overlap/ter"])
def test_old_name_gives_the_same_corpus_number(metric_id: str) -> None:
    flip = not evalcore.describe(metric_id).spec.param("ignore_case").default
    metric, before = evalcore.get_metric(metric_id, ignore_case=flip), old(metric_id, lowercase=flip)
    pairs = [(EXAMPLE, PREDICTION), ({"reference_answer": ["A b C", "x y"]}, {"response": "a B c"})]
    examples, predictions = [e for e, _ in pairs], [p for _, p in pairs]
    values = [m.corpus_score([s for _, s in m.states(examples, predictions)]).value for m in (metric, before)]
    assert values[0] == values[1]


def test_old_name_in_the_id() -> None:
    assert old("overlap/evidence_overlap_faithfulness(top_k=1)").id == "overlap/evidence_overlap_faithfulness@1"
    assert old("overlap/bleu(lowercase=True)").id == "overlap/bleu(ignore_case=True)"
