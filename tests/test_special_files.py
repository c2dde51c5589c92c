"""A FIFO named as an output, a run or a store is refused, and one found in a runs folder is passed
over: never opened, since opening one waits for a reader or writer forever."""

from __future__ import annotations

import json
import os
import time

import pytest
from evalcore.testing import run_evalcore

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs need a POSIX system")

RECORDS = [{"id": f"r{i}", "example": {"reference_answer": "Paris"}, "prediction": {"response": answer}}
           for i, answer in enumerate(["Paris", "It is Paris", "Berlin"])]


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "data.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in RECORDS), encoding="utf-8")
    return path


def fifo(path):
    os.mkfifo(path)
    return path


def one_line_refusal(proc, name) -> str:
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    line = proc.stderr.strip()
    assert "\n" not in line and name in line and "not a regular file" in line
    return line


@pytest.mark.parametrize("option", ["--output", "--samples", "--csv"])
def test_a_fifo_as_an_evaluate_output_is_refused_at_once(tmp_path, data, option):
    target = fifo(tmp_path / "out")
    start = time.monotonic()
    proc = run_evalcore("evaluate", str(data), "-m", "overlap/token_f1", option, str(target), check=False, timeout=60)
    assert time.monotonic() - start < 30
    one_line_refusal(proc, str(target))


def test_a_fifo_as_the_report_page_is_refused(tmp_path, data):
    run_evalcore("evaluate", str(data), "-m", "overlap/exact_match", "-o", str(tmp_path / "run.json"), timeout=60)
    page = fifo(tmp_path / "page.html")
    proc = run_evalcore("report", str(tmp_path / "run.json"), "-o", str(page), check=False, timeout=60)
    one_line_refusal(proc, "page.html")


def test_a_fifo_in_a_runs_folder_is_passed_over(tmp_path, data):
    folder = tmp_path / "runs"
    folder.mkdir()
    run_evalcore("evaluate", str(data), "-m", "overlap/exact_match", "-o", str(folder / "first.json"), timeout=60)
    fifo(folder / "stuck.json")  # a reader that opened it would wait for a writer forever
    (folder / "nested").mkdir()
    fifo(folder / "nested" / "also.json")
    proc = run_evalcore("runs", str(folder), "--json", timeout=60)
    runs = json.loads(proc.stdout)
    assert [r["name"] for r in runs] == ["first"]
    assert runs[0]["metrics"]["overlap/exact_match"]["value"] == pytest.approx(1 / 3)  # Paris of 3 answers


def test_a_fifo_as_a_run_or_a_store_is_refused(tmp_path, data):
    run_evalcore("evaluate", str(data), "-m", "overlap/exact_match", "-o", str(tmp_path / "run.json"), timeout=60)
    store = fifo(tmp_path / "runs.db")
    one_line_refusal(run_evalcore("runs", str(tmp_path), "--store", str(store), check=False, timeout=60), "runs.db")
    other = fifo(tmp_path / "other.json")
    one_line_refusal(run_evalcore("compare", str(tmp_path / "run.json"), str(other), check=False, timeout=60),
                     "other.json")
