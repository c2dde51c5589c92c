"""``evalcore.plugin.inputs``: the texts every plugin compares, read the same way."""

from __future__ import annotations

import pytest
from evalcore.plugin import InputError, ParameterError, SkipSample, inputs

DOCS = [{"doc_id": "a", "text": "first"}, {"doc_id": "b", "text": "second"}, {"doc_id": "c", "text": "third"}]


def test_a_blank_response_is_scored_or_skips_as_asked():
    assert inputs.response({"response": "  "}) == "  "
    with pytest.raises(SkipSample, match="^prediction.response is empty$"):
        inputs.response({"response": "  "}, blank="skip")
    with pytest.raises(SkipSample, match="missing"):
        inputs.response({}, blank="score")
    with pytest.raises(InputError, match="prediction.response"):
        inputs.response({"response": 3})
    with pytest.raises(ParameterError, match="blank"):
        inputs.response({"response": "x"}, blank="drop")


def test_targets_are_the_references_or_the_query():
    example = {"query": "q", "reference_answer": ["one", " ", "two"]}
    assert inputs.targets(example) == ["one", " ", "two"]
    assert inputs.targets(example, blank="skip") == ["one", "two"]
    assert inputs.targets(example, "query") == ["q"]
    with pytest.raises(SkipSample, match="^example.reference_answer is empty$"):
        inputs.targets({"reference_answer": ["", " "]}, blank="skip")
    with pytest.raises(SkipSample, match="^example.query is empty$"):
        inputs.targets({"query": " "}, "query", blank="skip")
    with pytest.raises(SkipSample, match="example.query is missing"):
        inputs.targets({}, "query")
    with pytest.raises(ParameterError, match="compare_to"):
        inputs.targets(example, "answer")


def test_evidence_is_the_first_k_retrieved_or_the_relevant_documents():
    prediction = {"retrieved": DOCS}
    assert inputs.evidence({}, prediction) == ["first", "second", "third"]
    assert inputs.evidence({}, prediction, k=2) == ["first", "second"]
    assert inputs.evidence({"relevant_docs": DOCS[2:]}, prediction, "relevant") == ["third"]
    # nothing retrieved: DSPy's context, one string or a list of them
    assert inputs.evidence({}, {"context": "the whole context"}) == ["the whole context"]
    assert inputs.evidence({}, {"context": ["p1", "p2"]}, k=1) == ["p1"]
    with pytest.raises(SkipSample, match="^no retrieved documents to check the response against$"):
        inputs.evidence({}, {"retrieved": []})
    with pytest.raises(SkipSample, match="prediction.retrieved is missing"):
        inputs.evidence({}, {})


def test_passages_take_dspy_context_as_a_list_only():
    assert inputs.passages({"context": ["p1"], "retrieved": DOCS}) == ["p1"]
    assert inputs.passages({"context": ["p1"], "retrieved": DOCS}, "retrieved") == ["first", "second", "third"]
    with pytest.raises(InputError, match="prediction.context: expected a list of documents"):
        inputs.passages({"context": "one string"})
