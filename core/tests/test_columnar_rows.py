"""Columnar chunks (a reader's columns scored whole): the journal rows and aggregates equal those
of the same metrics scored on the records, for awkward ids, metric ids and skip reasons."""

from __future__ import annotations

import math
from types import SimpleNamespace

import evalcore
import numpy as np
import orjson
import pytest
from evalcore import BatchMetric, MetricSpec, Score
from evalcore._engine.journal import encode_row
from evalcore.plugin import Chunk, ColumnScores
from hypothesis import given, settings
from hypothesis import strategies as st

IDS = ["q0", 'a "quoted" id', "back\\slash\\", '","', "\\", "", "100%", "%s %d", "naïve ✓", "tab\there", "\u2028"]


class Columns:
    """A reader's columns: ids and one number per record."""

    def __init__(self, ids, numbers):
        self.ids, self.numbers = ids, numbers

    def records(self):
        return [evalcore.Record(i, {"n": n}, {}) for i, n in zip(self.ids, self.numbers)]


class ColumnSource:
    name = "columns"

    def __init__(self, ids, numbers, chunk_size):
        self.ids, self.numbers, self.size = ids, numbers, chunk_size

    def inputs(self):
        return []

    def fingerprint(self):
        return {"input": self.name}

    def total(self):
        return len(self.ids)

    def chunks(self, size):
        for index, start in enumerate(range(0, len(self.ids), self.size)):
            ids = self.ids[start:start + self.size]
            columns = Columns(ids, self.numbers[start:start + self.size])
            yield Chunk(index, columns.records(), list(range(start, start + len(ids))), columns=columns)


class Halves(BatchMetric):
    """n / 2, skipping negative n (with a reason that needs escaping); ``columnar`` turns the columns on."""

    columnar = True

    def accepts_columns(self, columns):
        return self.columnar and isinstance(columns, Columns)

    def score_columns(self, columns):
        numbers = np.asarray(columns.numbers, dtype=float)
        skipped = {int(i): f'negative "{columns.numbers[i]}" \\ %s' for i in np.flatnonzero(numbers < 0)}
        return ColumnScores(numbers / 2, skipped)

    def score_batch(self, examples, predictions):
        return [Score.skipped(f'negative "{e["n"]}" \\ %s') if e["n"] < 0 else e["n"] / 2 for e in examples]


def metric(name, columnar):
    built = Halves(MetricSpec(name=name, namespace="t", implementation="tests:x", summary=name,
                                value_range=(None, None)))
    built.columnar = columnar
    return built


def run(ids, numbers, columnar, tmp_path, chunk_size=4):
    samples = tmp_path / f"rows-{columnar}.jsonl"
    result = evalcore.evaluate(ColumnSource(ids, numbers, chunk_size),
                               [metric("halves", columnar), metric("halved", columnar)],
                               samples=samples, progress=False)
    return result, samples.read_bytes().split(b"\n", 1)[1]


def test_columnar_rows_are_the_bytes_of_the_row_dicts(tmp_path):
    numbers = [1, -2, 3.5, 0, 7, -1, 1e-300, 2**60, 5, 6, 9]
    result, lines = run(IDS, numbers, True, tmp_path)
    rows = [orjson.loads(line) for line in lines.splitlines() if b'"id"' in line[:6]]
    assert [row["id"] for row in rows] == IDS
    for row, number, position in zip(rows, numbers, range(len(IDS))):
        line = encode_row(row)
        assert line in lines  # the journal's bytes are orjson's for the row dict
        expected = ({"value": None, "status": "skipped", "reason": f'negative "{number}" \\ %s'} if number < 0
                    else {"value": number / 2, "status": "ok"})
        assert row == {"id": IDS[position], "i": position,
                       "scores": {"t/halves": expected, "t/halved": expected}}
    assert result.metrics["t/halves"].n == 9 and result.metrics["t/halves"].n_skipped == 2


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.text(max_size=6), st.one_of(st.integers(-3, 10), st.floats(-1, 1e6))),
                min_size=1, max_size=12, unique_by=lambda pair: pair[0]),
       st.integers(1, 5))
def test_columnar_and_record_paths_journal_the_same_rows(tmp_path_factory, pairs, chunk_size):
    tmp_path = tmp_path_factory.mktemp("rows")
    ids, numbers = [p[0] for p in pairs], [p[1] for p in pairs]
    by_columns, columns_lines = run(ids, numbers, True, tmp_path, chunk_size)
    by_records, records_lines = run(ids, numbers, False, tmp_path, chunk_size)
    assert columns_lines == records_lines
    for metric_id, summary in by_columns.metrics.items():
        other = by_records.metrics[metric_id]
        assert (summary.n, summary.n_skipped, summary.ci) == (other.n, other.n_skipped, other.ci)
        assert summary.value == other.value or (summary.value is None and other.value is None)


def test_non_string_ids_and_percent_signs_in_metric_ids():
    from evalcore._engine.columnar import score_columns

    halves = metric("halves", True)
    named = SimpleNamespace(id="t/halves(k='%s %d')", score_columns=halves.score_columns)
    chunk = Chunk(0, [], [5, 6, 7], columns=Columns([1, "x", 2.5], [2, -4, 1]))
    positions, lines, columns = score_columns(SimpleNamespace(metrics=[named]), chunk)
    skip = {"value": None, "status": "skipped", "reason": 'negative "-4" \\ %s'}
    expected = [{"id": 1, "i": 5, "scores": {named.id: {"value": 1.0, "status": "ok"}}},
                {"id": "x", "i": 6, "scores": {named.id: skip}},
                {"id": 2.5, "i": 7, "scores": {named.id: {"value": 0.5, "status": "ok"}}}]
    assert positions == [5, 6, 7] and lines == b"".join(map(encode_row, expected))
    assert list(columns[named.id].status) == [0, 1, 0]
    assert list(columns[named.id].values)[::2] == [1.0, 0.5] and math.isnan(columns[named.id].values[1])


@pytest.mark.parametrize("size", [1, 3, 1000])
def test_a_chunk_of_any_size(tmp_path, size):
    ids = [f"q{i}" for i in range(size)]
    _, lines = run(ids, list(range(size)), True, tmp_path, chunk_size=size)
    _, expected = run(ids, list(range(size)), False, tmp_path, chunk_size=size)
    assert lines == expected
