"""Metric definitions as contracts: compare and gate refuse runs that computed a metric differently."""

import json

import evalcore
import pytest
from evalcore import InputError
from evalcore.testing import run_evalcore, write_journal
from evalcore_stats.definitions import RUN_SETTINGS

METRIC = "toy/score"
VALUES = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]


def journal(tmp_path, name, *, version="1", params=None):
    entry = {"granularity": "sample", "direction": "higher", "metric_version": version}
    if params is not None:
        entry["params"] = params
    rows = {f"r{i}": {METRIC: v} for i, v in enumerate(VALUES)}
    return str(write_journal(tmp_path / f"{name}.jsonl", rows, metrics={METRIC: entry}))


def test_a_different_non_identity_parameter_is_refused_naming_it_and_both_runs(tmp_path):
    a = journal(tmp_path, "a", params={"model": "judge-a", "k": 3})
    b = journal(tmp_path, "b", params={"model": "judge-b", "k": 3})
    with pytest.raises(InputError) as refused:
        evalcore.compare(a, b, tests=["fisher"])
    message = str(refused.value)
    assert 'toy/score: model="judge-a" in a, model="judge-b" in b' in message
    assert "--allow-version-mismatch" in message and "k=" not in message
    allowed = evalcore.compare(a, b, tests=["fisher"], allow_version_mismatch=True)
    assert allowed.entries[0].difference == pytest.approx(0.0)
    assert allowed.options["allow_version_mismatch"] is True
    assert any("model=" in note for note in allowed.notes)


def test_run_settings_and_equal_parameters_are_no_difference(tmp_path):
    assert {"timeout_s", "cache_dir", "concurrency"} <= RUN_SETTINGS
    a = journal(tmp_path, "a", params={"model": "m", "timeout_s": 10, "cache_dir": "/x", "weights": [1, 2]})
    b = journal(tmp_path, "b", params={"model": "m", "timeout_s": 99, "cache_dir": "/y", "weights": [1, 2]})
    result = evalcore.compare(a, b, tests=["fisher"])
    assert not any("computed differently" in note or "not recorded" in note for note in result.notes)


def test_runs_without_recorded_parameters_are_compared_with_a_note(tmp_path):
    a = journal(tmp_path, "a", params={"model": "m"})
    b = journal(tmp_path, "b")  # an older journal: no "params" in its header
    result = evalcore.compare(a, b, tests=["fisher"])
    assert f"{METRIC}: parameters not recorded by b (written by an older evalcore?); not checked" in result.notes


def test_gate_reuses_the_check_for_parameters(tmp_path):
    base = journal(tmp_path, "base", params={"model": "m1"})
    new = journal(tmp_path, "new", params={"model": "m2"})
    with pytest.raises(InputError, match='model="m1" in base, model="m2" in new'):
        evalcore.gate(new, baseline=base, no_worse=[METRIC])


def test_cli_refuses_runs_evaluated_with_another_non_identity_parameter(tmp_path):
    data = tmp_path / "data.jsonl"
    rows = [{"id": f"q{i}", "example": {"reference_answer": "paris france"},
             "prediction": {"response": text}} for i, text in enumerate(["paris", "france", "rome", "paris france"])]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    run_evalcore("evaluate", str(data), "-m", "overlap/token_f1", "-o", str(a))
    run_evalcore("evaluate", str(data), "-m", "overlap/token_f1(empty_response='skip')", "-o", str(b))
    refused = run_evalcore("compare", str(a), str(b), "--test", "fisher", check=False)
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr.count("\n") == 1 and refused.stderr.startswith("error: ")
    assert 'overlap/token_f1: empty_response="score" in a, empty_response="skip" in b' in refused.stderr
    allowed = run_evalcore("compare", str(a), str(b), "--test", "fisher", "--allow-version-mismatch", "--json")
    comparison = json.loads(allowed.stdout)
    assert comparison["comparisons"][0]["difference"] == 0.0
    assert any("empty_response" in note for note in comparison["notes"])
    same = run_evalcore("compare", str(a), str(a), "--test", "fisher", "--json")
    assert not any("computed differently" in n or "not recorded" in n for n in json.loads(same.stdout)["notes"])


def test_in_memory_results_carry_their_parameters(tmp_path):
    records = [{"id": f"q{i}", "example": {"reference_answer": "a b"}, "prediction": {"response": r}}
               for i, r in enumerate(["a", "a b", "c"])]
    plain = evalcore.evaluate(records, ["overlap/token_f1"], seed=0)
    skipping = evalcore.evaluate(records, ["overlap/token_f1(empty_response='skip')"], seed=0)
    with pytest.raises(InputError, match="empty_response"):
        evalcore.compare(plain, skipping, tests=["fisher"])
    assert not any("not recorded" in n for n in evalcore.compare(plain, plain, tests=["fisher"]).notes)
