"""The outcome specs list without importing implementations, and are complete."""

import subprocess
import sys

import evalcore

IDS = {"outcome_coupled", "step_score", "was_repeated", "tool_params_schema", "sandbox", "test_pass",
       "verification_delta"}


def test_listing_imports_nothing_heavy():
    code = (
        "import sys, evalcore; evalcore.list_metrics('outcome');"
        "bad = [m for m in sys.modules if m.startswith(('jsonschema', 'numpy', 'evalcore_outcome.'))"
        " and m != 'evalcore_outcome._register'];"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_specs_complete():
    infos = {i.spec.name: i for i in evalcore.list_metrics("outcome")}
    assert set(infos) == IDS
    for info in infos.values():
        spec = info.spec
        assert spec.summary and len(spec.description) > 80 and "Seed" in spec.description
        assert spec.family and spec.target is not None and spec.inputs and spec.version
        truth = spec.name in {"sandbox", "test_pass", "verification_delta"}
        assert (spec.tier.value == "truth") == truth
        assert (spec.cost_msats == 500) == truth
        assert spec.deterministic != truth
