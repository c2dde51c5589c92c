"""Saved runs made by ``evalcore evaluate`` (a judged metric answered by a scripted judge), the
``evalcore ui`` server started as a user starts it, and a headless Chromium driven by Playwright."""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import shutil
import subprocess
import sys
from collections.abc import Iterator

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples"
EVALCORE = [sys.executable, "-m", "evalcore"]
JUDGE = '''
def judge(prompt, metadata):
    good = "Paris" in prompt
    return {"rationale": "the evidence names Paris" if good else "not supported", "score": 1 if good else 0}
'''
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="session")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of the commands: a private cache, and the scripted judge importable."""
    home = tmp_path_factory.mktemp("judge")
    (home / "scripted_judge.py").write_text(JUDGE)
    return {**os.environ, "EVALCORE_CACHE_DIR": str(home / "cache"), "PYTHONPATH": str(home),
            "EVALCORE_JUDGE_CALLABLE": "scripted_judge:judge", "EVALCORE_JUDGE_BACKEND": "callable"}


def evaluate(env: dict[str, str], data: pathlib.Path, output: pathlib.Path, *args: str) -> subprocess.CompletedProcess:
    output.parent.mkdir(parents=True, exist_ok=True)
    done = subprocess.run([*EVALCORE, "evaluate", str(data), "-m", "judge/faithfulness", "-m", "overlap/token_f1",
                           "-o", str(output), "--allow-code", *args], env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done


@pytest.fixture(scope="session")
def runs(env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """A folder with two runs: ``a`` over examples/rag.jsonl, ``b`` over examples/rag_b.jsonl."""
    folder = tmp_path_factory.mktemp("runs")
    evaluate(env, EXAMPLES / "rag.jsonl", folder / "a.json")
    evaluate(env, EXAMPLES / "rag_b.jsonl", folder / "b.json")
    return folder


def _rows(journal: pathlib.Path) -> dict[str, dict]:
    """A journal's record rows by id (read here with json, not with the code under test)."""
    found = {}
    for line in journal.read_text().splitlines():
        row = json.loads(line)
        if "id" in row and "scores" in row:
            found[row["id"]] = row
    return found


@contextlib.contextmanager
def _serve(env: dict[str, str], *args: str) -> Iterator[str]:
    """``evalcore ui ARGS --port 0`` running; the address it printed."""
    process = subprocess.Popen([*EVALCORE, "ui", *args, "--port", "0"], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline()
        assert line.startswith("evalcore ui: http://"), line + process.stderr.read()
        yield line.split(": ", 1)[1].strip()
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(scope="module")
def browser():
    """A headless Chromium for one test module: Playwright's synchronous API keeps an event loop running
    in this thread while it is open, so it is closed before the other packages' tests run."""
    if CHROMIUM is None:
        pytest.skip("needs chromium (apt-get install chromium)")
    playwright_api = pytest.importorskip("playwright.sync_api")
    with playwright_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM)
        yield launched
        launched.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1366, "height": 768})
    context.set_default_timeout(10_000)
    yield context.new_page()
    context.close()


@pytest.fixture(scope="session")
def rows():
    """``rows(journal)``: a journal's record rows by id."""
    return _rows


@pytest.fixture(scope="session")
def serve(env):
    """``with serve(*args) as url``: ``evalcore ui ARGS`` running (with the tests' environment, or
    ``environ=`` another)."""
    return lambda *args, environ=None: _serve(environ or env, *args)
