"""Listing the adjutant specs imports no implementation; every spec is filled in."""


import evalcore
from evalcore.testing import heavy_modules_after_listing

# A description names where its definition comes from (the specification documents).
SOURCES = ("Seed", "dsrs", "DSPy", "Adjutant")


def test_listing_imports_no_implementation():
    assert heavy_modules_after_listing("evalcore_adjutant") == []


def test_specs_complete():
    specs = {i.spec.name: i.spec for i in evalcore.list_metrics("adjutant")}
    assert len(specs) == 12
    for spec in specs.values():
        assert spec.summary and any(source in spec.description for source in SOURCES), spec.name
        assert spec.inputs and spec.target and spec.family
        assert spec.tier.value == "proxy" and spec.cost_msats == 0
    assert {n for n, s in specs.items() if s.granularity.value == "corpus"} == {
        "decision_accuracy", "rolling_accuracy", "shadow_comparison", "optimization_trigger", "gate_accuracy",
        "fallback_rate", "confidence_calibration"}
