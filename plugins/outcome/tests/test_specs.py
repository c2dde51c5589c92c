"""The outcome specs list without importing implementations, and are complete."""

import evalcore
from evalcore.testing import heavy_modules_after_listing

# A description names where its definition comes from (the specification documents).
SOURCES = ("Seed", "dsrs", "DSPy", "Adjutant", "benchmark engine")

IDS = {"outcome_coupled", "step_score", "was_repeated", "tool_params_schema", "sandbox", "test_pass",
       "verification_delta"}


def test_listing_imports_nothing_heavy():
    assert heavy_modules_after_listing("evalcore_outcome", ("jsonschema", "numpy")) == []


def test_specs_complete():
    infos = {i.spec.name: i for i in evalcore.list_metrics("outcome")}
    assert set(infos) == IDS
    for info in infos.values():
        spec = info.spec
        assert spec.summary and len(spec.description) > 80 and any(source in spec.description for source in SOURCES)
        assert spec.family and spec.target is not None and spec.inputs and spec.version
        truth = spec.name in {"sandbox", "test_pass", "verification_delta"}
        assert (spec.tier.value == "truth") == truth
        assert (spec.cost_msats == 500) == truth
        assert spec.deterministic != truth
