"""TREC files through :func:`read_trec` and columns through :func:`evaluate_columns` match pytrec_eval.

Generated collections (tied and negative scores, graded and negative relevance, queries only
in the qrels or only in the run) are written as TREC files in varied layouts (tabs, several
spaces, extra columns, comments, a byte order mark, shuffled lines) or given as numpy arrays,
pandas DataFrames and pyarrow Tables.
"""

from __future__ import annotations

import random

import evalcore
import numpy as np
import pyarrow as pa
import pytest
from evalcore_retrieval import evaluate_columns, read_trec
from evalcore_retrieval._api import resolve, score_queries
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytrec_eval = pytest.importorskip("pytrec_eval", reason="pytrec-eval-terrier is the reference")

MEASURES = {"map": "map", "mrr": "recip_rank", "r_precision": "Rprec", "ndcg@3": "ndcg_cut_3",
            "ndcg@20": "ndcg_cut_20", "precision@5": "P_5", "recall@3": "recall_3", "hit_rate@1": "success_1",
            "map@5": "map_cut_5"}
PYTREC = {"map", "recip_rank", "Rprec", "ndcg_cut.3,20", "P.5", "recall.3", "success.1", "map_cut.5"}
DOCS = st.sampled_from([f"d{i}" for i in range(12)] + ["D1", "a", "a1", "z", "é", "d#1"])
SCORES = st.one_of(st.sampled_from([-2.0, -0.5, 0.0, 0.5, 1.0, 3.0]),
                   st.floats(-100, 100, allow_nan=False, allow_infinity=False))
GRADES = st.sampled_from([-1, 0, 0, 1, 1, 2, 3])
QIDS = st.sampled_from([f"q{i}" for i in range(8)] + ["10", "9"])


@st.composite
def collections(draw):
    """Non-empty qrels and run (every query with at least one line, as in a file)."""
    qrels = draw(st.dictionaries(QIDS, st.dictionaries(DOCS, GRADES, min_size=1, max_size=10), min_size=1, max_size=6))
    run = draw(st.dictionaries(QIDS, st.dictionaries(DOCS, SCORES, min_size=1, max_size=14), min_size=1, max_size=6))
    return qrels, run


def metric_ids(level: int) -> dict[str, str]:
    out = {}
    for template, measure in MEASURES.items():
        name, _, k = template.partition("@")
        params = f"(relevance_level={level})" if level != 1 and name != "ndcg" else ""
        out[evalcore.get_metric(f"retrieval/{name}{params}" + (f"@{k}" if k else "")).id] = measure
    return out


def check(got, qrels, run, level: int) -> None:
    metrics = metric_ids(level)
    expected = pytrec_eval.RelevanceEvaluator(qrels, PYTREC, relevance_level=level).evaluate(run)
    assert list(got) == list(expected)  # pytrec_eval's order: the run's
    for qid, scores in got.items():
        assert set(scores) == set(metrics)
        for metric_id, measure in metrics.items():
            assert scores[metric_id] == pytest.approx(expected[qid][measure], abs=1e-9), (qid, metric_id)


def lines(table: dict, run: bool, rng: random.Random) -> list[str]:
    out = []
    for qid, docs in table.items():
        for rank, (doc, value) in enumerate(docs.items(), start=1):
            sep = rng.choice([" ", "\t", "  ", " \t"])
            fields = [qid, "Q0" if run else "0", doc, *([str(rank)] if run else []), repr(value)]
            if run:
                fields += ["tag"] + (["extra", "cols"] if rng.random() < 0.2 else [])
            out.append(sep.join(fields) + rng.choice(["", " ", "\r"]))
    return out


def write_trec(path, table: dict, run: bool, rng: random.Random, spaces_only: bool) -> None:
    rows = lines(table, run, rng) if not spaces_only else [
        " ".join([q, "Q0" if run else "0", d, *(["1"] if run else []), repr(v), *(["t"] if run else [])])
        for q, docs in table.items() for d, v in docs.items()
    ]
    if not spaces_only:
        rows.insert(rng.randrange(len(rows) + 1), "# a comment line")
        rows.insert(rng.randrange(len(rows) + 1), "")
    text = ("\ufeff" if rng.random() < 0.3 else "") + "\n".join(rows) + rng.choice(["", "\n"])
    path.write_bytes(text.encode())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(collections(), st.sampled_from([1, 2]), st.booleans(), st.randoms(use_true_random=False))
def test_trec_files_match_pytrec_eval(tmp_path, collection, level, spaces_only, rng):
    qrels, run = collection
    write_trec(tmp_path / "qrels", qrels, False, rng, spaces_only)
    write_trec(tmp_path / "run", run, True, rng, spaces_only)
    data = read_trec(tmp_path / "qrels", tmp_path / "run")
    check(score_queries(data.qids, list(metric_ids(level)), data.rankings), qrels, run, level)


def frame(table: dict, value: str, kind: str):
    rows = [(q, d, v) for q, docs in table.items() for d, v in docs.items()]
    columns = {"qid": [r[0] for r in rows], "docno": [r[1] for r in rows], value: [r[2] for r in rows]}
    if kind == "numpy":
        return {"qid": np.array(columns["qid"]), "docno": np.array(columns["docno"], dtype=object),
                value: np.array(columns[value])}
    if kind == "pandas":
        pandas = pytest.importorskip("pandas")
        return pandas.DataFrame(columns)
    return pa.table(columns)


@settings(max_examples=150, deadline=None)
@given(collections(), st.sampled_from([1, 2]), st.sampled_from(["numpy", "pandas", "arrow"]))
def test_columns_match_pytrec_eval(collection, level, kind):
    qrels, run = collection
    got = evaluate_columns(frame(qrels, "rel", kind), frame(run, "score", kind), list(metric_ids(level)))
    check(got, qrels, run, level)


@settings(max_examples=100, deadline=None)
@given(collections())
def test_max_docs_equals_a_truncated_run(collection):
    """``max_docs=n`` scores as pytrec_eval does on the run cut to its top n in trec_eval's order."""
    import tempfile
    from pathlib import Path

    qrels, run = collection
    with tempfile.TemporaryDirectory() as folder:
        rng = random.Random(0)
        write_trec(Path(folder) / "qrels", qrels, False, rng, True)
        write_trec(Path(folder) / "run", run, True, rng, True)
        data = read_trec(Path(folder) / "qrels", Path(folder) / "run", max_docs=3)
    single = {q: {d: float(np.float32(s)) for d, s in docs.items()} for q, docs in run.items()}
    cut = {q: dict(sorted(docs.items(), key=lambda item: (single[q][item[0]], item[0]), reverse=True)[:3])
           for q, docs in run.items()}
    check(score_queries(data.qids, list(metric_ids(1)), data.rankings), qrels, cut, 1)


def test_bad_columns_name_the_row_and_field():
    good_qrels = {"qid": ["q"], "docno": ["a"], "rel": [1]}
    with pytest.raises(evalcore.InputError) as info:
        evaluate_columns(good_qrels, {"qid": ["q", "q"], "docno": ["a", "a"], "score": [1.0, 2.0]}, ["map"])
    assert (info.value.source, info.value.field) == ("run", "row 1")
    with pytest.raises(evalcore.InputError) as info:
        evaluate_columns(good_qrels, {"qid": ["q"], "docno": ["a"], "score": [float("inf")]}, ["map"])
    assert (info.value.source, info.value.field) == ("run", "score[0]")
    with pytest.raises(evalcore.InputError) as info:
        evaluate_columns(good_qrels, {"qid": ["q"], "doc": ["a"], "score": [1.0]}, ["map"])
    assert (info.value.source, info.value.field) == ("run", "docno")
    with pytest.raises(evalcore.InputError) as info:
        evaluate_columns({"qid": [], "docno": [], "rel": []}, {"qid": ["q"], "docno": ["a"], "score": [1.0]}, ["map"])
    assert info.value.source == "qrels"
    with pytest.raises(evalcore.InputError) as info:
        evaluate_columns(pa.table({"qid": ["q", None], "docno": ["a", "b"], "rel": [1, 1]}),
                         {"qid": ["q"], "docno": ["a"], "score": [1.0]}, ["map"])
    assert (info.value.source, info.value.field) == ("qrels", "qid[1]")
    with pytest.raises(evalcore.InputError):
        evaluate_columns([("q", "a", 1)], {"qid": ["q"], "docno": ["a"], "score": [1.0]}, ["map"])


def test_integer_query_ids_are_read_as_strings():
    got = evaluate_columns({"qid": np.array([1, 2]), "docno": ["a", "b"], "rel": np.array([1, 1])},
                           {"qid": np.array([2, 1]), "docno": ["b", "c"], "score": np.array([1.0, 2.0])}, ["map"])
    assert got == {"2": {"retrieval/map": 1.0}, "1": {"retrieval/map": 0.0}}


def test_column_scores_give_values_and_skip_codes():
    from evalcore_retrieval import column_scores
    from evalcore_retrieval._columnar import trec_data_from_columns
    from evalcore_retrieval.metrics import NOT_RETRIEVED, OK

    trec = trec_data_from_columns({"qid": ["q1", "q2"], "docno": ["a", "b"], "rel": [1, 1]},
                                  {"qid": ["q1"], "docno": ["a"], "score": [1.0]})
    values, codes = column_scores(resolve("mrr"), trec.rankings())
    assert values.tolist()[0] == 1.0 and codes.tolist() == [OK, NOT_RETRIEVED]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(collections(), st.integers(1, 4), st.sampled_from(["trec", "input"]))
def test_pickled_chunks_score_and_read_as_the_files(tmp_path, collection, size, ties):
    """A chunk's columns sent to another process (Ray pickles them) carry only its queries and
    give the same values and records as the columns over the whole files."""
    import pickle

    from evalcore_retrieval._reader import TrecSource

    qrels, run = collection
    rng = random.Random(0)
    write_trec(tmp_path / "qrels", qrels, False, rng, True)
    write_trec(tmp_path / "run", run, True, rng, True)
    metrics = [f"retrieval/map(ties={ties!r})", f"retrieval/ndcg(ties={ties!r})@3"]
    for chunk in TrecSource(tmp_path / "qrels", tmp_path / "run").chunks(size):
        copy = pickle.loads(pickle.dumps(chunk.columns))
        assert copy.ids == chunk.columns.ids and len(copy.ids) <= size
        assert (score_queries(copy.ids, metrics, copy.rankings)
                == score_queries(chunk.columns.ids, metrics, chunk.columns.rankings))
        assert copy.records() == chunk.columns.records()
        assert pickle.loads(pickle.dumps(copy)).records() == copy.records()
