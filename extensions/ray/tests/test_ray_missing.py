"""``--executor ray`` without evalcore-ray, or with it but without Ray, is one line saying what to
install, printed before any record is read or scored."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import evalcore
import pytest
from evalcore.plugin import ExecutorError

pytest.importorskip("evalcore_ray")
from evalcore_ray import RayUnavailable  # noqa: E402 - after the skip

RECORDS = [{"id": "r1", "example": {"reference_answer": "a"}, "prediction": {"response": "a"}}]
WITHOUT_EXTENSION = """
import importlib.metadata as metadata
found = metadata.entry_points
metadata.entry_points = lambda **kw: [e for e in found(**kw) if e.value != "evalcore_ray._register"]
"""
WITHOUT_RAY = "import sys; sys.modules['ray'] = None  # import ray raises ImportError\n"


def evalcore_without(prelude, tmp_path, *args):
    """``evalcore ARGS`` in a fresh process where ``prelude`` has hidden something (plugins are
    loaded, not read from the listing cache, so a hidden plugin stays hidden)."""
    code = prelude + "import runpy, sys; sys.argv[0] = 'evalcore'; runpy.run_module('evalcore', run_name='__main__')\n"
    env = {**os.environ, "EVALCORE_NO_LIST_CACHE": "1", "EVALCORE_CACHE_DIR": str(tmp_path / "cache")}
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=120)


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "data.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in RECORDS))
    return str(path)


def test_without_the_extension_the_executor_is_unknown_and_the_installed_ones_are_named(tmp_path, data):
    done = evalcore_without(WITHOUT_EXTENSION, tmp_path, "evaluate", data, "-m", "overlap/token_f1",
                            "--executor", "ray")
    assert done.returncode != 0
    [line] = done.stderr.strip().splitlines()
    assert "no executor named 'ray' is installed (executors: " in line


def test_without_ray_the_command_says_how_to_install_it(tmp_path, data):
    done = evalcore_without(WITHOUT_RAY, tmp_path, "evaluate", data, "-m", "overlap/token_f1", "--executor", "ray")
    assert done.returncode != 0
    [line] = done.stderr.strip().splitlines()
    assert "executor='ray' needs Ray, which is not installed: pip install 'ray[client]>=2.9'" in line


def test_without_ray_evaluate_raises_before_scoring(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    called = []

    def metric(gold, pred, trace=None):
        called.append(1)
        return 1.0

    with pytest.raises(RayUnavailable, match=r"pip install 'ray\[client\]>=2.9' \(evalcore-ray's dependency\)") as info:
        evalcore.evaluate(RECORDS, [metric], executor="ray")
    assert isinstance(info.value, ExecutorError)
    assert not called
