"""Hand-worked cases for SDCG, RBP's gains, Compat and alpha-nDCG, their edge cases and errors,
ir_measures' names for them, and diversity qrels files."""

from __future__ import annotations

import math

import evalcore
import pytest
from evalcore import EvalcoreError
from evalcore_retrieval import evaluate_run, read_subtopic_qrels

LOG2_3 = math.log2(3)


def value(metric_id: str, judged: list[dict], retrieved: list, **params) -> float | None:
    docs = [d if isinstance(d, dict) else {"doc_id": d} for d in retrieved]
    return evalcore.get_metric(metric_id, **params).score_one({"relevant_docs": judged},
                                                              {"retrieved": docs}).value


# -- SDCG -----------------------------------------------------------------------------------------

def test_sdcg_divides_by_k_documents_of_full_gain():
    qrels, run = {"q": {"a": 3, "b": 1}}, {"q": {"b": 3.0, "x": 2.0, "a": 1.0}}
    dcg = 1 / 3 + 1 / math.log2(4)  # b gains 1/3 at rank 1, a gains 1 at rank 3
    ideal_k3 = 1 + 1 / LOG2_3 + 1 / 2
    got = evaluate_run(qrels, run, ["SDCG(max_rel=3)@3", "SDCG(max_rel=3)@5", "SDCG@3"])
    assert got["q"]["retrieval/sdcg(max_grade=3.0)@3"] == pytest.approx(dcg / ideal_k3)
    # k beyond the run still divides by k ranks of full gain
    assert got["q"]["retrieval/sdcg(max_grade=3.0)@5"] == pytest.approx(dcg / (ideal_k3 + 1 / math.log2(5)
                                                                                 + 1 / math.log2(6)))
    # without max_grade the record's highest judged grade (3) is the full gain
    assert got["q"]["retrieval/sdcg@3"] == got["q"]["retrieval/sdcg(max_grade=3.0)@3"]


def test_sdcg_clips_grades_into_min_and_max():
    qrels, run = {"q": {"a": 4, "b": 1, "c": 2, "n": -1}}, {"q": {"a": 3.0, "b": 2.0, "c": 1.0, "n": 0.5}}
    got = evaluate_run(qrels, run, ["SDCG(max_rel=3,min_rel=1)@4"])["q"]
    # gains: a clipped to 3 -> 1; b at min_rel -> 0; c -> 1/2; n negative -> 0
    assert list(got.values()) == [pytest.approx((1 + 0.5 / 2) / (1 + 1 / LOG2_3 + 1 / 2 + 1 / math.log2(5)))]


def test_sdcg_rejects_max_grade_not_above_min_grade():
    with pytest.raises(EvalcoreError, match="max_grade"):
        evalcore.get_metric("retrieval/sdcg(min_grade=2, max_grade=2)")


# -- RBP's gains ----------------------------------------------------------------------------------

def test_rbp_binary_gain_counts_grades_at_the_level():
    judged = [{"doc_id": "a", "relevance": 3}, {"doc_id": "b", "relevance": 1}, {"doc_id": "c", "relevance": 2}]
    ranked = ["b", "a", "c", "x"]
    assert value("RBP(p=0.5,rel=2)", judged, ranked) == pytest.approx(0.5 * (0.5 + 0.25))
    assert value("RBP(rel=1)", judged, ranked) == pytest.approx(0.2 * (1 + 0.8 + 0.64))


def test_rbp_graded_gain_scales_by_max_grade():
    judged = [{"doc_id": "a", "relevance": 3}, {"doc_id": "b", "relevance": 1}, {"doc_id": "c", "relevance": 5}]
    # gains 1/3, 3/3 and 5 capped at 3 -> 1
    assert value("retrieval/rbp", judged, ["b", "a", "c"], p=0.5, gain="graded", max_grade=3) == pytest.approx(
        0.5 * (1 / 3 + 0.5 + 0.25))
    # trec_eval's default divides by the record's highest grade (5), whatever the relevance level
    trec = 0.5 * (1 / 5 + 3 / 10 + 1 / 4)
    assert value("retrieval/rbp", judged, ["b", "a", "c"], p=0.5) == pytest.approx(trec)
    assert value("retrieval/rbp", judged, ["b", "a", "c"], p=0.5, relevance_level=4) == pytest.approx(trec)


def test_rbp_graded_gain_needs_max_grade():
    with pytest.raises(EvalcoreError, match="max_grade"):
        evalcore.get_metric("retrieval/rbp", gain="graded")


def test_rbp_skips_records_without_relevant_documents_at_its_level_when_asked():
    judged = [{"doc_id": "a", "relevance": 1}]
    metric = evalcore.get_metric("retrieval/rbp", gain="binary", relevance_level=2, no_relevant="skip")
    assert metric.score_one({"relevant_docs": judged}, {"retrieved": [{"doc_id": "a"}]}).status == "skipped"
    assert value("retrieval/rbp", judged, ["a"], no_relevant="skip", relevance_level=2) == pytest.approx(0.1)


# -- Compat ---------------------------------------------------------------------------------------

def test_compat_is_the_overlap_with_the_ideal_ranking():
    judged = [{"doc_id": "a", "relevance": 1}, {"doc_id": "b", "relevance": 2}]
    # ideal [b, a]; overlaps 0 at depth 1 and 2 at depth 2: (0 + 0.5 * 2 / 2) / (1 + 0.5)
    assert value("Compat(normalize=False,p=0.5)", judged, ["a", "b"]) == pytest.approx(1 / 3)
    # the ideal ranking's own overlap is 1 here, so normalising changes nothing
    assert value("Compat(p=0.5)", judged, ["a", "b"]) == pytest.approx(1 / 3)
    assert value("Compat(p=0.5)", judged, ["b", "a"]) == pytest.approx(1.0)


def test_compat_normalises_by_the_finite_ideal_ranking():
    judged = [{"doc_id": "a", "relevance": 1}]
    # depth 2 (the ranking is longer): ranking [a, x] vs ideal [a]: 1 + 0.5 * 1 / 2 over 1.5
    raw = value("Compat(normalize=False,p=0.5)", judged, ["a", "x"])
    assert raw == pytest.approx(1.25 / 1.5)
    assert value("Compat(p=0.5)", judged, ["a", "x"]) == pytest.approx(raw / (1.25 / 1.5))


def test_compat_ideal_ranking_orders_equal_grades_by_run_score_then_judgement_order():
    from evalcore_retrieval._compat import ideal_ranking
    from evalcore_retrieval._doc_ranking import ranked_documents

    grades = {"c": 1, "a": 1, "b": 1, "d": 2, "n": 0}
    scored = ranked_documents({"retrieved": [{"doc_id": "a", "score": -1.0}, {"doc_id": "b", "score": 2.0}]}, "doc_id")
    # grade 2 first; among grade 1 by run score (c, not retrieved, counts 0: above a's -1)
    assert ideal_ranking(grades, scored) == ["d", "b", "c", "a"]
    ranked = ranked_documents({"retrieved": [{"doc_id": "a", "rank": 2}, {"doc_id": "b", "rank": 1}]}, "doc_id")
    # without scores, documents not retrieved come after the retrieved ones
    assert ideal_ranking(grades, ranked) == ["d", "b", "a", "c"]


def test_compat_ties_follow_the_ties_parameter():
    judged = [{"doc_id": "b", "relevance": 1}]
    tied = [{"doc_id": "b", "score": 1.0}, {"doc_id": "a", "score": 1.0}]
    assert value("Compat(normalize=False,p=0.5)", judged, tied) == pytest.approx(0.25 / 1.5)  # [a, b]
    assert value("retrieval/compat", judged, tied, ties="trec", p=0.5, normalize=False) == pytest.approx(1.25 / 1.5)
    assert value("retrieval/compat", judged, tied, ties="input", p=0.5, normalize=False) == pytest.approx(1.25 / 1.5)


def test_compat_edge_records():
    assert value("Compat", [{"doc_id": "a", "relevance": 0}], ["a"]) == 0.0
    judged = [{"doc_id": "a", "relevance": 1}]
    metric = evalcore.get_metric("Compat")
    assert metric.score_one({"relevant_docs": judged}, {"retrieved": []}).status == "skipped"
    assert metric.score_one({"relevant_docs": []}, {"retrieved": ["a"]}).status == "skipped"
    assert value("retrieval/compat", judged, [], missing="zero") == 0.0
    bad = metric.score_one({"relevant_docs": judged}, {"retrieved": [{"doc_id": "a", "score": "high"}]})
    assert bad.status == "error" and "prediction.retrieved[0].score" in bad.error_message


# -- alpha-nDCG -----------------------------------------------------------------------------------

SUBTOPICS = [{"doc_id": "d1", "subtopic": 1}, {"doc_id": "d1", "subtopic": 2},
             {"doc_id": "d2", "subtopic": 1}, {"doc_id": "d3", "subtopic": 3}]


def test_alpha_ndcg_rewards_new_subtopics():
    # run [d2, d1, d3]: gains 1, 0.5 + 1 (subtopic 1 seen once), 1
    dcg = 1 + 1.5 / LOG2_3 + 1 / 2
    # greedy ideal [d1 (2), d3 (1), d2 (0.5)]
    ideal = 2 + 1 / LOG2_3 + 0.5 / 2
    assert value("alpha_nDCG@3", SUBTOPICS, ["d2", "d1", "d3"]) == pytest.approx(dcg / ideal)
    assert value("alpha_nDCG@3", SUBTOPICS, ["d1", "d3", "d2", "x"]) == pytest.approx(1.0)
    # alpha = 0: plain DCG of the number of subtopics covered, redundancy not penalised
    assert value("alpha_nDCG(alpha=0.0)@3", SUBTOPICS, ["d2", "d1", "d3"]) == pytest.approx(
        (1 + 2 / LOG2_3 + 1 / 2) / (2 + 1 / LOG2_3 + 1 / 2))


def test_alpha_ndcg_relevance_level_and_judged_only():
    graded = [{"doc_id": "a", "subtopic": "s", "relevance": 1}, {"doc_id": "b", "subtopic": "s", "relevance": 2}]
    assert value("alpha_nDCG(rel=2)@2", graded, ["a", "b"]) == pytest.approx((1 / LOG2_3) / 1)
    assert value("alpha_nDCG@2", graded, ["x", "a"]) == pytest.approx((1 / LOG2_3) / (1 + 0.5 / LOG2_3))
    # judged_only drops the unjudged x: a moves to rank 1
    assert value("alpha_nDCG(judged_only=True)@2", graded, ["x", "a"]) == pytest.approx(1 / (1 + 0.5 / LOG2_3))


def test_alpha_ndcg_without_subtopics_has_one_intent():
    judged = [{"doc_id": "a"}, {"doc_id": "b"}]
    # one subtopic: gains 1 and 0.5 wherever the relevant documents are
    assert value("alpha_nDCG@3", judged, ["x", "a", "b"]) == pytest.approx(
        (1 / LOG2_3 + 0.5 / 2) / (1 + 0.5 / LOG2_3))


def test_alpha_ndcg_edge_records():
    assert value("alpha_nDCG@5", [{"doc_id": "a", "relevance": 0}], ["a"]) == 0.0
    metric = evalcore.get_metric("alpha_nDCG@5")
    skipped = metric.score_one({"relevant_docs": SUBTOPICS}, {"retrieved": []})
    assert skipped.status == "skipped" and "nothing retrieved" in skipped.reason
    assert metric.score_one({"relevant_docs": []}, {"retrieved": ["d1"]}).status == "skipped"
    assert value("retrieval/alpha_ndcg", SUBTOPICS, [], missing="zero") == 0.0


@pytest.mark.parametrize(("entry", "field"), [
    ({"doc_id": "d1", "subtopic": 2}, "example.relevant_docs[4].doc_id"),
    ({"doc_id": "d9", "subtopic": True}, "example.relevant_docs[4].subtopic"),
    ({"doc_id": "d9", "subtopic": 1, "relevance": "high"}, "example.relevant_docs[4].relevance"),
])
def test_alpha_ndcg_bad_judgements_name_the_field(entry, field):
    score = evalcore.get_metric("alpha_nDCG@5").score_one({"relevant_docs": [*SUBTOPICS, entry]},
                                                          {"retrieved": ["d1"]})
    assert score.status == "error" and field in score.error_message


# -- ir_measures' names and diversity qrels ---------------------------------------------------------

@pytest.mark.parametrize(("name", "canonical"), [
    ("SDCG@10", "retrieval/sdcg@10"),
    ("SDCG(max_rel=3)@10", "retrieval/sdcg(max_grade=3.0)@10"),
    ("SDCG(dcg=log2,max_rel=2,min_rel=1)@5", "retrieval/sdcg(min_grade=1.0, max_grade=2.0)@5"),
    ("alpha_nDCG@10", "retrieval/alpha_ndcg@10"),
    ("α_nDCG@20", "retrieval/alpha_ndcg@20"),
    ("alpha_nDCG(alpha=0.6,judged_only=True,rel=2)@5",
     "retrieval/alpha_ndcg(alpha=0.6, relevance_level=2, judged_only=True)@5"),
    ("Compat", "retrieval/compat"),
    ("Compat(p=0.8)", "retrieval/compat(p=0.8)"),
    ("Compat(normalize=False,p=0.8)", "retrieval/compat(p=0.8, normalize=False)"),
    ("RBP(p=0.5,rel=2)", "retrieval/rbp(p=0.5, gain='binary', relevance_level=2)"),
    ("RBP(rel=2)", "retrieval/rbp(p=0.8, gain='binary', relevance_level=2)"),
    ("RBP(p=0.5)", "retrieval/rbp(p=0.5)"),
])
def test_ir_measures_names_resolve(name, canonical):
    assert evalcore.get_metric(name).id == canonical


def test_read_subtopic_qrels(tmp_path):
    path = tmp_path / "qrels.ndeval"
    path.write_bytes(b"\xef\xbb\xbf# topic subtopic docno judgement\n1 1 d1 1\n1 2 d1 0\n\n1 2 d#2 1\n2 1 d3 -1\n")
    assert read_subtopic_qrels(path) == {
        "1": [{"doc_id": "d1", "subtopic": "1", "relevance": 1}, {"doc_id": "d1", "subtopic": "2", "relevance": 0},
              {"doc_id": "d#2", "subtopic": "2", "relevance": 1}],
        "2": [{"doc_id": "d3", "subtopic": "1", "relevance": -1}],
    }


@pytest.mark.parametrize(("text", "where"), [
    ("1 1 d1 1\n1 1 d1 2\n", ":2: docno"),
    ("1 1 d1\n", ":1: columns"),
    ("1 1 d1 x\n", ":1: rel"),
    ("# nothing\n", "no qrels lines"),
])
def test_read_subtopic_qrels_names_the_bad_line(tmp_path, text, where):
    path = tmp_path / "qrels"
    path.write_text(text)
    with pytest.raises(EvalcoreError, match=where):
        read_subtopic_qrels(path)
