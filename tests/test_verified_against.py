"""Each metric states the reference its tests check it against and the tolerance (``describe --json``)."""

import importlib
import json

import evalcore
import pytest
from evalcore.plugin import MetricSpec
from evalcore.testing import run_evalcore

PLUGINS = ["retrieval", "overlap", "judge", "agent"]


def test_verified_sets_both_fields_on_a_validated_copy():
    spec = MetricSpec(name="m", implementation="pkg.mod:M", summary="s")
    assert (spec.verified_against, spec.tolerance) == (None, None)
    checked = spec.verified("sacrebleu corpus_bleu", 0.0)
    assert (checked.verified_against, checked.tolerance) == ("sacrebleu corpus_bleu", 0.0)
    assert checked.evolve(verified_against=None, tolerance=None) == spec
    with pytest.raises(ValueError, match="tolerance"):
        spec.verified("x", -1e-9)


@pytest.mark.parametrize("plugin", PLUGINS)
def test_every_verified_entry_names_a_metric_of_its_plugin(plugin):
    table = importlib.import_module(f"evalcore_{plugin}._register").VERIFIED
    names = {info.spec.name: info.spec for info in evalcore.list_metrics() if info.spec.namespace == plugin}
    assert set(table) <= set(names)
    for name, (against, tolerance) in table.items():
        assert (names[name].verified_against, names[name].tolerance) == (against, tolerance)


def test_describe_json_shows_the_reference_and_tolerance():
    expected = {
        "retrieval/map": ("pytrec_eval", 1e-9),
        "overlap/bleu": ("sacrebleu corpus_bleu", 0.0),
        "overlap/rouge(variant='L')": ("rouge-score", 0.0),
        "semantic/bertscore": ("bert-score", 1e-6),
        "judge/claim_faithfulness": ("ragas Faithfulness", 0.0),
        "agent/trajectory_match": ("agentevals", 0.0),
    }
    for metric_id, (against, tolerance) in expected.items():
        data = json.loads(run_evalcore("describe", metric_id, "--json").stdout)
        assert against in data["verified_against"] and data["tolerance"] == tolerance, metric_id
    unverified = json.loads(run_evalcore("describe", "overlap/evidence_overlap_faithfulness", "--json").stdout)
    assert (unverified["verified_against"], unverified["tolerance"]) == (None, None)
    text = run_evalcore("describe", "overlap/bleu").stdout
    assert "verified:       equals sacrebleu corpus_bleu" in text and "(tolerance 0)" in text
