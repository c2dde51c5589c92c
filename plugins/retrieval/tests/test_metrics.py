"""Hand-worked cases, the non-default parameters, input errors and the registry."""

from __future__ import annotations

import math

import evalcore
import pytest
from evalcore import ParameterError, Status
from evalcore.testing import heavy_modules_after_listing
from evalcore_retrieval import evaluate_run


def gold(*docs, **graded):
    return {"relevant_docs": [{"doc_id": d} for d in docs]
            + [{"doc_id": d, "relevance": r} for d, r in graded.items()]}


def ranked(*docs):
    """Retrieved documents with descending scores in the given order."""
    return {"retrieved": [{"doc_id": d, "score": float(len(docs) - i)} for i, d in enumerate(docs)]}


def value(metric_id, example, prediction, **params):
    score = evalcore.get_metric(metric_id, **params).score_one(example, prediction)
    assert score.status is Status.OK, score
    return score.value


# gold {a, b}; ranking x a y b  -> relevant at ranks 2 and 4
EX, PRED = gold("a", "b"), ranked("x", "a", "y", "b")


def test_hand_worked_values():
    assert value("retrieval/precision@2", EX, PRED) == 1 / 2            # a in top 2
    assert value("retrieval/recall@2", EX, PRED) == 1 / 2               # 1 of 2 relevant
    assert value("retrieval/hit_rate@1", EX, PRED) == 0.0               # x is not relevant
    assert value("retrieval/mrr", EX, PRED) == 1 / 2                    # first relevant at rank 2
    assert value("retrieval/mrr@1", EX, PRED) == 0.0                    # none in the top 1
    assert value("retrieval/map", EX, PRED) == (1 / 2 + 2 / 4) / 2      # P@2 and P@4, 2 relevant
    assert value("retrieval/map@2", EX, PRED) == (1 / 2) / 2            # only P@2 within the cut
    assert value("retrieval/r_precision", EX, PRED) == 1 / 2            # R = 2, a in the top 2
    # DCG = 1/log2(3) + 1/log2(5); ideal = 1/log2(2) + 1/log2(3)
    ideal = 1 + 1 / math.log2(3)
    assert value("retrieval/ndcg@4", EX, PRED) == pytest.approx((1 / math.log2(3) + 1 / math.log2(5)) / ideal)


def test_precision_denominator_and_capped_recall():
    short = ranked("a")  # one document retrieved, relevant
    assert value("retrieval/precision@5", EX, short) == 1 / 5                          # trec: / k
    assert value("retrieval/precision@5", EX, short, denominator="retrieved") == 1.0   # / min(5, 1)
    many = gold(*"abcdef")
    top = ranked("a", "b")
    assert value("retrieval/recall@2", many, top) == 2 / 6                  # / |G|
    assert value("retrieval/recall@2", many, top, capped=True) == 1.0       # / min(2, 6)


def test_ndcg_gains():
    example = gold(a=3, b=1)
    prediction = ranked("b", "a")
    # linear: DCG = 1 + 3/log2(3), ideal = 3 + 1/log2(3)
    linear = (1 + 3 / math.log2(3)) / (3 + 1 / math.log2(3))
    assert value("retrieval/ndcg@2", example, prediction) == pytest.approx(linear)
    # exp2: gains 2^3-1 = 7 and 2^1-1 = 1: DCG = 1 + 7/log2(3), ideal = 7 + 1/log2(3)
    exp2 = (1 + 7 / math.log2(3)) / (7 + 1 / math.log2(3))
    assert value("retrieval/ndcg@2", example, prediction, gain="exp2") == pytest.approx(exp2)


def test_ties_trec_and_input():
    example = gold("a")
    prediction = {"retrieved": [{"doc_id": d, "score": 1.0} for d in ("a", "c", "b")]}
    # trec_eval: equal scores by doc id descending -> c b a, a at rank 3
    assert value("retrieval/mrr", example, prediction) == 1 / 3
    assert value("retrieval/mrr", example, prediction, ties="input") == 1.0
    # scores equal in single precision tie in trec_eval (1 + 1e-9 rounds to 1.0f)
    close = {"retrieved": [{"doc_id": "a", "score": 1.0 + 1e-9}, {"doc_id": "b", "score": 1.0}]}
    assert value("retrieval/mrr", example, close) == 1 / 2
    assert value("retrieval/mrr", example, close, ties="input") == 1.0


def test_ranking_without_scores_uses_rank_then_list_order():
    example = gold("a")
    by_rank = {"retrieved": [{"doc_id": "a", "rank": 2}, {"doc_id": "b", "rank": 1}]}
    assert value("retrieval/mrr", example, by_rank) == 1 / 2
    assert value("retrieval/mrr", example, {"retrieved": ["b", "c", "a"]}) == 1 / 3


def test_skips_and_their_options():
    metric = evalcore.get_metric("retrieval/map")
    no_gold, nothing, none_relevant = metric.score_many(
        [{"relevant_docs": []}, gold("a"), gold(a=0)],
        [ranked("a"), {"retrieved": []}, ranked("a")],
    )
    assert no_gold.status is Status.SKIPPED and "no judged" in no_gold.reason
    assert nothing.status is Status.SKIPPED and "nothing retrieved" in nothing.reason
    assert none_relevant.value == 0.0  # trec_eval scores all-non-relevant queries 0
    zero = evalcore.get_metric("retrieval/map", missing="zero", no_relevant="skip")
    assert zero.id == "retrieval/map(missing='zero', no_relevant='skip')"
    _, nothing, none_relevant = zero.score_many(
        [{"relevant_docs": []}, gold("a"), gold(a=0)], [ranked("a"), {}, ranked("a")],
    )
    assert nothing.value == 0.0 and none_relevant.status is Status.SKIPPED


def test_relevance_level():
    example = gold(a=1, b=2)
    prediction = ranked("a", "b")
    assert value("retrieval/mrr", example, prediction) == 1.0
    assert value("retrieval/mrr", example, prediction, relevance_level=2) == 1 / 2


@pytest.mark.parametrize(
    ("prediction", "field"),
    [
        ({"retrieved": "a b"}, "prediction.retrieved"),
        ({"retrieved": [{"score": 1.0}]}, "prediction.retrieved[0].doc_id"),
        ({"retrieved": [{"doc_id": "a", "score": "high"}]}, "prediction.retrieved[0].score"),
        ({"retrieved": [{"doc_id": "a", "score": 1}, {"doc_id": "b"}]}, "prediction.retrieved[1].score"),
        ({"retrieved": [{"doc_id": "a", "score": 1}, {"doc_id": "a", "score": 0}]},
         "prediction.retrieved[1].doc_id"),
    ],
)
def test_bad_record_is_an_error_for_that_record_only(prediction, field):
    metric = evalcore.get_metric("retrieval/ndcg@10")
    good, bad, also_good = metric.score_many([EX, EX, EX], [PRED, prediction, PRED])
    assert good.ok and also_good.ok and good.value == also_good.value
    assert bad.status is Status.ERROR and bad.error_type == "InputError"
    assert bad.error_message.startswith(field + ":")


def test_bad_relevance_names_the_field():
    metric = evalcore.get_metric("retrieval/recall@10")
    (bad,) = metric.score_many([{"relevant_docs": [{"doc_id": "a", "relevance": "yes"}]}], [PRED])
    assert bad.error_message.startswith("example.relevant_docs[0].relevance:")


def test_registry_ids_and_parameters():
    assert evalcore.get_metric("retrieval/ndcg@10").id == "retrieval/ndcg@10"
    assert evalcore.get_metric("ndcg", k=5, gain="exp2").id == "retrieval/ndcg(gain='exp2')@5"
    assert evalcore.get_metric("retrieval/mrr").id == "retrieval/mrr"
    assert evalcore.get_metric("retrieval/map@100").id == "retrieval/map@100"
    for bad in ({"k": 0}, {"k": "ten"}, {"gain": "log"}, {"ties": "random"}):
        with pytest.raises(ParameterError):
            evalcore.get_metric("retrieval/ndcg", **bad)
    listed = {info.default_id for info in evalcore.list_metrics()}
    assert {"retrieval/ndcg", "retrieval/recall@10", "retrieval/precision@10",
            "retrieval/hit_rate@10", "retrieval/mrr", "retrieval/map",
            "retrieval/r_precision"} <= listed


def test_dspy_call():
    metric = evalcore.get_metric("retrieval/hit_rate@2")
    assert metric(EX, PRED) == 1.0
    assert metric(EX, ranked("x", "y", "a"), trace=True) is False


def test_listing_does_not_import_numpy():
    assert "retrieval/ndcg" in [m.default_id for m in evalcore.list_metrics()]
    assert heavy_modules_after_listing("evalcore_retrieval") == []


def test_evaluate_run_skips_like_pytrec_eval():
    qrels = {"q1": {"a": 1}, "q2": {"a": 1}, "q3": {}, "q4": {"a": 0}}
    run = {"q1": {"a": 1.0}, "q3": {"a": 1.0}, "q4": {"a": 1.0}, "q5": {"a": 1.0}}
    # q2 is not in the run, q3 has no judgements, q5 only in the run; q4 has no relevant doc
    assert evaluate_run(qrels, run, ["mrr"]) == {"q1": {"retrieval/mrr": 1.0}, "q4": {"retrieval/mrr": 0.0}}
    with_missing = evaluate_run(qrels, run, ["mrr(missing='zero')"])
    assert with_missing["q2"] == {"retrieval/mrr(missing='zero')": 0.0}


def test_evaluate_run_names_a_bad_score():
    with pytest.raises(evalcore.InputError) as info:
        evaluate_run({"q": {"a": 1}}, {"q": {"a": 1.0, "b": "high"}}, ["map"])
    assert (info.value.source, info.value.field) == ("run", "['q']['b']")
