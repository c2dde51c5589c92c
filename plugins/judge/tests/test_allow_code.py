"""A judge named as "module:attr" is imported only when the run allows code loading; a callable
passed itself needs no allowance."""

from __future__ import annotations

import json
import os
import sys

import evalcore
import pytest
from evalcore.testing import run_evalcore

RECORD = {"id": "r1",
          "example": {"query": "Where is the Eiffel Tower?", "reference_answer": "In Paris."},
          "prediction": {"response": "It is in Paris.",
                         "retrieved": [{"doc_id": "d1", "text": "The Eiffel Tower is in Paris."}]}}

# A module that leaves a mark when it is imported and counts the prompts its judge answers.
RECORDER = '''
import os, pathlib
pathlib.Path(os.environ["RECORDER_MARK"]).write_text("imported")
prompts = []

def judge(prompt, *rest):
    prompts.append(prompt)
    with open(os.environ["RECORDER_MARK"], "a") as mark:
        mark.write(" called")
    return '{"score": 0.75, "explanation": "recorded"}'
'''


@pytest.fixture
def recorder(tmp_path, monkeypatch):
    """The folder holding ``recorder.py`` and a data file; the mark the module leaves is ``mark``."""
    (tmp_path / "recorder.py").write_text(RECORDER, encoding="utf-8")
    (tmp_path / "data.jsonl").write_text(json.dumps(RECORD) + "\n", encoding="utf-8")
    monkeypatch.setenv("RECORDER_MARK", str(tmp_path / "mark"))
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    sys.modules.pop("recorder", None)


def cli(folder, *args, env=None):
    environ = {"PYTHONPATH": str(folder), "RECORDER_MARK": str(folder / "mark"), **(env or {})}
    return run_evalcore("evaluate", str(folder / "data.jsonl"), "--cache-mode", "off", "--no-progress", *args,
                        env=environ, check=False, timeout=60)


def test_cli_refuses_a_judge_named_as_code_without_importing_it(recorder):
    proc = cli(recorder, "-m", "judge/faithfulness(judge='recorder:judge')")
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    line = proc.stderr.strip()
    assert "\n" not in line and "judge/faithfulness: parameter 'judge'" in line and "--allow-code" in line
    assert not (recorder / "mark").exists()  # never imported, never called


def test_cli_refuses_a_judge_named_in_the_environment_without_allow_code(recorder):
    proc = cli(recorder, "-m", "judge/faithfulness", env={"EVALCORE_JUDGE_CALLABLE": "recorder:judge"})
    assert proc.returncode != 0 and "--allow-code" in proc.stderr
    assert not (recorder / "mark").exists()


def test_cli_with_allow_code_imports_and_uses_the_judge(recorder):
    proc = cli(recorder, "-m", "judge/faithfulness(judge='recorder:judge')", "--allow-code", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["metrics"]["judge/faithfulness"]["value"] == 0.75
    assert (recorder / "mark").read_text() == "imported called"


def test_os_system_is_never_called(recorder, monkeypatch):
    calls = []
    monkeypatch.setattr(os, "system", lambda command: calls.append(command) or 0)
    with pytest.raises(evalcore.ParameterError, match=r"'os:system' names Python code .*allow_code=True"):
        evalcore.evaluate([RECORD], ["judge/faithfulness(judge='os:system')"], cache_mode="off")
    with pytest.raises(evalcore.ParameterError, match="--allow-code"):
        evalcore.evaluate([RECORD], ["judge/faithfulness"], judge={"judge": "os:system"}, cache_mode="off")
    assert calls == []


def test_api_allow_code_imports_the_judge(recorder):
    with pytest.raises(evalcore.ParameterError, match="allow_code=True"):
        evalcore.evaluate([RECORD], ["judge/faithfulness(judge='recorder:judge')"], cache_mode="off")
    assert not (recorder / "mark").exists()
    result = evalcore.evaluate([RECORD], ["judge/faithfulness(judge='recorder:judge')"], cache_mode="off",
                               allow_code=True)
    assert result.metrics["judge/faithfulness"].value == 0.75


def test_a_callable_passed_in_python_needs_no_allowance():
    prompts = []

    def judge(prompt, *rest):
        prompts.append(prompt)
        return '{"score": 0.5, "explanation": "passed in"}'

    result = evalcore.evaluate([RECORD], ["judge/faithfulness"], judge={"judge": judge}, cache_mode="off")
    assert result.metrics["judge/faithfulness"].value == 0.5 and len(prompts) == 1
    metric = evalcore.get_metric("judge/faithfulness", judge=judge, cache_mode="off")
    assert metric.score_one(RECORD["example"], RECORD["prediction"]).value == 0.5
