"""``field_map``, flat records and the reasons a metric scored nothing, through ``evalcore.evaluate``."""

from __future__ import annotations

import copy
import warnings

import evalcore
import pytest
from evalcore import MetricSpec, NothingScoredWarning, SampleMetric
from evalcore._contract.records import parse_record
from evalcore.plugin import reference_answers, response_text


class Matches(SampleMetric):
    """1 when the response equals the reference answer (skips, as the bundled metrics do, when one is missing)."""

    def score(self, example, prediction):
        return float(response_text(prediction) in reference_answers(example))


def matches():
    return Matches(MetricSpec(name="matches", namespace="t", implementation="tests:x", summary="matches"))


# matches: r1 "x" == "x", r2 "y" != "n", r3 "z" == "z" -> 2/3
FLAT = [{"id": "r1", "question": "q1", "answer": "x", "output": "x"},
        {"id": "r2", "question": "q2", "answer": "y", "output": "n"},
        {"id": "r3", "question": "q3", "answer": "z", "output": "z"}]
STANDARD = [{"id": r["id"], "example": {"query": r["question"], "reference_answer": r["answer"]},
             "prediction": {"response": r["output"]}} for r in FLAT]


def test_a_metric_that_scores_nothing_warns_with_the_reason_and_the_field_map_that_fixes_it():
    with pytest.warns(NothingScoredWarning) as caught:
        result = evalcore.evaluate(FLAT, [matches()])
    assert result.metrics["t/matches"].value is None and result.metrics["t/matches"].n_skipped == 3
    assert str(caught[0].message) == (
        "t/matches scored no record (3 skipped — prediction.response is missing (3); did you mean "
        "field_map={'response': 'output', 'reference_answer': 'answer', 'query': 'question'}?)")
    assert caught[0].filename == __file__  # it names the caller's line
    assert result.metrics["t/matches"].details["reasons"][0]["hints"][0] == "response=output"


def test_field_map_gives_the_numbers_of_correctly_named_records():
    expected = evalcore.evaluate(STANDARD, [matches()]).metrics["t/matches"].value
    assert expected == pytest.approx(2 / 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", NothingScoredWarning)
        mapped = evalcore.evaluate(FLAT, [matches()], field_map={"reference_answer": "answer", "response": "output"})
    assert mapped.metrics["t/matches"].value == expected
    assert mapped.provenance["options"]["field_map"] == {"example.reference_answer": "answer",
                                                         "prediction.response": "output"}


def test_field_map_copies_and_leaves_the_callers_records_alone():
    records = copy.deepcopy(STANDARD)
    for record in records:
        record["example"]["gold"] = {"text": record["example"].pop("reference_answer")}
    before = copy.deepcopy(records)
    result = evalcore.evaluate(records, [matches()], field_map={"example.reference_answer": "example.gold.text"})
    assert result.metrics["t/matches"].value == pytest.approx(2 / 3)
    assert records == before


def test_the_flat_record_rule():
    record = parse_record({"id": 7, "query": "q", "reference_answer": "a", "response": "r", "question": "other"},
                          source="x:1", default_id="1")
    assert record.id == "7"
    assert dict(record.example) == {"query": "q", "reference_answer": "a", "id": "7"}
    assert dict(record.prediction) == {"response": "r", "question": "other"}


@pytest.mark.parametrize(("field_map", "message"), [
    ({"foo": "answer"}, "field_map: 'foo' is not a field of the record format; write example.foo or prediction.foo"),
    ({"example": "answer"}, "field_map: 'example' is not a field of the record format"),
    ({"response": ""}, "must map a field name to a field path"),
    ("reference_answer=answer", "field_map must be a mapping {NEW: OLD}"),
])
def test_bad_field_maps_are_refused_before_the_run(field_map, message):
    with pytest.raises(evalcore.EvalcoreError, match=None) as caught:
        evalcore.evaluate(STANDARD, [matches()], field_map=field_map)
    assert message in str(caught.value)


def test_reasons_are_shown_when_most_records_went_unscored_and_not_otherwise():
    from evalcore._engine.output import format_table

    few = copy.deepcopy(STANDARD)
    del few[0]["example"]["reference_answer"]  # 1 of 3 skipped: the table needs no explanation
    assert "skipped —" not in evalcore.evaluate(few, [matches()]).table()
    most = copy.deepcopy(few)
    del most[1]["example"]["reference_answer"]  # 2 of 3 skipped
    table = evalcore.evaluate(most, [matches()]).table()
    assert table.splitlines()[-1] == "t/matches: 2 skipped — example.reference_answer is missing (2)"
    assert format_table({}) == "metric  value  scale  n  95% CI  skipped  errors\n" \
        "------  -----  -----  -  ------  -------  ------"


def test_records_given_as_record_objects_are_mapped_too():
    records = [evalcore.Record(r["id"], {"answer": r["answer"]}, {"output": r["output"]}) for r in FLAT]
    result = evalcore.evaluate(records, [matches()], field_map={"reference_answer": "answer", "response": "output"})
    assert result.metrics["t/matches"].value == pytest.approx(2 / 3)


TEXT = ["prediction.response", "example.reference_answer", "example.query"]


@pytest.mark.parametrize(("missing", "fields", "hints"), [
    # ragas before 0.2, ragas 0.2, DeepEval
    (TEXT, ["question", "answer", "contexts", "ground_truth"],
     ["response=answer", "reference_answer=ground_truth", "query=question"]),
    (TEXT[1:], ["user_input", "response", "retrieved_contexts", "reference"],
     ["reference_answer=reference", "query=user_input"]),
    (TEXT, ["input", "actual_output", "expected_output", "retrieval_context"],
     ["response=actual_output", "reference_answer=expected_output", "query=input"]),
    (TEXT, ["answer", "output"], ["response=output", "reference_answer=answer"]),  # answer: the reference's last
    (TEXT, ["answer"], ["response=answer"]),  # never one field for two roles
    (TEXT, ["example.answer", "prediction.answer"], ["response=prediction.answer", "reference_answer=example.answer"]),
    (["prediction.retrieved", "example.relevant_docs"], ["contexts", "reference_contexts"],
     ["retrieved=contexts", "relevant_docs=reference_contexts"]),
])
def test_suggestions_give_each_role_its_best_named_field_and_no_field_two_roles(missing, fields, hints):
    from evalcore._contract.field_map import suggestions

    assert suggestions(missing, fields) == hints
    assert suggestions(TEXT[1:2], ["answer", "gold"], taken=["gold"]) == ["reference_answer=answer"]


def test_a_response_equal_to_the_reference_answer_on_every_record_is_a_warning_in_the_table_and_details():
    spec = MetricSpec(name="matches", namespace="t", implementation="tests:x", summary="matches",
                      inputs=("example.reference_answer", "prediction.response"))
    records = [{"id": str(k), "answer": f"a{k}"} for k in range(6)]
    result = evalcore.evaluate(records, [Matches(spec)], field_map={"reference_answer": "answer", "response": "answer"})
    warning = "response equals reference_answer on 6 of 6 records: check the field map"
    assert result.metrics["t/matches"].details["warnings"] == [warning]
    assert result.table().splitlines()[-1] == f"t/matches: warning: {warning}"
    half = [{"id": str(k), "reference_answer": f"a{k}", "response": f"a{k}" if k % 2 else "b"} for k in range(6)]
    assert "warnings" not in evalcore.evaluate(half, [Matches(spec)]).metrics["t/matches"].details
