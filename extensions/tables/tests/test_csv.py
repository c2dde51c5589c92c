"""CSV and TSV files as flat records."""

from __future__ import annotations

import evalcore
import pytest
from evalcore import MetricSpec, SampleMetric
from evalcore.plugin import inputs


class Matches(SampleMetric):
    """1 when the response equals the reference answer (skips, as the bundled metrics do, when one is missing)."""

    def score(self, example, prediction):
        return float(inputs.response_text(prediction) in inputs.reference_answers(example))


def matches():
    return Matches(MetricSpec(name="matches", namespace="t", implementation="tests:x", summary="matches"))


def test_csv_and_tsv_files_are_flat_records(tmp_path):
    csv = tmp_path / "data.csv"
    # a quoted cell with a comma; an empty cell is a missing field (r2 is skipped, not scored against "")
    csv.write_text('id,example.query,gold,response\nr1,q1,"x, y","x, y"\nr2,q2,,n\nr3,q3,z,z\n')
    result = evalcore.evaluate(csv, [matches()], field_map={"reference_answer": "gold"})
    summary = result.metrics["t/matches"]
    assert (summary.value, summary.n, summary.n_skipped) == (1.0, 2, 1)
    tsv = tmp_path / "data.tsv"
    tsv.write_text("id\treference_answer\tresponse\nr1\tx\tx\nr2\ty\tn\nr3\tz\tz\textra\n")
    result = evalcore.evaluate(tsv, [matches()])
    assert result.metrics["t/matches"].value == pytest.approx(1 / 2)  # r3 has a cell too many: rejected
    assert [str(e) for e in result.rejected] == [f"{tsv}:4: 4 cells but the header names 3 columns"]

