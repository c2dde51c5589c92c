"""pandas / Arrow tables and Parquet files as records."""

from __future__ import annotations

import json
import subprocess
import sys

import evalcore
import pytest
from evalcore import MetricSpec, NothingScoredWarning, SampleMetric
from evalcore.plugin import inputs

pd = pytest.importorskip("pandas")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


class Matches(SampleMetric):
    """1 when the response equals the reference answer (skips, as the bundled metrics do, when one is missing)."""

    def score(self, example, prediction):
        return float(inputs.response_text(prediction) in inputs.reference_answers(example))


def matches():
    return Matches(MetricSpec(name="matches", namespace="t", implementation="tests:x", summary="matches"))


FRAME = {"qid": ["a", "b", "c"], "question": ["q1", "q2", "q3"], "gold": ["x", "y", "z"], "answer": ["x", "n", "z"]}
COLUMNS = {"id": "qid", "example.query": "question", "example.reference_answer": "gold",
           "prediction.response": "answer"}


@pytest.mark.parametrize("make", [pd.DataFrame, pa.table])
def test_a_frame_maps_columns_to_record_fields(make):
    result = evalcore.evaluate(make(FRAME), [matches()], columns=COLUMNS)
    assert result.metrics["t/matches"].value == pytest.approx(2 / 3)
    assert [row["id"] for row in result.samples] == ["a", "b", "c"]


def test_a_frame_without_columns_is_read_as_flat_records():
    frame = pd.DataFrame({"id": ["r1", "r2", "r3"], "reference_answer": ["x", "y", "z"], "response": ["x", "n", "z"]})
    assert evalcore.evaluate(frame, [matches()]).metrics["t/matches"].value == pytest.approx(2 / 3)
    renamed = frame.rename(columns={"reference_answer": "ground_truth", "response": "completion"})
    with pytest.warns(NothingScoredWarning, match="field_map={'response': 'completion', 'reference_answer': "
                                                  "'ground_truth'}"):
        evalcore.evaluate(renamed, [matches()])
    mapped = evalcore.evaluate(renamed, [matches()], field_map={"reference_answer": "ground_truth",
                                                                "response": "completion"})
    assert mapped.metrics["t/matches"].value == pytest.approx(2 / 3)


def test_a_parquet_file_through_the_command_line(tmp_path):
    rows = [{"id": q, "example": {"reference_answer": g}, "prediction": {"response": a}}
            for q, g, a in zip(FRAME["qid"], FRAME["gold"], FRAME["answer"])]
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "data.parquet")
    proc = subprocess.run([sys.executable, "-m", "evalcore", "evaluate", "data.parquet", "-m", "overlap/exact_match",
                           "--samples", "rows.parquet", "--json", "--no-progress"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    if "unknown metric" in proc.stderr:
        pytest.skip("evalcore-overlap is not installed")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["metrics"]["overlap/exact_match"]["value"] == pytest.approx(2 / 3)
    assert list(pd.read_parquet(tmp_path / "rows.parquet")["id"]) == ["a", "b", "c"]


def test_the_readers_are_listed_with_what_they_read():
    readers = {r.name: r for r in evalcore.plugin.default_registry().components("readers") if r.namespace == "tables"}
    assert readers["csv"].suffixes == (".csv", ".tsv") and readers["parquet"].suffixes == (".parquet",)
    assert readers["frame"].objects == ("pandas", "polars", "pyarrow")


def test_a_data_reader_is_not_a_reader_flag_value(tmp_path):
    from click.testing import CliRunner
    from evalcore._cli.main import main

    data = tmp_path / "data.csv"
    data.write_text("id,reference_answer,response\nr1,x,x\n")
    result = CliRunner().invoke(main, ["evaluate", "--reader", "csv", str(data), "-m", "overlap/exact_match"])
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert result.output.startswith("error: --reader: no reader named 'csv' (readers: ")
