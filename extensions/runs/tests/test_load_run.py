"""A finished run reads back the same from its EvaluationResult, its JSON report and its rows journal;
files that are no run are refused in one line naming them."""

from __future__ import annotations

import json
import os

import evalcore
import pytest
from evalcore.plugin import InputError, read_saved
from evalcore_runs import Run, load_run, load_runs

RECORDS = [{"id": f"r{i}", "example": {"reference_answer": "yes"}, "prediction": {"response": answer}}
           for i, answer in enumerate(["yes", "no", "yes", "yes"])]


def _exact(example, prediction):
    return float(example["reference_answer"] == prediction["response"])


@pytest.fixture
def finished(tmp_path):
    return evalcore.evaluate(RECORDS, [_exact], output=tmp_path / "run.json", progress=False)


def test_result_report_and_journal_give_the_same_rows(finished, tmp_path):
    (metric_id,) = finished.metrics
    from_result = load_run(finished)
    from_report = load_run(tmp_path / "run.json")
    from_journal = load_run(finished.samples_path)
    values = {run.name: {rid: row["scores"][metric_id]["value"] for rid, row in run.rows.items()}
              for run in (from_result, from_report, from_journal)}
    # by hand: the second record answered "no"
    assert values == {name: {"r0": 1.0, "r1": 0.0, "r2": 1.0, "r3": 1.0}
                      for name in ("baseline", "run", os.path.basename(finished.samples_path)[:-len(".jsonl")])}
    assert from_report.files == (str(tmp_path / "run.json"), os.fspath(finished.samples_path))
    assert from_report.summary[metric_id]["value"] == pytest.approx(0.75)
    assert from_report.granularity(metric_id) == "sample" and from_report.direction(metric_id) == "higher"
    assert read_saved(tmp_path / "run.json").rows == from_report.rows


def test_runs_get_distinct_names_and_a_run_passes_through(finished):
    runs = load_runs([finished, finished])
    assert [run.name for run in runs] == ["baseline", "system 1"]
    assert load_run(runs[0], "renamed").name == "renamed" and isinstance(runs[0], Run)
    with pytest.raises(InputError, match="1 names given for 2 runs"):
        load_runs([finished, finished], ["one"])


def test_a_file_that_is_no_run_is_refused_naming_it(tmp_path):
    odd = tmp_path / "odd.json"
    odd.write_text(json.dumps({"not": "a report"}))
    with pytest.raises(InputError) as info:
        load_run(odd)
    assert str(info.value) == f"{odd}: not an evalcore report (no 'metrics')"
    with pytest.raises(InputError, match="cannot compare a int"):
        load_run(3)
