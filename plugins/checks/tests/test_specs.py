"""Every spec is complete and listing does not import the implementations or jsonschema."""

from __future__ import annotations

import evalcore
from evalcore.testing import heavy_modules_after_listing

IDS = {
    "format", "keyword", "keyword_coverage", "length", "syntax", "json_schema", "diff",
    "accuracy_score", "completeness", "policy_compliance", "custom_scriptable",
}

# A description names where its definition comes from (the specification documents).
SOURCES = ("Seed", "dsrs", "DSPy", "Adjutant", "benchmark engine")


def test_all_metrics_listed_with_complete_specs() -> None:
    infos = {i.spec.name: i for i in evalcore.list_metrics() if i.spec.namespace == "checks"}
    assert set(infos) == IDS
    for info in infos.values():
        spec = info.spec
        assert spec.summary and len(spec.description) > 150, spec.name
        assert any(source in spec.description for source in SOURCES), spec.name
        assert spec.tier.value == ("truth" if spec.name == "diff" else "proxy"), spec.name  # dsrs: Diff is truth
        assert spec.cost_msats == 0 and spec.deterministic
        assert spec.family and spec.target is not None and spec.inputs and spec.version
        assert spec.granularity.value == "sample"
        for param in spec.params:
            assert param.type != "any" or param.name in {"schema", "expected_output"}
        assert info.origin.distribution == "evalcore-checks"


def test_listing_imports_nothing_heavy() -> None:
    assert heavy_modules_after_listing("evalcore_checks", ("jsonschema", "numpy")) == []
