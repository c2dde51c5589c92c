"""trec_eval's names for the retrieval measures, and evaluate_run with no measures as pytrec_eval."""

from __future__ import annotations

import evalcore
import pytest
from evalcore_retrieval import evaluate_run
from evalcore_retrieval._register import ALL_TREC

pytrec_eval = pytest.importorskip("pytrec_eval")


def trec_name(metric_id: str, **params: object) -> str | None:
    return evalcore.get_metric(metric_id, **params).trec_eval_name()


@pytest.mark.parametrize("name", ALL_TREC)
@pytest.mark.parametrize("options", [{}, {"relevance_level": 2}, {"missing": "zero"}, {"judged_only": True}],
                         ids=["default", "-l2", "-c", "-J"])
def test_every_all_trec_measure_says_the_name_trec_eval_prints(name, options):
    """trec_eval's -l, -c and -J leave its measure names as they are."""
    spec = evalcore.describe(name).spec
    given = {k: v for k, v in options.items() if k in {p.name for p in spec.params}}
    assert trec_name(name, **given) == name


@pytest.mark.parametrize(("metric_id", "expected"), [
    # names as trec_eval 10 prints them for -m P.7, -m utility.2,-1,0,0, -m ndcg.1=3,2=7 ...
    ("retrieval/precision@7", "P_7"),
    ("retrieval/recall@7", "recall_7"),
    ("retrieval/hit_rate@7", "success_7"),
    ("retrieval/map@7", "map_cut_7"),
    ("retrieval/ndcg@7", "ndcg_cut_7"),
    ("retrieval/relative_precision@7", "relative_P_7"),
    ("retrieval/unjudged@3", "unj_3"),
    ("retrieval/iprec_at_recall(recall=0.25)", "iprec_at_recall_0.25"),
    ("retrieval/r_precision_mult(multiple=0.5)", "Rprec_mult_0.50"),
    ("retrieval/utility(weights=[2, -1, 0, 0])", "utility_2,-1,0,0"),
    ("retrieval/utility(weights=[2.5, -1, 0, 0])", "utility_2.5,-1,0,0"),
    ("retrieval/utility(num_docs=1000)", "utility"),
    ("retrieval/set_f(beta=0.5)", "set_F_0.5"),
    ("retrieval/set_f(beta=2)", "set_F_2"),
    ("retrieval/rbp(p=0.95)", "rbp_p=0.95"),
    ("retrieval/rbp_resid(p=0.8)", "rbp_resid_p=0.8"),
    ("retrieval/ndcg(k=None, gains={2: 7, 1: 3})", "ndcg_1=3,2=7"),
    ("retrieval/ndcg(k=None, gains={1: 3.5, 2: 9.0})", "ndcg_1=3.5,2=9"),
])
def test_parameterised_measures_are_named_as_trec_eval_names_them(metric_id, expected):
    assert trec_name(metric_id) == expected


@pytest.mark.parametrize("metric_id", [
    "retrieval/mrr@10",                       # trec_eval's recip_rank has no cut-off
    "retrieval/gm_map@10",
    "retrieval/ndcg(gains={1: 3.0})@10",      # trec_eval's ndcg_cut takes no gains
    "retrieval/ndcg(gain='exp2')@10",
    "retrieval/precision(ties='input')@10",
    "retrieval/precision(denominator='retrieved')@10",
    "retrieval/recall(capped=True)@10",
    "retrieval/map(convention='rag')",
    "retrieval/map(no_relevant='skip')",
    "retrieval/iprec_at_recall(rounding='v9')",
    "retrieval/rbp(gain='binary')",
    "retrieval/err@20",
    "retrieval/judged@10",
    "retrieval/compat",
])
def test_measures_trec_eval_does_not_compute_have_no_trec_eval_name(metric_id):
    assert trec_name(metric_id) is None


def test_evaluate_run_without_measures_gives_the_queries_pytrec_eval_gives(reference_dicts):
    qrels = {"a": {"d1": 1}, "b": {"d2": 1}, "c": {"d3": 0}, "e": {}, "f": {"d1": 1}}
    run = {"a": {"d1": 1.0}, "c": {"d1": 1.0}, "z": {"d1": 1.0}, "e": {"d1": 1.0}, "f": {}}
    cases = [(qrels, run), (qrels, {}), ({}, run),
             (reference_dicts("qrels.test"), reference_dicts("results.trunc"))]
    for q, r in cases:
        expected = pytrec_eval.RelevanceEvaluator(q, set()).evaluate(r)
        got = evaluate_run(q, r, [])
        assert {qid: dict(scores) for qid, scores in got.items()} == expected
        assert list(got) == [qid for qid in q if qid in expected]
        assert set(evaluate_run(q, r, ["map"])) == set(got)  # the same queries as with a measure
