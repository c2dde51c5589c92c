"""Evidence-overlap faithfulness (seed 002 §4.4.1)."""

from __future__ import annotations

import evalcore
import pytest

DOCS = [{"doc_id": "1", "text": "The Eiffel Tower is in Paris."}, {"doc_id": "2", "text": "It opened in 1889."}]


def faithfulness(response: str, **params: object) -> evalcore.Score:
    metric = evalcore.get_metric("overlap/evidence_overlap_faithfulness", **params)
    return metric.score_one({"relevant_docs": DOCS[1:]}, {"response": response, "retrieved": DOCS})


def test_unigram_recall() -> None:
    # normalised response tokens: eiffel tower opened in 1889 in rome (7); "rome" is unsupported
    score = faithfulness("The Eiffel Tower opened in 1889 in Rome.")
    assert score.value == pytest.approx(6 / 7)
    assert score.details == {"supported": 6, "ngrams": 7}
    assert "rome" in score.feedback


def test_bigrams_do_not_span_documents() -> None:
    # bigrams: (tower is) (is in) (in paris) (paris it) (it opened): "paris it" would only
    # exist across the document boundary -> 4/5
    assert faithfulness("Tower is in Paris it opened", n=2).value == pytest.approx(4 / 5)


def test_evidence_source_and_k() -> None:
    # only document 2 counts: "opened in 1889" supported, "paris" not -> 3/4
    assert faithfulness("Paris opened in 1889", evidence_source="relevant").value == pytest.approx(3 / 4)
    # only document 1 counts: "paris" and "in" supported, "opened" and "1889" not -> 2/4
    assert faithfulness("Paris opened in 1889", k=1).value == pytest.approx(2 / 4)
    assert evalcore.get_metric("overlap/evidence_overlap_faithfulness", n=2, k=3).id == \
        "overlap/evidence_overlap_faithfulness(n=2)@3"


def test_unicode_tokenizer_for_unspaced_scripts() -> None:
    metric = evalcore.get_metric("overlap/evidence_overlap_faithfulness", tokenizer="unicode")
    score = metric.score_one({}, {"response": "東京です", "retrieved": [{"doc_id": "1", "text": "東京は首都です"}]})
    assert score.value == 1.0


@pytest.mark.parametrize(("example", "prediction", "reason"), [
    ({}, {"response": "x", "retrieved": []}, "no retrieved documents to check the response against"),
    ({}, {"response": "x"}, "prediction.retrieved is missing"),
    ({}, {"response": "!!!", "retrieved": DOCS}, "the response has no 1-grams"),
    ({}, {"response": "", "retrieved": DOCS}, "prediction.response is empty"),
])
def test_unscorable_samples_are_skipped(example: dict, prediction: dict, reason: str) -> None:
    score = evalcore.get_metric("overlap/evidence_overlap_faithfulness").score_one(example, prediction)
    assert score.status.value == "skipped" and score.reason == reason
