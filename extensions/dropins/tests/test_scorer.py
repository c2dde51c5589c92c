"""The Scorer as the dsrs metrics document gives it: rollouts aggregated before the gate and the
final score, default metric sets, tier overrides."""

from __future__ import annotations

import itertools

import evalcore
import pytest
from evalcore import EvalcoreError, MetricSpec, SampleMetric, Score


def build(cls, name, *, tier="proxy", cost_msats=0):
    return cls(MetricSpec(name=name, namespace="t", implementation="tests:x", summary=name, tier=tier,
                          cost_msats=cost_msats))


class Proxy(SampleMetric):
    def score(self, example, prediction):
        return prediction["proxy"]


class Truth(SampleMetric):
    def score(self, example, prediction):
        return Score(prediction["truth"], feedback=f"truth {prediction['truth']}")


def rollouts(*predictions):
    cycle = itertools.cycle(predictions)
    return lambda example: next(cycle)


def test_median_of_three_rollouts_is_the_final_score():
    # the document's example: threshold 0.5, 3 rollouts, median; truth 0.1 / 0.9 / 0.5 -> 0.5
    scorer = evalcore.Scorer([build(Proxy, "p"), build(Truth, "t", tier="truth")], threshold=0.5, rollouts=3,
                             aggregate_by="median")
    program = rollouts({"proxy": 0.6, "truth": 0.1}, {"proxy": 0.7, "truth": 0.9}, {"proxy": 0.8, "truth": 0.5})
    result = scorer.score({"id": "x"}, program=program)
    assert result.score == 0.5
    assert result.details["scores"]["t/t"]["value"] == 0.5
    assert [r["value"] for r in result.details["scores"]["t/t"]["rollouts"]] == [0.1, 0.9, 0.5]
    assert result.details["gate"] == {"proxy_score": 0.7, "passed": True, "threshold": 0.5, "final": 0.5,
                                      "rollouts": 3, "aggregate": "median"}


def test_gate_looks_at_the_aggregated_proxy_score():
    # first rollout alone would pass (0.9), the median (0.2) does not: no truth metric runs
    calls = []

    class Counted(Truth):
        def score(self, example, prediction):
            calls.append(prediction)
            return super().score(example, prediction)

    scorer = evalcore.Scorer([build(Proxy, "p"), build(Counted, "t", tier="truth")], threshold=0.5, rollouts=3,
                             aggregate_by="median")
    program = rollouts({"proxy": 0.9, "truth": 1.0}, {"proxy": 0.2, "truth": 1.0}, {"proxy": 0.1, "truth": 1.0})
    result = scorer.score({}, program=program)
    assert calls == [] and result.score == pytest.approx(0.2) and result.details["gate"]["passed"] is False
    assert "below the threshold" in result.details["scores"]["t/t"]["reason"]


def test_tier_override_moves_a_metric_behind_the_gate():
    scorer = evalcore.Scorer([build(Proxy, "p"), build(Proxy, "q")], threshold=0.5, tiers={"t/q": "truth"})
    low = scorer.score({}, {"proxy": 0.3})
    assert low.details["scores"]["t/q"]["status"] == "skipped" and low.score == 0.3
    with pytest.raises(EvalcoreError, match="'tiers'.*t/nope"):
        evalcore.Scorer([build(Proxy, "p")], tiers={"t/nope": "truth"})
    with pytest.raises(EvalcoreError, match="use 'proxy' or 'truth'"):
        evalcore.Scorer([build(Proxy, "p")], tiers={"t/p": "gold"})


def test_empty_scorer_points_to_the_default_sets():
    with pytest.raises(EvalcoreError, match=r"with_default_proxy_metrics\(\).*with_default_truth_metrics\(\)"):
        evalcore.Scorer([])


def test_default_metric_sets(tmp_path, monkeypatch):
    pytest.importorskip("evalcore_checks")
    proxy = evalcore.Scorer.with_default_proxy_metrics(threshold=0.5)
    assert [m.spec.key for m in proxy.metrics] == ["checks/format", "checks/length", "checks/syntax"]
    assert proxy.threshold == 0.5
    ok = proxy.score({}, {"response": "fn main() { println!(\"hi\"); }"})
    assert ok.score == 1.0 and ok.details["gate"]["passed"] is True
    pytest.importorskip("evalcore_judge")
    from evalcore.testing import ScriptedServer

    with ScriptedServer() as server:  # answers {"score": 1}
        monkeypatch.setenv("EVALCORE_JUDGE_BASE_URL", server.base_url)
        monkeypatch.setenv("EVALCORE_JUDGE_MODEL", "m")
        monkeypatch.setenv("EVALCORE_CACHE_DIR", str(tmp_path))
        both = proxy.with_default_truth_metrics(tiers={"checks/diff": "truth"})
        assert [m.spec.key for m in both.metrics][3:] == ["judge/llm_judge", "checks/diff"]
        result = both.score({"query": "Say hi", "reference_answer": "hi there"}, {"response": "hi  there"})
    # gate open (proxy 1.0); truth: judge 1.0, diff (whitespace-normalised) 1.0
    assert result.score == 1.0 and result.details["scores"]["checks/diff"]["value"] == 1.0
    assert len(server.requests) == 1


def test_scorer_gates_and_shares_its_budget_across_calls():
    calls = []

    class Judge(SampleMetric):
        def score(self, example, prediction):
            calls.append(example["id"])
            return Score(0.8, feedback="well grounded", cost_msats=400)

    scorer = evalcore.Scorer([build(Proxy, "v"), build(Judge, "judge", tier="truth", cost_msats=400)],
                             threshold=0.5, budget_msats=1000)
    low = scorer.score({"id": "a"}, {"proxy": 0.2})
    assert (low.score, calls) == (0.2, [])  # proxy below threshold: the proxy score, no truth call
    high = scorer.score({"id": "b"}, {"proxy": 0.9})
    assert high.score == 0.8 and high.feedback == "t/judge: well grounded"
    scorer.score({"id": "c"}, {"proxy": 0.9})
    third = scorer.score({"id": "d"}, {"proxy": 0.9})  # 800 spent: another 400 would exceed 1000
    assert calls == ["b", "c"] and third.details["scores"]["t/judge"]["reason"].startswith("budget")
    assert scorer.budget.spent == 800
    objectives = scorer.multi_objective({"id": "e"}, {"proxy": 0.1})
    assert [o.details["metric"] for o in objectives] == ["t/v", "t/judge"]
