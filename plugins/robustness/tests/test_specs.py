"""Listing the robustness specs imports no implementation; every spec is filled in."""


import evalcore
from evalcore.testing import heavy_modules_after_listing


def test_listing_imports_no_implementation():
    assert heavy_modules_after_listing("evalcore_robustness") == []


def test_specs_complete():
    specs = {i.spec.name: i.spec for i in evalcore.list_metrics("robustness")}
    assert set(specs) == {"noise_robustness", "negative_rejection", "counterfactual_consistency", "robustness"}
    for spec in specs.values():
        assert spec.summary and spec.inputs and spec.target and spec.family
        assert any(s in spec.description for s in ("Auepora", "benchmark engine"))
    assert specs["noise_robustness"].granularity.value == "corpus"
