"""evalcore.engine: the benchmark engine's registry API and built-ins, with the document's examples."""

from __future__ import annotations

import warnings

import pytest
from evalcore import DeprecatedParameterWarning, EvalcoreError, engine
from evalcore_dropins.engine import KNOB_PARAMS

RUN = {"duration_ms": 1234, "status": "ok",
       "output": {"summary": "Q3 revenue grew while costs fell", "policy_violations": 0,
                  "accepted": True, "revenue": 5, "data": {"summary": "Hello World"}},
       "cost": 2.0}


def builtin(key, run=RUN, **context):
    pytest.importorskip("evalcore_checks")
    pytest.importorskip("evalcore_system")
    pytest.importorskip("evalcore_robustness")
    return engine.get_metric(key)(run, context)


def test_registry_api():
    def echo(run, context):
        return {"score": 1.0}

    engine.register_metric("echo_score", echo)
    assert engine.get_metric("echo_score") is echo
    assert "echo_score" in engine.list_metrics() and "technical_performance" in engine.metric_keys()
    assert engine.list_metrics() == sorted(engine.list_metrics())
    with pytest.raises(EvalcoreError, match="unknown engine metric 'nope'"):
        engine.get_metric("nope")


def test_technical_performance_honours_latency_threshold_ms():
    assert builtin("technical_performance")["latency_ms"] == 1234
    assert builtin("technical_performance")["fast_enough"] is True  # default 2000 ms
    assert builtin("technical_performance", latency_threshold_ms=1000)["fast_enough"] is False
    assert builtin("technical_performance", params={"latency_threshold_ms": 1000})["fast_enough"] is False


def test_accuracy_score_document_example():
    out = builtin("accuracy_score", expected_output="hello world", mode="exact", field_path="data.summary",
                  case_insensitive=True)
    assert out["accuracy"] == 1.0 and out["mode"] == "exact"


def test_engine_knobs_map_onto_evalcore_parameters_without_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecatedParameterWarning)
        out = builtin("accuracy_score", expected_output="HELLO WORLD", field_path="data.summary",
                      case_insensitive=True, expected_path=None)
        assert out["accuracy"] == 1.0
        timed = {**RUN, "timings": {"queue": 3000}}
        assert builtin("technical_performance", run=timed, timing_key="queue")["fast_enough"] is False
        scored = {**RUN, "metrics": {"q": 0.5}, "output": {**RUN["output"], "spend": 0.25}}
        out = builtin("cost_efficiency", run=scored, score_field_path="metrics.q", cost_field_path="output.spend")
        assert out["efficiency"] == 2.0
        out = builtin("keyword_coverage", keywords=["q3", "REVENUE"], case_insensitive=False)
        assert out["coverage"] == 0.0
    assert KNOB_PARAMS["field_path"] == "field" and KNOB_PARAMS["case_insensitive"] == "ignore_case"


def test_keyword_coverage_reads_output_summary():
    out = builtin("keyword_coverage", keywords=["Q3", "revenue"], unique_match=True)
    assert (out["keyword_hits"], out["keyword_total"], out["coverage"]) == (2, 2, 1.0)


@pytest.mark.parametrize(("violations", "count", "compliant"), [(0, 0, True), (["pii"], 1, False),
                                                                 ({"count": 2}, 2, False)])
def test_policy_compliance_reads_output_policy_violations(violations, count, compliant):
    run = {**RUN, "output": {**RUN["output"], "policy_violations": violations}}
    out = builtin("policy_compliance", run=run)
    assert out["policy_violations"] == count and out["compliant"] is compliant


def test_cost_efficiency_supported_and_not():
    out = builtin("cost_efficiency", score_value=4.0)
    assert (out["supported"], out["efficiency"], out["reason"]) == (True, 2.0, None)
    bare = {k: v for k, v in RUN.items() if k != "cost"}
    out = builtin("cost_efficiency", run=bare, score_value=4.0)
    assert out["supported"] is False and out["efficiency"] is None and out["reason"] == "missing_usage"


def test_completeness_document_example():
    out = builtin("completeness", required_fields=["accepted", "revenue", "fulfilled_rate"], allow_nested=False)
    assert (out["present"], out["required"], round(out["completeness"], 4)) == (2, 3, 0.6667)


def test_robustness_score():
    out = builtin("robustness", expected_signal="revenue grew", mode="normalized_overlap")
    assert out["robustness_score"] == 1.0


def test_partial_results_reach_custom_scriptable_and_errors_are_captured():
    builtin("technical_performance")  # skips unless the plugins are installed

    def broken(run, context):
        raise ValueError("no data")

    engine.register_metric("broken", broken)
    context = {"expected_output": "hello world", "field_path": "data.summary", "case_insensitive": True,
               "expression": "duration_ms < 1500 and accuracy_score >= 0.8"}
    results = engine.apply_metrics(RUN, context, ["broken", "accuracy_score", "custom_scriptable"])
    assert results["broken"] == {"error": "ValueError: no data"}
    assert results["accuracy_score"]["accuracy"] == 1.0
    assert results["custom_scriptable"]["result"] is True
    slow = engine.apply_metrics({**RUN, "duration_ms": 2000}, context, ["accuracy_score", "custom_scriptable"])
    assert slow["custom_scriptable"]["result"] is False


def test_aggregation_helpers():
    runs = [{"metrics": {"m": {"accuracy": 1.0, "ok": True}}}, {"metrics": {"m": {"accuracy": 0.5, "ok": False}}},
            {"metrics": {"m": {"error": "ValueError: x"}}}, {"metrics": {}}]
    out = engine.aggregate_metric_values(runs, "m")
    assert (out["runs"], out["present"], out["errors"], out["missing"]) == (4, 3, 1, 1)
    assert out["fields"]["accuracy"] == {"mean": 0.75, "min": 0.5, "max": 1.0, "count": 2}
    assert out["fields"]["ok"]["mean"] == 0.5
    assert engine.aggregate_all(runs, ["m"]) == {"m": out}
