"""Parity with pytrec_eval (trec_eval's C code) on generated runs, to 1e-9.

The runs have tied and negative scores, cut-offs beyond the run length, queries without
judgements or with only non-relevant ones, empty rankings, queries found only in the
qrels or only in the run, and graded (also negative) relevance.
"""

from __future__ import annotations

from unittest.mock import patch

import evalcore
import pytest
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
def collections(draw):
    qrels = draw(st.dictionaries(QIDS, st.dictionaries(DOCS, GRADES, max_size=10), max_size=6))
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
