"""The TREC file reader: trec_eval 10's format, its errors, and the records and rankings it gives."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from evalcore.plugin import InputError
from evalcore_retrieval import evaluate_columns, evaluate_run, read_trec
from evalcore_retrieval._api import resolve
from evalcore_retrieval._trec_lines import RUN, read_columns, read_slowly

pytestmark = pytest.mark.usefixtures("trec_reader")  # every test with each reader
QRELS = "q1 0 a 1\nq1 0 b 0\nq3 0 c 2\n"
RUN_TEXT = "q1 Q0 a 1 0.5 t\nq1 Q0 b 2 0.9 t\nq2 Q0 z 1 1.0 t\n"


def write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def read(tmp_path: Path, qrels: str | bytes, run: str | bytes, **options):
    return read_trec(write(tmp_path, "qrels", qrels), write(tmp_path, "run", run), **options)


def values(data, metric: str, ties: str = "trec") -> dict[str, float]:
    """A metric's value per scored query of ``data``."""
    m = resolve(metric)
    r = data.rankings(ties)
    ok = m.skip_codes(r) == 0
    return {q: v for q, v, keep in zip(data.qids, m.values(r).tolist(), ok) if keep}


def test_qrels_keep_grades_and_order(tmp_path):
    data = read(tmp_path, "q1 0 d1 1\nq1 0 d2 0\n\nq2 0 d1 2\n", "q1 Q0 d1 1 1 t\nq2 Q0 d9 1 1 t\n")
    examples, _ = data.records()
    assert examples == [
        {"relevant_docs": [{"doc_id": "d1", "relevance": 1}, {"doc_id": "d2", "relevance": 0}]},
        {"relevant_docs": [{"doc_id": "d1", "relevance": 2}]},
    ]


def test_run_ignores_rank_and_trailing_columns(tmp_path):
    # trec_eval ranks by score and ignores the rank column and anything after the tag
    data = read(tmp_path, "q1 0 d1 1\n", "q1 Q0 d1 7 1.5 tag\nq1 Q0 d2 1 -2 tag more junk\n")
    _, predictions = data.records()
    assert predictions == [{"retrieved": [
        {"doc_id": "d1", "score": 1.5, "rank": 1}, {"doc_id": "d2", "score": -2.0, "rank": 2},
    ]}]


@pytest.mark.parametrize(
    ("which", "text", "line", "field", "words"),
    [
        ("qrels", "q1 0 d1 1\nq1 0 d2\n", 2, "columns", "expected 4 columns"),
        ("qrels", "q1 0 d1 1 extra\n", 1, "columns", "got 5"),
        ("qrels", "q1 0 d1 high\n", 1, "rel", "integer"),
        ("qrels", "q1 0 d1 1.5\n", 1, "rel", "integer"),
        ("qrels", "q1 0 d1 Infinity\n", 1, "rel", "integer"),
        ("qrels", "q1 0 d1 1\nq1 0 d1 0\n", 2, "docno", "twice"),
        ("qrels", "q1 0 d1 1\nq1 0 d\xff 0\n".encode("latin-1"), 2, "docno", "UTF-8"),
        ("run", "q1 Q0 d1 1 0.5\n", 1, "columns", "expected 6 columns"),
        ("run", "q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 abc t\n", 2, "score", "number"),
        ("run", "q1 Q0 d1 1 nan t\n", 1, "score", "finite"),
        ("run", "q1 Q0 d1 1 0.5 t\nq1 Q0 d2 1 Infinity t\n", 2, "score", "finite"),
        ("run", "q1 Q0 d1 1 -inf t\n", 1, "score", "finite"),
        ("run", "q1 Q0 d1 1 1e999 t\n", 1, "score", "finite"),
        ("run", "q1 Q0 d1 1 0.5 t\nq1 Q0 d1 2 0.4 t\n", 2, "docno", "twice"),
        ("run", "q1 Q0 d1 1 0.5 t\n\n# note\nq2 Q0 d1 1 0.5 t\nq1 Q0 d1 2 0.4 t\n", 5, "docno", "twice"),
        ("run", "q1 Q0 d1 1 0.5 t\nq\xe91 Q0 d1 1 0.5 t\n".encode("latin-1"), 2, "qid", "UTF-8"),
        ("run", b"q1 Q0 d1 1 0.5 t\xc3\n", 1, "tag", "UTF-8"),
    ],
)
def test_malformed_lines_name_file_line_and_field(tmp_path, which, text, line, field, words):
    good = {"qrels": "q1 0 d1 1\n", "run": "q1 Q0 d1 1 0.5 t\n"}
    files = {**good, which: text}
    with pytest.raises(InputError) as info:
        read(tmp_path, files["qrels"], files["run"])
    path = tmp_path / which
    assert info.value.source == f"{path}:{line}"
    assert info.value.field == field
    assert words in str(info.value) and f"{path}:{line}" in str(info.value)


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n", "  \n# a\n#b c d e f g\n"])
@pytest.mark.parametrize("which", ["qrels", "run"])
def test_an_empty_file_is_an_input_error(tmp_path, which, text):
    good = {"qrels": "q1 0 d1 1\n", "run": "q1 Q0 d1 1 0.5 t\n"}
    files = {**good, which: text}
    with pytest.raises(InputError, match=f"no {which} lines") as info:
        read(tmp_path, files["qrels"], files["run"])
    assert info.value.source == str(tmp_path / which)


def test_a_missing_file_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="cannot read") as info:
        read_trec(tmp_path / "nope", write(tmp_path, "run", "q1 Q0 d1 1 0.5 t\n"))
    assert info.value.source == str(tmp_path / "nope")


def test_comments_blank_lines_and_byte_order_mark(tmp_path):
    qrels = "\ufeff# judged by hand\nq1 0 a#1 1\n\n   \n# q1 0 b 1\nq1 0 b 0\n  # indented comment\n"
    run = "\ufeff#run header\nq1 Q0 a#1 1 0.5 t\n#q1 Q0 b 1 0.9 t\nq1 Q0 b 2 0.4 t\n"
    data = read(tmp_path, qrels, run)
    assert data.qids == ["q1"]  # the BOM is not part of the first query id
    examples, predictions = data.records()
    assert [d["doc_id"] for d in examples[0]["relevant_docs"]] == ["a#1", "b"]
    assert [d["doc_id"] for d in predictions[0]["retrieved"]] == ["a#1", "b"]
    assert values(data, "map") == {"q1": 1.0}


def test_any_whitespace_layout_reads_the_same(tmp_path):
    single = read(tmp_path, QRELS, RUN_TEXT)
    spaced = read_trec(
        write(tmp_path, "qrels2", "q1\t0  a 1\r\n q1 0 b\t0 \r\nq3 0 c 2"),
        write(tmp_path, "run2", "q1  Q0 a 1 0.5\tt x\nq1 Q0\x0bb 2 0.9 t\rmore\nq2 Q0 z 1 1.0 t\n"),
    )
    assert spaced.qids == single.qids
    assert spaced.records() == single.records()
    assert values(spaced, "ndcg@10") == values(single, "ndcg@10")


def test_fast_and_line_by_line_readers_agree_on_the_reference_run(trec_reference):
    body = (trec_reference / "results.test").read_bytes()
    fast, slow = read_columns(body, "run", RUN), read_slowly(body, "run", RUN)
    assert fast.qids == slow.qids and np.array_equal(fast.query, slow.query)
    assert fast.docno.to_pylist() == slow.docno.to_pylist()
    assert np.array_equal(fast.value, slow.value)


def test_queries_in_run_order_then_qrels_only(tmp_path):
    data = read(tmp_path, QRELS, RUN_TEXT)
    # the run's judged queries (q1), then the query found only in the qrels (q3); q2 is only in the run
    assert data.qids == ["q1", "q3"]
    assert data.present.tolist() == [True, False]
    assert data.run_only == 1
    examples, predictions = data.records()
    assert examples[0]["relevant_docs"] == [{"doc_id": "a", "relevance": 1}, {"doc_id": "b", "relevance": 0}]
    assert predictions[0]["retrieved"] == [
        {"doc_id": "b", "score": 0.9, "rank": 1}, {"doc_id": "a", "score": 0.5, "rank": 2},
    ]
    assert predictions[1]["retrieved"] == []
    assert values(data, "map") == {"q1": 0.5}
    assert values(data, "map(missing='zero')") == {"q1": 0.5, "q3": 0.0}


def test_records_and_ranks_order_ties_by_docno_descending(tmp_path):
    # trec_eval sorts by score descending, then by docno descending (strcmp)
    data = read(tmp_path, "q 0 a 1\n", "q Q0 a 1 1 t\nq Q0 c 2 1 t\nq Q0 b 3 1 t\nq Q0 d 4 2 t\n")
    assert [d["doc_id"] for d in data.records()[1][0]["retrieved"]] == ["d", "c", "b", "a"]
    assert values(data, "mrr") == {"q": 0.25}
    assert values(data, "mrr", ties="input") == {"q": 0.5}  # a comes first of the tied ones in the file


def test_records_and_rankings_of_a_slice(tmp_path):
    qrels = "".join(f"q{i} 0 d{i} 1\n" for i in range(5))
    run = "".join(f"q{i} Q0 d{j} {j} {10 - j} t\n" for i in range(5) for j in range(5))
    data = read(tmp_path, qrels, run)
    examples, predictions = data.records(2, 4)
    assert [e["relevant_docs"][0]["doc_id"] for e in examples] == ["d2", "d3"]
    assert len(predictions) == 2
    metric = resolve("mrr")
    assert metric.values(data.rankings("trec", 2, 4)).tolist() == [1 / 3, 1 / 4]
    assert data.rankings("trec", 5, 5).n == 0


def test_max_docs_keeps_the_first_documents_in_trec_eval_order(tmp_path):
    # trec_eval -M 2: ranks by score (ties by docno descending), then keeps the top 2
    qrels = "q 0 a 1\nq 0 b 1\nq 0 c 1\n"
    run = "q Q0 a 1 1.0 t\nq Q0 b 2 3.0 t\nq Q0 c 3 2.0 t\nq Q0 d 4 2.0 t\n"
    data = read(tmp_path, qrels, run, max_docs=2)
    assert [d["doc_id"] for d in data.records()[1][0]["retrieved"]] == ["b", "d"]
    assert values(data, "recall@100") == {"q": 1 / 3}
    assert values(data, "map") == {"q": 1 / 3}
    assert read(tmp_path, qrels, run, max_docs=3).records()[1][0]["retrieved"][-1]["doc_id"] == "c"
    with pytest.raises(InputError, match="max_docs"):
        read(tmp_path, qrels, run, max_docs=0)


def test_describe_fingerprints_the_bytes_read(tmp_path):
    import hashlib

    data = read(tmp_path, QRELS, RUN_TEXT, max_docs=5)
    described = data.describe()
    assert described["run"] == {"path": str(tmp_path / "run"), "size": len(RUN_TEXT),
                                "sha256": hashlib.sha256(RUN_TEXT.encode()).hexdigest()}
    assert described["qrels"]["size"] == len(QRELS) and described["max_docs"] == 5


@pytest.mark.parametrize("change", ["rewritten", "removed"])
def test_a_file_changed_after_reading_has_no_fingerprint(tmp_path, change):
    """The digest is taken when first asked for, of the file read again: a file that is no longer
    the one read is an error naming it, not a digest of other lines."""
    data = read(tmp_path, QRELS, RUN_TEXT)
    if change == "rewritten":
        (tmp_path / "run").write_text(RUN_TEXT.replace("0.5", "0.25"))
    else:
        (tmp_path / "run").unlink()
    with pytest.raises(InputError, match="changed after it was read") as info:
        data.describe()
    assert info.value.source == str(tmp_path / "run")


def test_files_columns_and_dicts_give_the_same_scores(tmp_path):
    data = read(tmp_path, QRELS, RUN_TEXT)
    columns = evaluate_columns(
        {"qid": ["q1", "q1", "q3"], "docno": ["a", "b", "c"], "rel": [1, 0, 2]},
        {"qid": ["q1", "q1", "q2"], "docno": ["a", "b", "z"], "score": [0.5, 0.9, 1.0]},
        ["map", "ndcg@10"],
    )
    dicts = evaluate_run({"q1": {"a": 1, "b": 0}, "q3": {"c": 2}}, {"q1": {"a": 0.5, "b": 0.9}, "q2": {"z": 1.0}},
                         ["map", "ndcg@10"])
    assert columns == dicts == {"q1": {"retrieval/map": 0.5, "retrieval/ndcg@10": values(data, "ndcg@10")["q1"]}}


def test_reads_trec_eval_test_collection(trec_reference):
    data = read_trec(trec_reference / "qrels.test", trec_reference / "results.trunc")
    # out.test.aqc: num_rel 474/77/10 and num_ret 500/0/84 for queries 301/302/303
    expected_rel = _measure(trec_reference / "out.test.aqc", "num_rel")
    expected_ret = _measure(trec_reference / "out.test.aqc", "num_ret")
    rankings = data.rankings()
    num_rel = rankings.num_judged_at_least(1)
    for i, qid in enumerate(data.qids):
        assert num_rel[i] == expected_rel[qid]
        assert rankings.num_ret[i] == expected_ret[qid]
    assert set(data.qids) == {"301", "302", "303"}
    assert data.present.tolist() == [q != "302" for q in data.qids]


def _measure(path: Path, name: str) -> dict[str, int]:
    found = {}
    for line in path.read_text().splitlines():
        measure, qid, value = line.split()
        if measure == name and qid != "all":
            found[qid] = int(value)
    return found


def test_the_source_reads_ahead_and_says_what_is_wrong_where_its_data_is_asked_for(tmp_path):
    """``evalcore evaluate --qrels --run``'s source reads the files from the moment it is made (a
    thread of its own), the same data as read_trec; a bad line is an error when the data is asked for."""
    from evalcore_retrieval._reader import trec_source

    qrels, run = write(tmp_path, "qrels", QRELS), write(tmp_path, "run", RUN_TEXT)
    source = trec_source(qrels, run)
    source._reading.result(timeout=60)  # read without being asked: the files may go now
    qrels.unlink()
    run.unlink()
    expected = read_trec(write(tmp_path, "qrels2", QRELS), write(tmp_path, "run2", RUN_TEXT))
    assert source.total() == len(expected) == 2
    [chunk] = source.chunks(10)
    assert [record.id for record in chunk.records] == expected.qids == ["q1", "q3"]
    assert source.fingerprint()["run"]["sha256"] == expected.describe()["run"]["sha256"]

    broken = trec_source(write(tmp_path, "bad", "q1 0 a 1\nq1 0 b x\n"), write(tmp_path, "run3", RUN_TEXT))
    with pytest.raises(InputError, match=r"bad:2.*rel"):
        broken.total()
