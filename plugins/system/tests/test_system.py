"""System metrics: hand-worked seed cases, numpy cross-checks, exact shard merging, bad input."""

from __future__ import annotations

import math

import evalcore
import numpy as np
import pytest
from evalcore import ParameterError, Status
from evalcore.testing import heavy_modules_after_listing
from evalcore_system.latency import quantile_index
from hypothesis import given, settings
from hypothesis import strategies as st


def corpus(metric, predictions, examples=None):
    examples = examples or [{} for _ in predictions]
    return metric.corpus_score([s for _, s in metric.states(examples, predictions)])


def shards_equal_whole(metric, predictions, cut: int) -> None:
    states = [s for _, s in metric.states([{}] * len(predictions), predictions)]
    whole = metric.corpus_score(states)
    merged = metric.corpus_score([metric.merge(states[:cut]), metric.merge(states[cut:])])
    assert whole.value == merged.value and whole.status == merged.status


def timed(values, key="end_to_end"):
    return [{"timings": {key: v}} for v in values]


# -- specs ---------------------------------------------------------------------------


def test_specs_complete_and_listing_is_light() -> None:
    infos = {i.spec.name: i.spec for i in evalcore.list_metrics() if i.spec.namespace == "system"}
    assert set(infos) == {"mean_latency", "quantile_latency", "technical_performance", "cost_efficiency",
                          "distinct_n", "intra_list_diversity"}
    for spec in infos.values():
        assert spec.summary and len(spec.description) > 150
        assert any(s in spec.description for s in ("Auepora", "benchmark engine"))
        assert spec.tier.value == "proxy" and spec.cost_msats == 0 and spec.deterministic and spec.target
    assert {n for n, s in infos.items() if s.granularity.value == "corpus"} == \
        {"mean_latency", "quantile_latency", "distinct_n"}
    assert heavy_modules_after_listing("evalcore_system") == []


# -- quantile_latency (seed 002 §7.1.2) ----------------------------------------------


def test_quantile_seed_rule_by_hand() -> None:
    m = evalcore.get_metric("system/quantile_latency")
    # 20 values 1..20, q = 0.95: ceil(0.95 * 20) - 1 = 19 - 1 = 18 -> sorted[18] = 19.
    score = corpus(m, timed(list(range(20, 0, -1))))
    assert score.value == 19 and score.details == {"num_samples": 20, "quantile": 0.95, "index": 18}
    # 5 values, q = 0.5: ceil(2.5) - 1 = 2 -> the median 30.
    median = evalcore.get_metric("system/quantile_latency", quantile=0.5)
    assert corpus(median, timed([50, 10, 40, 20, 30])).value == 30
    # q = 0.07, n = 100: 0.07 * 100 is 7.000000000000001 in floats; the rule reads 7 -> index 6.
    assert quantile_index(0.07, 100) == 6
    assert quantile_index(0.0, 10) == 0 and quantile_index(1.0, 10) == 9


@settings(max_examples=300)
@given(st.lists(st.floats(0, 1e4, allow_nan=False), min_size=1, max_size=50), st.integers(1, 99))
def test_quantile_matches_numpy_inverted_cdf(values, percent) -> None:
    q = percent / 100
    m = evalcore.get_metric("system/quantile_latency", quantile=q)
    expected = float(np.quantile(values, q, method="inverted_cdf"))
    by_rule = sorted(values)[math.ceil(round(q * len(values), 9)) - 1]
    assert corpus(m, timed(values)).value == by_rule == expected


# -- mean_latency --------------------------------------------------------------------


def test_mean_latency_and_duration_fallback() -> None:
    m = evalcore.get_metric("system/mean_latency")
    # (100 + 200 + 600) / 3 = 300; the third record has only duration_ms (seed 004).
    preds = [{"timings": {"end_to_end": 100}}, {"timings": {"end_to_end": 200}}, {"duration_ms": 600}]
    score = corpus(m, preds)
    assert score.value == 300 and score.details == {"num_samples": 3}
    only = evalcore.get_metric("system/mean_latency", source="timings")
    assert corpus(only, preds).value == 150  # (100 + 200) / 2, duration_ms ignored
    custom = evalcore.get_metric("system/mean_latency", timing_field="retrieval")
    assert corpus(custom, timed([4, 6], key="retrieval")).value == 5


@settings(max_examples=200)
@given(st.lists(st.floats(0, 1e6, allow_nan=False), min_size=1, max_size=40), st.data())
def test_corpus_latency_shards_merge_exactly(values, data) -> None:
    cut = data.draw(st.integers(0, len(values)))
    for metric_id in ("system/mean_latency", "system/quantile_latency(quantile=0.9)"):
        shards_equal_whole(evalcore.get_metric(metric_id), timed(values), cut)
    mean = corpus(evalcore.get_metric("system/mean_latency"), timed(values)).value
    assert mean == pytest.approx(float(np.mean(values)), rel=1e-12)


@pytest.mark.parametrize("bad", [{"timings": {"end_to_end": "fast"}}, {"timings": {"end_to_end": -1}},
                                 {"timings": [1]}, {"duration_ms": True}, {"duration_ms": float("inf")}])
def test_latency_bad_input_is_a_sample_error(bad) -> None:
    m = evalcore.get_metric("system/mean_latency")
    results = m.states([{}, {}, {}], [{"duration_ms": 10}, bad, {}])
    assert [r.status for r, _ in results] == [Status.OK, Status.ERROR, Status.SKIPPED]
    assert corpus(m, [{"duration_ms": 10}, bad, {}]).value == 10


def test_empty_corpus_is_skipped() -> None:
    for metric_id in ("system/mean_latency", "system/quantile_latency", "system/distinct_n"):
        m = evalcore.get_metric(metric_id)
        assert m.corpus_score([]).status is Status.SKIPPED
        assert corpus(m, [{}]).status is Status.SKIPPED


@pytest.mark.parametrize("metric_id", ["system/mean_latency", "system/quantile_latency"])
def test_no_latency_under_the_rag_convention_is_zero_with_no_samples(metric_id) -> None:
    """The Auepora RAG metric spec, 9.1 rule 3: "If no samples are evaluated [...] return value = `0.0`
    and `details["num_samples"] = 0`"."""
    m = evalcore.get_metric(f"{metric_id}(convention='rag')")
    for score in (m.corpus_score([]), corpus(m, [{}])):
        assert score.status is Status.OK and score.value == 0.0 and score.details["num_samples"] == 0
    assert corpus(m, [{"duration_ms": 10}, {}]).value == 10


# -- technical_performance (seed 004) ------------------------------------------------


def test_technical_performance() -> None:
    m = evalcore.get_metric("system/technical_performance")
    # Seed 004 output example: latency 1234 ms under the default 2000 ms -> fast_enough.
    score = m.score_one({}, {"duration_ms": 1234, "status": "ok"})
    assert score.value == 1.0
    assert score.details == {"latency_ms": 1234.0, "fast_enough": True, "status": "ok", "status_ok": True}
    assert m.score_one({}, {"duration_ms": 2500}).value == 0.0
    assert m.score_one({}, {"duration_ms": 10, "status": "FAILED"}).value == 0.0
    assert m.score_one({}, {"duration_ms": 10, "status": "Success"}).value == 1.0
    assert m.score_one({}, {}).status is Status.SKIPPED


# -- cost_efficiency (seed 004) ------------------------------------------------------


def test_cost_efficiency_seed_examples() -> None:
    # Seed 004: score_value 4.0, token_to_cost_rate 0.5; 4 tokens -> cost 2.0 -> efficiency 2.0.
    m = evalcore.get_metric("system/cost_efficiency", score_value=4.0, token_to_cost_rate=0.5)
    score = m.score_one({}, {"usage": {"prompt_tokens": 3, "completion_tokens": 1}})
    assert score.value == 2.0 and score.details["supported"] is True and score.details["reason"] is None
    # Not supported: no usage -> skipped with the seed's reason "missing_usage".
    missing = m.score_one({}, {"response": "x"})
    assert missing.status is Status.SKIPPED and "missing_usage" in missing.reason
    assert missing.details == {"supported": False, "efficiency": None, "reason": "missing_usage"}


def test_cost_efficiency_score_path_cost_field_and_errors() -> None:
    m = evalcore.get_metric("system/cost_efficiency", score_field="metrics.accuracy_score")
    pred = {"metrics": {"accuracy_score": 0.9}, "cost": 0.3}
    assert m.score_one({}, pred).value == pytest.approx(3.0)  # 0.9 / 0.3
    assert m.score_one({}, {"cost": 1.0}).status is Status.SKIPPED  # missing_score
    assert m.score_one({}, {**pred, "cost": 0}).status is Status.SKIPPED  # zero_cost
    assert m.score_one({}, {**pred, "cost": "cheap"}).status is Status.ERROR
    assert m.score_one({}, {**pred, "cost": -1}).status is Status.ERROR
    with pytest.raises(ParameterError):
        evalcore.get_metric("system/cost_efficiency")


# -- distinct_n (seed 002 §7.2.1) ----------------------------------------------------


def test_distinct_n_by_hand() -> None:
    m = evalcore.get_metric("system/distinct_n")
    # "a b a b" -> (a b), (b a), (a b); "a b c" -> (a b), (b c): 5 bigrams, 3 distinct -> 0.6.
    score = corpus(m, [{"response": "a b a b"}, {"response": "a b c"}])
    assert score.value == pytest.approx(0.6)
    assert score.details == {"unique_ngrams": 3, "total_ngrams": 5}
    uni = evalcore.get_metric("system/distinct_n", n=1, ignore_case=True)
    assert corpus(uni, [{"response": "A a b"}]).value == pytest.approx(2 / 3)  # {a, b} of 3
    results = m.states([{}, {}, {}], [{"response": "one"}, {}, {"response": 5}])
    assert [r.status for r, _ in results] == [Status.OK, Status.SKIPPED, Status.ERROR]


WORDS = st.lists(st.sampled_from(["a", "b", "c", "d"]), max_size=8).map(" ".join)


@settings(max_examples=200)
@given(st.lists(WORDS, min_size=1, max_size=20), st.integers(1, 3), st.data())
def test_distinct_n_reference_and_shards(texts, n, data) -> None:
    m = evalcore.get_metric("system/distinct_n", n=n)
    preds = [{"response": t} for t in texts]
    grams = [tuple(t.split()[i:i + n]) for t in texts for i in range(len(t.split()) - n + 1)]
    score = corpus(m, preds)
    if grams:
        assert score.value == len(set(grams)) / len(grams)
    else:
        assert score.status is Status.SKIPPED
    shards_equal_whole(m, preds, data.draw(st.integers(0, len(preds))))


# -- intra_list_diversity (seed 002 §7.2.2) ------------------------------------------


def docs(*vectors):
    return {"retrieved": [{"doc_id": str(i), "metadata": {"embedding": v}} for i, v in enumerate(vectors)]}


def test_intra_list_diversity_by_hand() -> None:
    m = evalcore.get_metric("system/intra_list_diversity")
    # Orthogonal pair: cosine 0 -> ILD 1. Identical pair: cosine 1 -> ILD 0.
    assert m.score_one({}, docs([1, 0], [0, 1])).value == pytest.approx(1.0)
    assert m.score_one({}, docs([1, 1], [2, 2])).value == pytest.approx(0.0)
    # [1,0], [0,1], [1,1]: cosines 0, 1/√2, 1/√2 -> mean √2/3 -> ILD 1 - √2/3.
    assert m.score_one({}, docs([1, 0], [0, 1], [1, 1])).value == pytest.approx(1 - math.sqrt(2) / 3)
    top2 = evalcore.get_metric("system/intra_list_diversity", k=2)
    assert top2.score_one({}, docs([1, 0], [0, 1], [1, 1])).value == pytest.approx(1.0)


def test_intra_list_diversity_skips_and_errors() -> None:
    m = evalcore.get_metric("system/intra_list_diversity")
    no_embedding = {"retrieved": [{"doc_id": "a", "metadata": {}}, {"doc_id": "b"}]}
    skipped = m.score_one({}, no_embedding)
    assert skipped.status is Status.SKIPPED and "embedding" in skipped.reason
    assert m.score_one({}, docs([1, 0])).status is Status.SKIPPED  # one document
    assert m.score_one({}, {}).status is Status.SKIPPED
    assert m.score_one({}, docs([0, 0], [1, 0])).status is Status.ERROR  # zero vector
    assert m.score_one({}, docs([1, 0], [1, 0, 0])).status is Status.ERROR  # unequal lengths
    assert m.score_one({}, {"retrieved": "doc"}).status is Status.ERROR
    assert m.score_one({}, docs("abc", [1, 0])).status is Status.ERROR
