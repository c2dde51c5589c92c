"""Parity with pytrec_eval (trec_eval's C code) on generated runs, to 1e-9.

The runs have tied and negative scores, cut-offs beyond the run length, queries without
judgements or with only non-relevant ones, empty rankings, queries found only in the
qrels or only in the run, and graded (also negative) relevance.
"""

from __future__ import annotations

import math
from functools import cache
from unittest.mock import patch

import evalcore
import pytest
from evalcore.plugin import MIN_GEO_MEAN
from evalcore_retrieval import _dicts, average, evaluate_run
from hypothesis import given, settings
from hypothesis import strategies as st

pytrec_eval = pytest.importorskip("pytrec_eval", reason="pytrec-eval-terrier is the reference")

CUTOFFS = (1, 3, 5, 20)
# evalcore metric id template -> pytrec_eval measure name template
PAIRS = {
    "map": "map", "mrr": "recip_rank", "r_precision": "Rprec",
    **{f"map@{k}": f"map_cut_{k}" for k in CUTOFFS},
    **{f"precision@{k}": f"P_{k}" for k in CUTOFFS},
    **{f"recall@{k}": f"recall_{k}" for k in CUTOFFS},
    **{f"ndcg@{k}": f"ndcg_cut_{k}" for k in CUTOFFS},
    **{f"hit_rate@{k}": f"success_{k}" for k in CUTOFFS},
}
CUTS = ",".join(map(str, CUTOFFS))
PYTREC_MEASURES = {"map", "recip_rank", "Rprec", f"map_cut.{CUTS}", f"P.{CUTS}", f"recall.{CUTS}",
                   f"ndcg_cut.{CUTS}", f"success.{CUTS}"}

DOCS = st.sampled_from([f"d{i}" for i in range(12)] + ["D1", "a", "a1", "z"])
SCORES = st.one_of(st.sampled_from([-2.0, -0.5, 0.0, 0.5, 1.0, 3.0]),
                   st.floats(-100, 100, allow_nan=False, allow_infinity=False))
GRADES = st.sampled_from([-1, 0, 0, 1, 1, 2, 3])
QIDS = st.sampled_from([f"q{i}" for i in range(8)])


def records_from_trec(qrels: dict, run: dict) -> list[dict]:
    """One record per query of either dict, run order first; retrieved by score, then doc id, descending."""
    records = []
    for qid in dict.fromkeys([*run, *qrels]):
        ranked = sorted(run.get(qid, {}).items(), key=lambda item: (item[1], item[0]), reverse=True)
        records.append({
            "id": qid,
            "example": {"relevant_docs": [{"doc_id": d, "relevance": g} for d, g in qrels.get(qid, {}).items()]},
            "prediction": {"retrieved": [{"doc_id": d, "score": s, "rank": i} for i, (d, s) in enumerate(ranked, 1)]},
        })
    return records


@st.composite
def collections(draw, grades=GRADES):
    qrels = draw(st.dictionaries(QIDS, st.dictionaries(DOCS, grades, max_size=10), max_size=6))
    run = draw(st.dictionaries(QIDS, st.dictionaries(DOCS, SCORES, max_size=14), max_size=6))
    return qrels, run


def ids(level: int) -> dict[str, str]:
    """evalcore metric ids with the relevance level -> pytrec_eval measure names."""
    out = {}
    for template, measure in PAIRS.items():
        name, _, k = template.partition("@")
        params = f"(relevance_level={level})" if level != 1 and name != "ndcg" else ""
        out[evalcore.get_metric(f"retrieval/{name}{params}" + (f"@{k}" if k else "")).id] = measure
    return out


def reference(qrels, run, level: int) -> dict[str, dict[str, float]]:
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, PYTREC_MEASURES, relevance_level=level)
    return evaluator.evaluate(run)


@settings(max_examples=300, deadline=None)
@given(collections(), st.sampled_from([1, 2]), st.sampled_from([1, 3, 2048]))
def test_evaluate_run_matches_pytrec_eval(collection, level, block):
    qrels, run = collection
    metrics = ids(level)
    expected = reference(qrels, run, level)
    with patch.object(_dicts, "_BLOCK", block):  # queries are read in blocks of this many
        got = evaluate_run(qrels, run, list(metrics))
    assert set(got) == set(expected)
    for qid, scores in got.items():
        assert set(scores) == set(metrics)
        for metric_id, measure in metrics.items():
            assert scores[metric_id] == pytest.approx(expected[qid][measure], abs=1e-9), (qid, metric_id)
    means = average(got)
    for metric_id, measure in metrics.items():
        if expected:
            mean = sum(v[measure] for v in expected.values()) / len(expected)
            assert means[metric_id] == pytest.approx(mean, abs=1e-9)


@settings(max_examples=150, deadline=None)
@given(collections())
def test_metrics_on_records_match_pytrec_eval(collection):
    qrels, run = collection
    metrics = ids(1)
    expected = reference(qrels, run, 1)
    records = records_from_trec(qrels, run)
    examples = [r["example"] for r in records]
    predictions = [r["prediction"] for r in records]
    for metric_id, measure in metrics.items():
        scores = evalcore.get_metric(metric_id).score_many(examples, predictions)
        got = {r["id"]: s.value for r, s in zip(records, scores) if s.ok}
        # records skip empty rankings by default (missing='skip'); pytrec_eval scores them 0
        assert got == pytest.approx(
            {qid: v[measure] for qid, v in expected.items() if run[qid]}, abs=1e-9
        ), metric_id


@settings(max_examples=100, deadline=None)
@given(collections())
def test_input_order_ties_agree_between_dicts_and_records(collection):
    # pytrec_eval has no input-order ties; the dict and record paths must agree with each other
    qrels, run = collection
    metrics = [evalcore.get_metric(f"retrieval/{name}(ties='input')") for name in ("map", "ndcg", "mrr")]
    from_dicts = evaluate_run(qrels, run, metrics)
    records = [r for r in records_from_trec(qrels, run) if r["id"] in run]
    for record in records:
        # records list equal scores in the run's order only when their ranks say so: drop ranks
        record["prediction"]["retrieved"] = [
            {"doc_id": d, "score": s} for d, s in run[record["id"]].items()
        ]
    for metric in metrics:
        scores = metric.score_many([r["example"] for r in records], [r["prediction"] for r in records])
        got = {r["id"]: s.value for r, s in zip(records, scores) if s.ok}
        assert got == pytest.approx(
            {qid: v[metric.id] for qid, v in from_dicts.items() if run.get(qid)}, abs=1e-12
        )


ALL_MEASURES = sorted(set(pytrec_eval.supported_measures) - {"runid", "relstring"})
# the names pytrec_eval prints for them (P_5, P_10, ...)
NAMES = sorted(pytrec_eval.RelevanceEvaluator({"q": {"d": 1}}, ALL_MEASURES).evaluate({"q": {"d": 1.0}})["q"])
GEOMETRIC = {"gm_map", "gm_bpref"}  # pytrec_eval gives log(max(value, MIN_GEO_MEAN)) per query


@cache
def metric(name: str, level: int, judged_only: bool) -> evalcore.Metric:
    """The evalcore metric of pytrec_eval's measure ``name`` with trec_eval's -l and -J."""
    params = {p.name for p in evalcore.describe(name).spec.params}
    # pytrec_eval bundles trec_eval 9, which rounds recall levels differently from trec_eval 10
    options = {"relevance_level": level, "judged_only": judged_only, "rounding": "v9"}
    return evalcore.get_metric(name, **{k: v for k, v in options.items() if k in params})


# pytrec_eval's trec_eval 9 can hang on some collections with negative grades when it
# computes all of these measures in one process: negative grades are compared above
# (original measures) and against trec_eval 10's own outputs (test_all_trec_parity)
@settings(max_examples=150, deadline=None)
@given(collections(grades=st.sampled_from([0, 0, 1, 1, 2, 3])), st.sampled_from([1, 2]), st.booleans())
def test_every_measure_matches_pytrec_eval(collection, level, judged_only):
    qrels, run = collection
    expected = pytrec_eval.RelevanceEvaluator(
        qrels, ALL_MEASURES, relevance_level=level, judged_docs_only_flag=judged_only,
    ).evaluate(run)
    metrics = {name: metric(name, level, judged_only) for name in NAMES}
    got = evaluate_run(qrels, run, list(metrics.values()))
    assert set(got) == set(expected)
    for qid, reference in expected.items():
        for name, value in reference.items():
            ours = got[qid][metrics[name].id]
            if name in GEOMETRIC:
                ours = math.log(max(ours, MIN_GEO_MEAN))
            if math.isnan(value):  # trec_eval's 0 / 0 on an empty ranking (iprec_at_recall); 0 here
                value = 0.0
            assert ours == pytest.approx(value, abs=1e-9), (qid, name)


# ir_measures orders equal scores by doc id ascending, trec_eval descending: distinct scores here
DISTINCT_RUNS = st.dictionaries(QIDS, st.dictionaries(DOCS, st.integers(-50, 50).map(float), max_size=14)
                                .filter(lambda d: len(set(d.values())) == len(d)), max_size=6)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(QIDS, st.dictionaries(DOCS, GRADES, max_size=10), max_size=6), DISTINCT_RUNS)
def test_judged_matches_ir_measures(qrels, run):
    ir_measures = pytest.importorskip("ir_measures", reason="ir-measures is the reference")
    run = {qid: docs for qid, docs in run.items() if docs}  # ir_measures divides by zero on empty rankings
    measures = {f"Judged@{k}": ir_measures.parse_measure(f"Judged@{k}") for k in (1, 3, 20)}
    calculated = ir_measures.iter_calc(list(measures.values()), qrels, run)
    # the queries both score: judged and retrieved for
    expected = {(m.query_id, str(m.measure)): m.value for m in calculated
                if qrels.get(m.query_id) and m.query_id in run}
    got = evaluate_run(qrels, run, list(measures))
    for (qid, name), value in expected.items():
        assert got[qid][evalcore.get_metric(name).id] == pytest.approx(value, abs=1e-12), (qid, name)


@settings(max_examples=40, deadline=None)  # each example runs ir_measures' gdeval script
@given(st.dictionaries(st.sampled_from(["1", "2", "3"]), st.dictionaries(DOCS, st.integers(-1, 4), max_size=10),
                       max_size=3),
       DISTINCT_RUNS.map(lambda run: {str(int(qid[1:]) % 3 + 1): docs for qid, docs in run.items()}))
def test_err_matches_ir_measures(qrels, run):
    ir_measures = pytest.importorskip("ir_measures", reason="ir-measures is the reference")
    run = {qid: docs for qid, docs in run.items() if docs and qrels.get(qid)}
    if not run:
        return
    measures = {f"ERR@{k}": ir_measures.parse_measure(f"ERR@{k}") for k in (1, 3, 20)}
    calculated = ir_measures.iter_calc(list(measures.values()), qrels, run)
    expected = {(m.query_id, str(m.measure)): m.value for m in calculated if m.query_id in run}
    got = evaluate_run(qrels, run, list(measures))
    for (qid, name), value in expected.items():
        # gdeval prints 5 decimals
        assert got[qid][evalcore.get_metric(name).id] == pytest.approx(value, abs=6e-6), (qid, name)
