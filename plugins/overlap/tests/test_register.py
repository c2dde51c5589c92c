"""The plugin's registration: complete specs, and listing imports nothing heavy."""

from __future__ import annotations

import evalcore
import pytest
from evalcore.testing import heavy_modules_after_listing

HEAVY = ("numpy", "rouge_score", "sacrebleu", "nltk", "regex", "dspy")
METRICS = [info.spec for info in evalcore.list_metrics() if info.spec.namespace == "overlap"]


def test_listing_imports_no_implementation_or_heavy_library() -> None:
    assert "overlap/rouge" in evalcore.metric_keys()
    assert heavy_modules_after_listing("evalcore_overlap", HEAVY) == []


def test_all_metrics_are_listed() -> None:
    assert {spec.name for spec in METRICS} == {
        "exact_match", "token_f1", "hotpot_f1", "answer_exact_match", "answer_passage_match",
        "rouge", "bleu", "sentence_bleu", "chrf", "sentence_chrf", "evidence_overlap_faithfulness",
        "ter", "sentence_ter", "string_exact_match", "squad_v2",
    }


@pytest.mark.parametrize("spec", METRICS, ids=lambda s: s.name)
def test_specs_are_complete(spec: evalcore.MetricSpec) -> None:
    assert spec.summary and len(spec.description) > 150 and spec.family and spec.target
    assert spec.tier.value == "proxy" and spec.deterministic
    # TER counts edits: lower is better and it has no upper bound; everything else is a score
    assert spec.direction.value == ("lower" if spec.family == "ter" else "higher")
    assert spec.value_range[0] == 0.0 and (spec.value_range[1] is None) == (spec.family == "ter")
    assert spec.inputs and spec.version
    assert all(p.description for p in spec.params)
    assert evalcore.describe(spec.key).spec == spec
