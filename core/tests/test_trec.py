"""TREC qrels/run reading and record building."""

from __future__ import annotations

from pathlib import Path

import pytest
from evalcore import InputError
from evalcore.trec import read_qrels, read_run, records_from_trec

REFERENCE = Path(__file__).resolve().parents[2].parent / "shared" / "reference" / "trec_eval"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_read_qrels_keeps_grades_and_order(tmp_path):
    path = write(tmp_path, "qrels", "q1 0 d1 1\nq1 0 d2 0\n\nq2 0 d1 2\n")
    assert read_qrels(path) == {"q1": {"d1": 1, "d2": 0}, "q2": {"d1": 2}}
    assert list(read_qrels(path)["q1"]) == ["d1", "d2"]


def test_read_run_ignores_rank_and_trailing_columns(tmp_path):
    # trec_eval ranks by score and ignores the rank column and anything after the tag
    path = write(tmp_path, "run", "q1 Q0 d1 7 1.5 tag\nq1 Q0 d2 1 -2 tag more junk\n")
    assert read_run(path) == {"q1": {"d1": 1.5, "d2": -2.0}}


@pytest.mark.parametrize(
    ("reader", "text", "line", "field", "words"),
    [
        (read_qrels, "q1 0 d1 1\nq1 0 d2\n", 2, "columns", "expected 4 columns"),
        (read_qrels, "q1 0 d1 1 extra\n", 1, "columns", "got 5"),
        (read_qrels, "q1 0 d1 high\n", 1, "rel", "integer"),
        (read_qrels, "q1 0 d1 1\nq1 0 d1 0\n", 2, "docno", "twice"),
        (read_run, "q1 Q0 d1 1 0.5\n", 1, "columns", "expected 6 columns"),
        (read_run, "q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 abc t\n", 2, "score", "number"),
        (read_run, "q1 Q0 d1 1 nan t\n", 1, "score", "NaN"),
        (read_run, "q1 Q0 d1 1 0.5 t\nq1 Q0 d1 2 0.4 t\n", 2, "docno", "twice"),
    ],
)
def test_malformed_lines_name_file_line_and_field(tmp_path, reader, text, line, field, words):
    path = write(tmp_path, "input.txt", text)
    with pytest.raises(InputError) as info:
        reader(path)
    assert info.value.source == f"{path}:{line}"
    assert info.value.field == field
    assert words in str(info.value) and f"{path}:{line}" in str(info.value)


def test_records_cover_queries_in_either_input(tmp_path):
    qrels = write(tmp_path, "qrels", "q1 0 a 1\nq1 0 b 0\nq3 0 c 2\n")
    run = write(tmp_path, "run", "q1 Q0 a 1 0.5 t\nq1 Q0 b 2 0.9 t\nq2 Q0 z 1 1.0 t\n")
    records = records_from_trec(qrels, run)
    # run order (q1, q2), then the query found only in the qrels (q3)
    assert [r["id"] for r in records] == ["q1", "q2", "q3"]
    q1, q2, q3 = records
    assert q1["example"]["relevant_docs"] == [
        {"doc_id": "a", "relevance": 1}, {"doc_id": "b", "relevance": 0},
    ]
    assert q1["prediction"]["retrieved"] == [
        {"doc_id": "b", "score": 0.9, "rank": 1}, {"doc_id": "a", "score": 0.5, "rank": 2},
    ]
    assert q2["example"]["relevant_docs"] == []
    assert q3["prediction"]["retrieved"] == []


def test_records_order_ties_by_docno_descending():
    # trec_eval sorts by score descending, then by docno descending (strcmp)
    records = records_from_trec({"q": {"a": 1}}, {"q": {"a": 1.0, "c": 1.0, "b": 1.0, "d": 2.0}})
    assert [d["doc_id"] for d in records[0]["prediction"]["retrieved"]] == ["d", "c", "b", "a"]


def test_records_from_dicts_equal_records_from_files(tmp_path):
    qrels = {"q1": {"a": 1, "b": 0}}
    run = {"q1": {"a": 0.1, "b": 0.2}}
    qrels_path = write(tmp_path, "qrels", "q1 0 a 1\nq1 0 b 0\n")
    run_path = write(tmp_path, "run", "q1 Q0 a 2 0.1 t\nq1 Q0 b 1 0.2 t\n")
    assert records_from_trec(qrels, run) == records_from_trec(qrels_path, run_path)


@pytest.mark.parametrize(
    ("qrels", "run", "source", "field"),
    [
        ({"q": {"a": "1"}}, {}, "qrels", "['q']['a']"),
        ({"q": {"a": 1.5}}, {}, "qrels", "['q']['a']"),
        ({}, {"q": {"a": "high"}}, "run", "['q']['a']"),
        ({}, {"q": {"a": float("nan")}}, "run", "['q']['a']"),
        ({}, {"q": ["a"]}, "run", "['q']"),
    ],
)
def test_bad_dicts_name_query_and_document(qrels, run, source, field):
    with pytest.raises(InputError) as info:
        records_from_trec(qrels, run)
    assert (info.value.source, info.value.field) == (source, field)


def test_reads_trec_eval_test_collection():
    if not REFERENCE.is_dir():
        pytest.skip(f"trec_eval reference data not found at {REFERENCE}")
    qrels = read_qrels(REFERENCE / "qrels.test")
    run = read_run(REFERENCE / "results.trunc")
    # out.test.aqc: num_rel 474/77/10 and num_ret 500/0/84 for queries 301/302/303
    expected_rel = _measure(REFERENCE / "out.test.aqc", "num_rel")
    expected_ret = _measure(REFERENCE / "out.test.aqc", "num_ret")
    for qid in ("301", "302", "303"):
        assert sum(rel > 0 for rel in qrels[qid].values()) == expected_rel[qid]
        assert len(run.get(qid, {})) == expected_ret[qid]
    records = records_from_trec(REFERENCE / "qrels.test", REFERENCE / "results.trunc")
    assert {r["id"] for r in records} == set(qrels) | set(run)


def _measure(path: Path, name: str) -> dict[str, int]:
    values = {}
    for line in path.read_text().splitlines():
        measure, qid, value = line.split()
        if measure == name and qid != "all":
            values[qid] = int(value)
    return values
