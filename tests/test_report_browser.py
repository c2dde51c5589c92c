"""The HTML report rendered by a real headless Chromium: no console errors, the script runs.

Run by the ``report_browser`` nox session; skipped where no Chromium is installed. With
``EVALCORE_REPORT_SCREENSHOT`` set, the screenshot is also written there (docs/img/report.png).
"""

import os
import re
import shutil
import subprocess

import numpy as np
import pytest
from evalcore import write_report
from evalcore.testing import write_journal

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars"]

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="needs chromium (apt-get install chromium)")


def chromium(tmp_path, *args):
    profile = tmp_path / "profile"
    proc = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
                           *args], capture_output=True, text=True, timeout=120)
    return proc


def console_errors(stderr):
    return [line for line in stderr.splitlines()
            if "CONSOLE" in line and re.search(r"Uncaught|Error|Refused", line)]


@pytest.fixture
def report(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the page names its inputs as given: short relative names
    rng = np.random.default_rng(4)
    header = {m: {"granularity": "sample", "direction": "higher", "metric_version": "1"}
              for m in ("retrieval/ndcg@10", "retrieval/recall@10", "overlap/f1")}
    paths = []
    for name, shift in (("baseline", 0.0), ("reranker", 0.12), ("smaller-model", -0.02)):
        rows = {}
        for i in range(60):
            rows[f"q{i:03d}"] = {m: float(np.clip(rng.beta(2, 3) + shift, 0, 1)) for m in header}
        rows["q007"]["overlap/f1"] = {"value": None, "status": "skipped", "reason": "no reference answer"}
        for i in (11, 23):
            rows[f"q{i:03d}"]["overlap/f1"] = {"value": None, "status": "error",
                                               "error": {"type": "TimeoutError", "message": "model call timed out"}}
        paths.append(str(write_journal(f"{name}.jsonl", rows, metrics=header)))
    return write_report(paths[0], tmp_path / "report.html", compare_with=paths[1:], n_resamples=1000)


def test_chromium_renders_the_report_without_console_errors(tmp_path, report):
    url = f"file://{report}"
    dom = chromium(tmp_path, "--dump-dom", url)
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert console_errors(dom.stderr) == []
    assert "60 of 60 records shown" in dom.stdout  # the script ran to its end
    shot = tmp_path / "report.png"
    render = chromium(tmp_path, "--window-size=1460,1500", f"--screenshot={shot}", url)
    assert render.returncode == 0, render.stderr[-2000:]
    assert console_errors(render.stderr) == []
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000
    target = os.environ.get("EVALCORE_REPORT_SCREENSHOT")
    if target:
        shutil.copyfile(shot, target)


def test_the_console_check_catches_a_script_error(tmp_path):
    page = tmp_path / "broken.html"
    page.write_text("<!DOCTYPE html><html><body><script>missingFunction();</script></body></html>")
    proc = chromium(tmp_path, "--dump-dom", f"file://{page}")
    assert any("missingFunction" in line for line in console_errors(proc.stderr))
