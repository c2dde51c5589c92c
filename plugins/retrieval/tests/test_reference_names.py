"""A trec_eval or ir_measures name means that tool's measure: ``ndcg`` and ``nDCG`` are nDCG over the
whole ranking, ``ndcg_cut_10`` and ``nDCG@10`` its top 10, trec_eval's names of several cut-offs
(``P``, ``recall``) are metric sets, refused where one metric is asked for. Expected values come
from pytrec_eval and ir_measures on trec_eval's test collection."""

from __future__ import annotations

import evalcore
import pytest
from evalcore import AmbiguousMetricError
from evalcore_retrieval import evaluate_run
from evalcore_retrieval._register import ALL_TREC, TREC_FAMILIES

pytrec_eval = pytest.importorskip("pytrec_eval")

# spellings -> the pytrec_eval measure each must equal
SPELLINGS = {
    "ndcg": "ndcg", "NDCG": "ndcg", "nDCG": "ndcg", "Ndcg": "ndcg", "retrieval/ndcg": "ndcg",
    "ndcg_cut_10": "ndcg_cut_10", "nDCG@10": "ndcg_cut_10", "ndcg@10": "ndcg_cut_10",
    "retrieval/ndcg@10": "ndcg_cut_10", "map": "map", "AP": "map", "map_cut_10": "map_cut_10",
    "recip_rank": "recip_rank", "RR": "recip_rank", "P_5": "P_5", "P@5": "P_5", "recall_100": "recall_100",
    "R@100": "recall_100", "Rprec": "Rprec", "bpref": "bpref", "Bpref": "bpref", "success_1": "success_1",
    "num_rel": "num_rel", "NumRel": "num_rel", "iprec_at_recall_0.50": "iprec_at_recall_0.50",
}


PYTREC_MEASURES = {"ndcg", "ndcg_cut", "map", "map_cut", "recip_rank", "P", "recall", "Rprec", "bpref", "success",
                   "num_rel", "iprec_at_recall"}


@pytest.mark.parametrize(("typed", "measure"), SPELLINGS.items())
def test_each_spelling_gives_the_number_of_its_reference_measure(reference_dicts, typed, measure):
    qrels, run = reference_dicts("qrels.rel_level"), reference_dicts("results.test")
    expected = pytrec_eval.RelevanceEvaluator(qrels, PYTREC_MEASURES).evaluate(run)
    # pytrec_eval bundles trec_eval 9, which rounds recall levels as rounding='v9'
    metric = evalcore.get_metric(typed, **({"rounding": "v9"} if measure.startswith("iprec") else {}))
    got = evaluate_run(qrels, run, [metric])
    assert {qid: v[metric.id] for qid, v in got.items()} == pytest.approx(
        {qid: v[measure] for qid, v in expected.items()}, abs=1e-9)


def test_ndcg_is_the_whole_ranking_and_its_cut_is_asked_for():
    assert evalcore.get_metric("ndcg").params["k"] is None
    assert {evalcore.get_metric(s).id for s in ("ndcg", "NDCG", "nDCG", "retrieval/ndcg", "ndcg(k=None)")} == \
        {"retrieval/ndcg"}
    assert evalcore.get_metric("ndcg").trec_eval_name() == "ndcg"
    assert evalcore.get_metric("ndcg_cut_10").trec_eval_name() == "ndcg_cut_10"
    assert evalcore.describe("retrieval/ndcg").spec.version == "3"


def test_judged_is_the_whole_ranking_as_ir_measures_means(trec_reference):
    ir_measures = pytest.importorskip("ir_measures")
    qrels = list(ir_measures.read_trec_qrels(str(trec_reference / "qrels.test")))
    run = list(ir_measures.read_trec_run(str(trec_reference / "results.test")))
    from evalcore_retrieval import read_trec

    data = read_trec(trec_reference / "qrels.test", trec_reference / "results.test")
    examples, predictions = data.records()
    for typed in ("Judged", "judged", "Judged@10"):
        reference = ir_measures.calc_aggregate([ir_measures.parse_measure(typed.capitalize())], qrels, run)
        metric = evalcore.get_metric(typed)
        scores = [s.value for s in metric.score_many(examples, predictions) if s.ok]
        assert sum(scores) / len(scores) == pytest.approx(next(iter(reference.values())), abs=1e-12), typed


@pytest.mark.parametrize("family", TREC_FAMILIES)
def test_a_name_of_several_cut_offs_is_trec_eval_s_set(family):
    """``trec_eval -m P`` prints P_5 ... P_1000: the bare name expands to those (the names -m all_trec
    prints, in its order), and ``get_metric`` refuses it in any case, naming them."""
    members = evalcore.expand_metrics([family])
    assert [evalcore.get_metric(m).trec_eval_name() for m in members] == [
        name for name in ALL_TREC if name.startswith(f"{family}_") and name[len(family) + 1].isdigit()]
    for typed in (family, family.upper(), family.lower()):
        with pytest.raises(AmbiguousMetricError, match=f"metric set '{family}'") as error:
            evalcore.get_metric(typed)
        assert error.value.candidates == members


@pytest.mark.parametrize("family", ["P", "recall", "ndcg_cut", "map_cut", "success", "relative_P",
                                    "iprec_at_recall", "Rprec_mult"])
def test_the_sets_are_pytrec_eval_s_measures(family):
    names = pytrec_eval.RelevanceEvaluator({"q": {"d": 1}}, {family}).evaluate({"q": {"d": 1.0}})["q"]
    ours = [evalcore.get_metric(m).trec_eval_name() for m in evalcore.expand_metrics([family])]
    assert sorted(ours) == sorted(names)


def test_evalcore_s_own_ids_with_the_namespace_stay_one_metric():
    assert evalcore.get_metric("retrieval/recall").id == "retrieval/recall@10"
    assert evalcore.expand_metrics(["retrieval/recall"]) == ["retrieval/recall"]
    assert evalcore.get_metric("retrieval/iprec_at_recall").id == "retrieval/iprec_at_recall"
    assert evalcore.get_metric("recall@10").id == "retrieval/recall@10"
    assert evalcore.get_metric("retrieval/ndcg(gain='exp2')@10").id == "retrieval/ndcg(gain='exp2')@10"
    assert evalcore.get_metric("retrieval/map").id == "retrieval/map"
