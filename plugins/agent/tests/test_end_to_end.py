"""The agent metrics reached as users reach them: ``evalcore evaluate … --json`` and ``evalcore.evaluate``."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import evalcore
import pytest

RECORDS = [
    {"id": "all-right", "example": {"expected_tool_calls": [
        {"name": "geocode", "arguments": {"city": "Paris"}},
        {"name": "forecast", "arguments": {"lat": 48.86, "lon": 2.35}}]},
     "prediction": {"tool_calls": [
         {"name": "geocode", "arguments": {"city": "Paris"}, "result": {"lat": 48.86, "lon": 2.35}},
         {"name": "forecast", "arguments": {"lat": 48.86, "lon": 2.35}, "result": "rain"}]}},
    {"id": "swapped", "example": {"expected_tool_calls": [
        {"name": "geocode", "arguments": {"city": "Rome"}},
        {"name": "forecast", "arguments": {"lat": 41.9, "lon": 12.5}}]},
     "prediction": {"turns": [
         {"role": "user", "content": "Weather in Rome?"},
         {"role": "assistant", "content": "", "tool_calls": [
             {"name": "forecast", "arguments": {"lat": 41.9, "lon": 12.5}},
             {"name": "geocode", "arguments": {"city": "rome"}}]},
         {"role": "assistant", "content": "Sunny."}]}},
    {"id": "unlabelled", "example": {}, "prediction": {"tool_calls": []}},
    {"id": "broken", "example": {"expected_tool_calls": []}, "prediction": {"tool_calls": [{"arguments": {}}]}},
]
# per record: all-right, swapped (flattened from turns; 'rome' is not 'Rome'), unlabelled (skipped), broken (error)
METRICS = {
    "agent/tool_call_correctness": [1.0, 1.0],
    "agent/tool_call_correctness(mode='ordered')": [1.0, 0.5],
    "agent/tool_argument_correctness": [1.0, 0.5],
    "agent/trajectory_match": [1.0, 0.0],
    "agent/trajectory_match(mode='unordered', ignore_case=True)": [1.0, 1.0],
    "agent/tool_call_accuracy": [1.0, 0.0],
    "agent/tool_call_accuracy(mode='unordered', ignore_case=True)": [1.0, 1.0],
}


@pytest.fixture
def records_file(tmp_path):
    path = tmp_path / "records.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")
    return path


def check(metrics: dict, rows: list[dict]) -> None:
    for metric_id, values in METRICS.items():
        summary = metrics[metric_id]
        assert (summary["n"], summary["n_skipped"], summary["n_errors"]) == (2, 1, 1), metric_id
        assert summary["value"] == pytest.approx(sum(values) / 2), metric_id
        by_id = {row["id"]: row["scores"][metric_id] for row in rows}
        assert [by_id["all-right"]["value"], by_id["swapped"]["value"]] == values, metric_id
        assert by_id["unlabelled"]["status"] == "skipped"
        assert "expected_tool_calls is missing" in by_id["unlabelled"]["reason"]
        assert by_id["broken"]["status"] == "error"
        assert by_id["broken"]["error"]["type"] == "InputError"
        assert "prediction.tool_calls[0].name" in by_id["broken"]["error"]["message"]


def test_the_command_line(records_file, tmp_path):
    samples = tmp_path / "rows.jsonl"
    args = [sys.executable, "-m", "evalcore", "evaluate", str(records_file), "--samples", str(samples), "--json"]
    for metric_id in METRICS:
        args += ["-m", metric_id]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=300, cwd=tmp_path, env=dict(os.environ))
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    rows = [json.loads(line) for line in samples.read_text(encoding="utf-8").splitlines() if line]
    check(report["metrics"], [row for row in rows if "scores" in row])


def test_evaluate(records_file, tmp_path):
    result = evalcore.evaluate(str(records_file), list(METRICS), samples=str(tmp_path / "rows.jsonl"))
    metrics = {metric_id: {"n": s.n, "n_skipped": s.n_skipped, "n_errors": s.n_errors, "value": s.value}
               for metric_id, s in result.metrics.items()}
    check(metrics, list(result.samples))


def test_listed_and_described():
    listed = {info.key: info for info in evalcore.list_metrics() if info.spec.namespace == "agent"}
    assert sorted(listed) == ["agent/no_loop", "agent/tool_argument_correctness", "agent/tool_call_accuracy",
                              "agent/tool_call_correctness", "agent/trajectory_match"]
    for info in listed.values():
        spec = info.spec
        assert info.origin.distribution == "evalcore-agent"
        assert spec.target is evalcore.plugin.TargetCategory.AGENT_BEHAVIOUR
        assert (spec.tier.value, spec.deterministic, spec.version, spec.value_range) == ("proxy", True, "1", (0, 1))
    assert "DeepEval" in listed["agent/tool_call_correctness"].spec.description
    assert "agentevals" in listed["agent/trajectory_match"].spec.description
