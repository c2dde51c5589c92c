"""Listing the adjutant specs imports no implementation; every spec is filled in."""

import subprocess
import sys

import evalcore


def test_listing_imports_no_implementation():
    code = ("import sys, evalcore; evalcore.list_metrics('adjutant');"
            "bad = [m for m in sys.modules if m.startswith(('numpy', 'evalcore_adjutant.'))"
            " and m != 'evalcore_adjutant._register']; print(bad); sys.exit(bool(bad))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_specs_complete():
    specs = {i.spec.name: i.spec for i in evalcore.list_metrics("adjutant")}
    assert len(specs) == 9
    for spec in specs.values():
        assert spec.summary and "Seed" in spec.description and spec.inputs and spec.target and spec.family
        assert spec.tier.value == "proxy" and spec.cost_msats == 0
    assert {n for n, s in specs.items() if s.granularity.value == "corpus"} == {
        "decision_accuracy", "rolling_accuracy", "shadow_comparison", "optimization_trigger"}
