"""Rows out as a pandas frame or a Parquet file (tables in are evalcore-tables' business)."""

from __future__ import annotations

import json

import evalcore
import pytest
from evalcore import MetricSpec, SampleMetric

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")
pytest.importorskip("pyarrow.parquet")


class Matches(SampleMetric):
    def score(self, example, prediction):
        return example["reference_answer"] == prediction["response"]


def matches():
    return Matches(MetricSpec(name="matches", namespace="t", implementation="tests:x", summary="matches"))


FRAME = {"qid": ["a", "b", "c"], "question": ["q1", "q2", "q3"], "gold": ["x", "y", "z"], "answer": ["x", "n", "z"]}
RECORDS = [{"id": q, "example": {"query": x, "reference_answer": g}, "prediction": {"response": a}}
           for q, x, g, a in zip(*FRAME.values())]


def test_rows_and_summary_as_frames():
    result = evalcore.evaluate(RECORDS, [matches()])
    rows = result.to_pandas()
    assert list(rows["id"]) == ["a", "b", "c"]
    assert list(rows["t/matches"]) == [1.0, 0.0, 1.0] and set(rows["t/matches:status"]) == {"ok"}
    summary = result.summary_frame()
    assert summary.loc["t/matches", "n"] == 3 and summary.loc["t/matches", "ci_low"] <= 2 / 3


def test_parquet_samples_file_with_a_resumable_journal(tmp_path):
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps({"id": q, "example": {"reference_answer": g}, "prediction": {"response": a}})
                            + "\n" for q, g, a in zip(FRAME["qid"], FRAME["gold"], FRAME["answer"])))
    samples = tmp_path / "rows.parquet"
    evalcore.evaluate(data, [matches()], samples=samples)
    table = pd.read_parquet(samples)
    assert list(table["id"]) == ["a", "b", "c"] and list(table["t/matches"]) == [1.0, 0.0, 1.0]
    assert (tmp_path / "rows.parquet.journal.jsonl").exists()


def test_tiers_option_moves_a_metric_out_of_the_gate():
    class Judge(SampleMetric):
        def score(self, example, prediction):
            return 1.0

    judge = Judge(MetricSpec(name="judge", namespace="t", implementation="tests:x", summary="j", tier="truth"))
    records = [{"id": "r", "example": {"reference_answer": "x"}, "prediction": {"response": "y"}}]
    gated = evalcore.evaluate(records, [matches(), judge], threshold=0.5)
    assert gated.samples[0]["scores"]["t/judge"]["status"] == "skipped"  # proxy 0 < 0.5 closes the gate
    moved = evalcore.evaluate(records, [matches(), judge], threshold=0.5, tiers={"t/judge": "proxy"})
    assert moved.samples[0]["scores"]["t/judge"]["value"] == 1.0
