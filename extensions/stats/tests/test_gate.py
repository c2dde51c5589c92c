"""Quality gates: ``evalcore gate`` and ``evalcore.gate`` (the assertions of ``evalcore.testing`` are
evalcore-pytest's, tested there)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import evalcore
import numpy as np
import pytest
from click.testing import CliRunner
from evalcore._cli.main import main
from evalcore.testing import write_journal

METRIC = "toy/score"
LATENCY = "toy/latency"
HEADER = {METRIC: {"granularity": "sample", "direction": "higher", "metric_version": "1"},
          LATENCY: {"granularity": "sample", "direction": "lower", "metric_version": "1"}}
RNG = np.random.default_rng(7)
BASE = RNG.uniform(0.4, 0.9, 40)
NOISY = BASE + RNG.normal(0.0, 0.05, 40) - 0.004  # a tiny drop, well inside the noise
DROPPED = BASE - 0.15 + RNG.normal(0.0, 0.02, 40)  # a clear drop on nearly every record
LATENCIES = RNG.uniform(500.0, 700.0, 40)


def journal(tmp_path, name, values, *, version="1", latencies=LATENCIES):
    rows = {f"r{i}": {METRIC: float(v), LATENCY: float(t)} for i, (v, t) in enumerate(zip(values, latencies))}
    header = {m: {**h, "metric_version": version} for m, h in HEADER.items()}
    return str(write_journal(tmp_path / f"{name}.jsonl", rows, metrics=header))


def report(tmp_path, name, values, **kwargs):
    """A JSON report as ``evaluate -o`` writes it: aggregates with intervals and its journal's name."""
    samples = journal(tmp_path, name, values, **kwargs)
    metrics = {}
    for metric, data in ((METRIC, values), (LATENCY, kwargs.get("latencies", LATENCIES))):
        data = np.asarray(data, dtype=float)
        metrics[metric] = {**HEADER[metric], "id": metric, "value": float(data.mean()), "n": len(data),
                           "ci": [float(np.quantile(data, 0.1)), float(np.quantile(data, 0.9))]}
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps({"metrics": metrics, "samples_file": f"{name}.jsonl"}))
    assert samples.endswith(f"{name}.jsonl")
    return str(path)


def gate_cli(*args):
    return CliRunner().invoke(main, ["gate", *args])


# -- the command ----------------------------------------------------------------------------


def test_bounds_pass_and_fail_with_one_line_per_rule(tmp_path):
    result = report(tmp_path, "new", BASE)
    mean, latency = float(BASE.mean()), float(LATENCIES.mean())
    ok = gate_cli(result, "--min", f"{METRIC}={mean - 0.01:.4f}", "--max", f"{LATENCY}=800")
    assert ok.exit_code == 0, ok.output
    lines = ok.stdout.splitlines()
    assert lines[0].startswith(f"PASS  {METRIC} = {mean:.4f} [") and lines[0].endswith(f">= {mean - 0.01:.4f}")
    assert lines[1].startswith(f"PASS  {LATENCY} = {latency:.4f} [") and lines[1].endswith("<= 800")
    assert lines[2] == "gate passed: 2 of 2 rules hold"
    failed = gate_cli(result, "--min", f"{METRIC}=0.95", "--max", f"{LATENCY}=600")
    assert failed.exit_code == 1
    assert [line[:4] for line in failed.stdout.splitlines()[:2]] == ["FAIL", "FAIL"]
    assert "below the minimum" in failed.stdout and "above the maximum" in failed.stdout
    assert failed.stdout.splitlines()[2] == "gate failed: 0 of 2 rules hold"


def test_no_worse_passes_a_noisy_drop_and_fails_a_clear_one(tmp_path):
    base = journal(tmp_path, "base", BASE)
    noisy = gate_cli(journal(tmp_path, "noisy", NOISY), "--baseline", base, "--no-worse", METRIC)
    assert NOISY.mean() < BASE.mean()
    assert noisy.exit_code == 0, noisy.output
    assert noisy.stdout.startswith(f"PASS  {METRIC} = {NOISY.mean():.4f}")
    assert "no worse than base" in noisy.stdout and "no significant difference" in noisy.stdout
    clear = gate_cli(journal(tmp_path, "dropped", DROPPED), "--baseline", base, "--no-worse", METRIC,
                     "--alpha", "0.01")
    assert clear.exit_code == 1, clear.output
    assert clear.stdout.startswith(f"FAIL  {METRIC} = {DROPPED.mean():.4f}")
    assert "significantly worse (alpha 0.01)" in clear.stdout and "p=" in clear.stdout


def test_no_worse_follows_the_metrics_direction(tmp_path):
    base = journal(tmp_path, "base", BASE)
    slower = journal(tmp_path, "slower", BASE, latencies=LATENCIES + 150.0)
    faster = journal(tmp_path, "faster", BASE, latencies=LATENCIES - 150.0)
    assert gate_cli(slower, "--baseline", base, "--no-worse", LATENCY).exit_code == 1
    better = gate_cli(faster, "--baseline", base, "--no-worse", LATENCY)
    assert better.exit_code == 0 and "significantly better" in better.stdout


def test_runs_with_the_same_file_name_and_results_in_memory(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    base, new = journal(tmp_path / "a", "run", BASE), journal(tmp_path / "b", "run", DROPPED)
    outcome = evalcore.gate(new, baseline=base, no_worse=[METRIC])
    assert not outcome.passed and "no worse than run = " in outcome.outcomes[0].detail
    result = evalcore.evaluate([{"id": "a", "example": {"reference_answer": "x y"}, "prediction": {"response": "x"}}],
                               ["overlap/token_f1"], seed=0)
    assert evalcore.gate(result, at_least={"overlap/token_f1": 0.6}).run == "result"


def test_refuses_another_metric_version_and_a_metric_the_run_lacks(tmp_path):
    base = journal(tmp_path, "base", BASE, version="1")
    new = journal(tmp_path, "new", NOISY, version="2")
    other = gate_cli(new, "--baseline", base, "--no-worse", METRIC)
    assert other.exit_code == 2 and other.stdout == ""
    assert other.stderr.count("\n") == 1 and other.stderr.startswith("error: ")
    assert "version 1" in other.stderr and "version 2" in other.stderr
    missing = gate_cli(new, "--min", "toy/absent=0.5")
    assert missing.exit_code == 2 and missing.stderr.count("\n") == 1
    assert missing.stderr.startswith("error: ") and "'toy/absent'" in missing.stderr
    missing_base = gate_cli(base, "--baseline", str(write_journal(tmp_path / "b.jsonl", {"r0": {LATENCY: 1.0}})),
                            "--no-worse", METRIC)
    assert missing_base.exit_code == 2 and "the baseline" in missing_base.stderr


@pytest.mark.parametrize("args", [[], ["--no-worse", METRIC], ["--min", "toy/score"], ["--max", f"{METRIC}=abc"]])
def test_usage_errors_exit_2_with_one_error_line(tmp_path, args):
    outcome = gate_cli(journal(tmp_path, "new", BASE), *args)
    assert outcome.exit_code == 2
    assert outcome.stderr.startswith("error: ") and outcome.stderr.count("\n") == 1


def test_markdown_summary_is_appended_and_printable(tmp_path):
    base, new = journal(tmp_path, "base", BASE), journal(tmp_path, "dropped", DROPPED)
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step output\n")
    args = [new, "--min", f"{METRIC}=0.1", "--baseline", base, "--no-worse", METRIC]
    outcome = gate_cli(*args, "--markdown", str(summary))
    assert outcome.exit_code == 1
    text = summary.read_text()
    assert text.startswith("earlier step output\n### ❌ evalcore gate failed: 1 of 2 rules hold")
    table = [line for line in text.splitlines() if line.startswith("|")]
    assert table[0] == "| | metric | value | interval | rule |" and len(table) == 4
    assert table[2].startswith(f"| ✅ pass | `{METRIC}` |") and table[3].startswith(f"| ❌ fail | `{METRIC}` |")
    assert "worst records:" in text
    printed = gate_cli(*args, "--markdown", "-")
    assert printed.stdout == text.removeprefix("earlier step output\n")
    assert printed.stderr.startswith("PASS")  # the lines go to standard error then


def test_junit_xml_has_one_testcase_per_rule_and_the_failures(tmp_path):
    base, new = journal(tmp_path, "base", BASE), journal(tmp_path, "dropped", DROPPED)
    path = tmp_path / "gate.xml"
    outcome = gate_cli(new, "--min", f"{METRIC}=0.1", "--max", f"{LATENCY}=1", "--baseline", base,
                       "--no-worse", METRIC, "--junit", str(path))
    assert outcome.exit_code == 1
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites" and root.get("tests") == "3" and root.get("failures") == "2"
    [suite] = root.findall("testsuite")
    cases = suite.findall("testcase")
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("3", "2", "0")
    assert [c.get("name") for c in cases] == [f"{METRIC} >= 0.1", f"{LATENCY} <= 1",
                                               f"{METRIC} no worse than the baseline"]
    failures = [c.find("failure") for c in cases]
    assert failures[0] is None
    assert failures[1].get("message").startswith(f"FAIL  {LATENCY}") and "above the maximum" in failures[1].text
    assert "significantly worse" in failures[2].get("message") and "worst records: r" in failures[2].text


# -- Python ---------------------------------------------------------------------------------


def test_gate_in_python(tmp_path):
    base, new = journal(tmp_path, "base", BASE), journal(tmp_path, "noisy", NOISY)
    outcome = evalcore.gate(new, at_least={METRIC: 0.5}, at_most={LATENCY: 800}, baseline=base, no_worse=[METRIC])
    assert outcome.passed and bool(outcome)
    assert [o.rule.kind for o in outcome.outcomes] == ["at_least", "at_most", "no_worse"]
    data = outcome.to_dict()
    assert data["passed"] and data["rules"][2]["comparison"]["winner"] is None
    assert outcome.outcomes[0].value == pytest.approx(NOISY.mean())  # a journal alone: the mean of its rows
    with pytest.raises(evalcore.InputError, match="no rule"):
        evalcore.gate(new)
    with pytest.raises(evalcore.InputError, match="needs a baseline"):
        evalcore.gate(new, no_worse=[METRIC])
