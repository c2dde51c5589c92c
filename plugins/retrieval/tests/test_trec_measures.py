"""Hand-worked cases for the trec_eval measures pytrec_eval does not compute (rbp, rbp_resid,
unj), trec_eval's -M and -J, the names people type, and the Auepora RAG metric spec's
conventions (``convention='rag'``)."""

from __future__ import annotations

import json
import subprocess
import sys

import evalcore
import numpy as np
import pytest
from evalcore_retrieval import average, evaluate_run
from evalcore_retrieval._ranking import Rankings

# ranking a b c d e: a relevant (1), b judged non-relevant, c unjudged, d grade 2, e unjudged
QRELS = {"q": {"a": 1, "b": 0, "d": 2, "f": 1}}
RUN = {"q": {"a": 5.0, "b": 4.0, "c": 3.0, "d": 2.0, "e": 1.0}}


def value(metric: str, **kwargs) -> float:
    return evaluate_run(QRELS, RUN, [metric], **kwargs)["q"][evalcore.get_metric(
        metric if "/" in metric else f"retrieval/{metric}").id]


def test_rbp_by_hand():
    # grades / highest grade (2): a 0.5 at rank 1, d 1.0 at rank 4
    assert value("rbp") == pytest.approx(0.1 * (0.5 + 0.9 ** 3))
    assert value("RBP(p=0.5)") == pytest.approx(0.5 * (0.5 + 0.5 ** 3))


def test_rbp_resid_by_hand():
    # unjudged at ranks 3 and 5; p^5 for everything after the ranking
    assert value("rbp_resid") == pytest.approx(0.9 ** 5 + 0.1 * (0.9 ** 2 + 0.9 ** 4))
    assert evaluate_run({"q": {"a": 1}}, {"q": {"a": 1.0}}, ["rbp_resid"])["q"]["retrieval/rbp_resid"] == 0.0


@pytest.mark.parametrize(("name", "expected"), [("unj_5", 2 / 5), ("unj_2", 0.0), ("unj_10", 2 / 10),
                                                ("unj_3", 1 / 3)])
def test_unjudged_by_hand(name, expected):
    assert value(name) == pytest.approx(expected)


def test_max_docs_keeps_the_top_of_each_ranking():
    assert value("num_ret", max_docs=2) == 2
    assert value("recall@10", max_docs=3) == pytest.approx(1 / 3)  # a of a, d, f
    with pytest.raises(evalcore.ParameterError):
        evaluate_run(QRELS, RUN, ["map"], max_docs=0)


def test_judged_only_drops_unjudged_documents_before_ranking():
    # judged ranking: a b d -> d moves to rank 3
    assert value("precision(judged_only=True)@3") == pytest.approx(2 / 3)
    assert value("precision@3") == pytest.approx(1 / 3)
    assert value("num_ret(judged_only=True)") == 3


def test_counts_sum_and_gm_map_is_geometric():
    qrels = {"q1": {"a": 1}, "q2": {"a": 1, "b": 1}}
    run = {"q1": {"a": 1.0, "x": 0.5}, "q2": {"x": 1.0}}
    means = average(evaluate_run(qrels, run, ["num_ret", "num_rel", "gm_map", "map"]))
    assert means["retrieval/num_ret"] == 3 and means["retrieval/num_rel"] == 3
    assert means["retrieval/map"] == pytest.approx(0.5)
    assert means["retrieval/gm_map"] == pytest.approx(np.sqrt(1.0 * 1e-5))


@pytest.mark.parametrize(("typed", "canonical"), [
    ("P_10", "retrieval/precision@10"), ("ndcg_cut_10", "retrieval/ndcg@10"),
    ("iprec_at_recall_0.50", "retrieval/iprec_at_recall(recall=0.5)"),
    ("Rprec_mult_0.20", "retrieval/r_precision_mult(multiple=0.2)"),
    ("nDCG@10", "retrieval/ndcg@10"), ("P(rel=2)@5", "retrieval/precision(relevance_level=2)@5"),
    ("AP", "retrieval/map"), ("RR@10", "retrieval/mrr@10"), ("R@100", "retrieval/recall@100"),
    ("RBP(p=0.8)", "retrieval/rbp(p=0.8)"), ("success_1", "retrieval/hit_rate@1"),
    ("Success@5", "retrieval/hit_rate@5"), ("infAP", "retrieval/infap"), ("11pt_avg", "retrieval/eleven_point_avg"),
    ("set_F", "retrieval/set_f"), ("unj_5", "retrieval/unjudged@5"), ("nDCG", "retrieval/ndcg"),
    ("ERR@20", "retrieval/err@20"), ("Judged@10", "retrieval/judged@10"), ("rouge1", "overlap/rouge(variant='1')"),
])
def test_names_people_type_resolve_to_one_canonical_id(typed, canonical):
    assert evalcore.get_metric(typed).id == canonical


def test_measures_needing_judged_non_relevant_documents_say_so():
    bare = Rankings(np.array([1]), np.array([True]), np.array([0]), np.array([0]), np.array([1.0]),
                    np.array([0, 1]), np.array([1.0]))
    with pytest.raises(evalcore.EvalcoreError, match="judged non-relevant"):
        evalcore.get_metric("bpref").values(bare)


EXAMPLE = {"relevant_docs": [{"doc_id": "a"}, {"doc_id": "b"}, {"doc_id": "c"}]}
RANKED = {"retrieved": [{"doc_id": "x", "score": 0.9, "rank": 2}, {"doc_id": "a", "score": 0.1, "rank": 1}]}
EMPTY: dict = {"retrieved": []}


@pytest.mark.parametrize(("metric", "trec", "rag"), [
    # trec_eval ranks by score (x first); the RAG spec honours rank (a first)
    ("precision@5", 1 / 5, 1 / 2),  # RAG: / min(k, retrieved)
    ("map", 1 / 2 / 3, 1.0),  # RAG: mean precision at the relevant ranks retrieved
    ("mrr", 1 / 2, 1.0),
])
def test_rag_convention(metric, trec, rag):
    name, _, k = metric.partition("@")
    default = evalcore.get_metric(f"retrieval/{metric}")
    spec_rag = evalcore.get_metric(f"retrieval/{name}(convention='rag')" + (f"@{k}" if k else ""))
    trec_scores = default.score_many([EXAMPLE, EXAMPLE], [RANKED, EMPTY])
    rag_scores = spec_rag.score_many([EXAMPLE, EXAMPLE], [RANKED, EMPTY])
    assert trec_scores[0].value == pytest.approx(trec) and not trec_scores[1].ok  # nothing retrieved: skipped
    assert rag_scores[0].value == pytest.approx(rag) and rag_scores[1].value == 0.0  # scored 0


def test_rag_convention_reports_zero_when_no_record_has_a_relevant_document(tmp_path):
    """The Auepora RAG metric spec: no valid sample gives 0.0 with num_samples 0; trec_eval's
    convention reports nothing (null), never a made-up number."""
    data = tmp_path / "none_relevant.jsonl"
    records = [{"id": f"q{i}", "example": {"relevant_docs": []},
                "prediction": {"retrieved": [{"doc_id": "a", "score": 1.0}]}} for i in range(3)]
    data.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    result = subprocess.run([sys.executable, "-m", "evalcore", "evaluate", str(data), "--json",
                             "-m", "retrieval/recall(convention='rag')@5", "-m", "retrieval/recall@5"],
                            capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert result.returncode == 0, result.stderr
    metrics = json.loads(result.stdout)["metrics"]
    rag, trec = metrics["retrieval/recall(convention='rag')@5"], metrics["retrieval/recall@5"]
    assert (rag["value"], rag["n"], rag["n_skipped"]) == (0.0, 0, 3)
    assert (trec["value"], trec["n"]) == (None, 0)
