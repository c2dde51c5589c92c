"""Resume: a run killed with SIGKILL at any point, resumed, equals an uninterrupted run."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time

import pytest

METRICS = ["-m", "overlap/token_f1", "-m", "overlap/bleu", "-m", "system/distinct_n(n=2)"]
PROGRAM = '''
import time

def predict(example):
    time.sleep(0.01)
    words = example["query"].split()
    return {"response": " ".join(words[::2]) if int(example["id"][1:]) % 3 else example["reference_answer"]}
'''


def _records(path, n):
    with open(path, "w", encoding="utf-8") as handle:
        for i in range(n):
            query = " ".join(f"w{(i * 7 + j) % 23}" for j in range(8))
            handle.write(json.dumps({"id": f"r{i}", "example": {"query": query, "reference_answer": query[:20]},
                                     "prediction": {}}) + "\n")


def _evaluate(tmp_path, name, *extra):
    command = [sys.executable, "-m", "evalcore", "evaluate", "data.jsonl", *METRICS, "--program", "slow:predict",
               "--chunk-size", "50", "--concurrency", "2", "--samples", f"{name}.rows.jsonl", "-o", f"{name}.json",
               "--no-progress", *extra]
    return subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(tmp_path)}, preexec_fn=_interruptible)


def _interruptible():
    """Ctrl-C reaches the command even where the test runs with SIGINT ignored (a background job)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _rows(path):
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.startswith('{"id"')]
    return sorted(rows, key=lambda row: row["id"])


def _aggregates(path):
    report = json.loads(path.read_text())
    for summary in report["metrics"].values():
        summary["details"].pop("usage", None)
    return report["metrics"]


@pytest.fixture
def run_dir(tmp_path):
    _records(tmp_path / "data.jsonl", 1500)
    (tmp_path / "slow.py").write_text(PROGRAM)
    whole = _evaluate(tmp_path, "whole")
    assert whole.wait(timeout=300) == 0, whole.stderr.read()
    return tmp_path


def _wait_for_rows(journal, count):
    """Wait until the journal holds ``count`` rows (counted cheaply: rows start with '{"id"')."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if journal.exists() and journal.read_bytes().count(b'\n{"id"') >= count:
            return
        time.sleep(0.01)


@pytest.mark.parametrize("kill_after_rows", [0, 300, 800])
def test_killed_run_resumes_to_the_uninterrupted_result(run_dir, kill_after_rows):
    name = f"killed{kill_after_rows}"
    proc = _evaluate(run_dir, name)
    _wait_for_rows(run_dir / f"{name}.rows.jsonl", kill_after_rows)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    journal = run_dir / f"{name}.rows.jsonl"
    partial = len(_rows(journal)) if journal.exists() else 0
    resumed = _evaluate(run_dir, name, "--resume")
    out, err = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, err
    assert partial < 1500
    assert _rows(journal) == _rows(run_dir / "whole.rows.jsonl")
    assert _aggregates(run_dir / f"{name}.json") == _aggregates(run_dir / "whole.json")
    assert json.loads((run_dir / f"{name}.json").read_text())["provenance"]["resumed"] is True


def test_resume_refuses_another_input_or_metric_list(run_dir):
    changed_metrics = subprocess.run(
        [sys.executable, "-m", "evalcore", "evaluate", "data.jsonl", "-m", "overlap/token_f1", "--program",
         "slow:predict", "--samples", "whole.rows.jsonl", "--resume", "--no-progress"],
        cwd=run_dir, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(run_dir)}, timeout=120)
    assert changed_metrics.returncode == 2
    assert "belongs to another run" in changed_metrics.stderr and "overlap/bleu removed" in changed_metrics.stderr
    with open(run_dir / "data.jsonl", "a", encoding="utf-8") as handle:
        handle.write(json.dumps({"id": "extra", "example": {"query": "a b", "reference_answer": "a"},
                                 "prediction": {}}) + "\n")
    changed_input = _evaluate(run_dir, "whole", "--resume")
    _, err = changed_input.communicate(timeout=120)
    assert changed_input.returncode == 2 and "input.sha256 was" in err and "input.size was" in err


def test_ctrl_c_writes_the_report_of_what_finished(run_dir):
    proc = _evaluate(run_dir, "interrupted")
    _wait_for_rows(run_dir / "interrupted.rows.jsonl", 100)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 1, err
    report = json.loads((run_dir / "interrupted.json").read_text())
    assert report["stopped"].startswith("interrupted")
    finished = len(_rows(run_dir / "interrupted.rows.jsonl"))
    assert 0 < finished < 1500 and report["provenance"]["n_finished"] == finished


def test_ctrl_c_tells_the_command_that_finishes_the_run(run_dir):
    proc = _evaluate(run_dir, "stopped")
    _wait_for_rows(run_dir / "stopped.rows.jsonl", 100)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    [hint] = [line for line in err.splitlines() if line.startswith("to finish the run: ")]
    command = shlex.split(hint.removeprefix("to finish the run: "))
    assert command[:2] == ["evalcore", "evaluate"] and command[-1] == "--resume"
    finish = subprocess.run([sys.executable, "-m", "evalcore", *command[1:]], cwd=run_dir, capture_output=True,
                            text=True, env={**os.environ, "PYTHONPATH": str(run_dir)}, timeout=300)
    assert finish.returncode == 0, finish.stderr
    assert _rows(run_dir / "stopped.rows.jsonl") == _rows(run_dir / "whole.rows.jsonl")
