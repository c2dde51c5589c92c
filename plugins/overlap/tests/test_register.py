"""The plugin's registration: complete specs, and listing imports nothing heavy."""

from __future__ import annotations

import subprocess
import sys

import evalcore
import pytest

HEAVY = ("numpy", "rouge_score", "sacrebleu", "nltk", "regex", "dspy", "evalcore_overlap.qa")
METRICS = [info.spec for info in evalcore.list_metrics() if info.spec.namespace == "overlap"]


def test_listing_imports_no_implementation_or_heavy_library() -> None:
    code = (
        "import sys, evalcore\n"
        "keys = [m.spec.key for m in evalcore.list_metrics()]\n"
        "assert 'overlap/rouge' in keys, keys\n"
        f"print([m for m in {HEAVY!r} if m in sys.modules])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_all_metrics_are_listed() -> None:
    assert {spec.name for spec in METRICS} == {
        "exact_match", "token_f1", "hotpot_f1", "answer_exact_match", "answer_passage_match",
        "rouge", "bleu", "sentence_bleu", "chrf", "sentence_chrf", "evidence_overlap_faithfulness",
    }


@pytest.mark.parametrize("spec", METRICS, ids=lambda s: s.name)
def test_specs_are_complete(spec: evalcore.MetricSpec) -> None:
    assert spec.summary and len(spec.description) > 150 and spec.family and spec.target
    assert spec.tier.value == "proxy" and spec.direction.value == "higher" and spec.deterministic
    assert None not in spec.value_range and spec.inputs and spec.version
    assert all(p.description for p in spec.params)
    assert evalcore.describe(spec.key).spec == spec
