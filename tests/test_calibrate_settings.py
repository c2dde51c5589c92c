"""evalcore calibrate chooses its judge as evaluate does: the --judge-* flags over the environment
variables the judge's settings group declares, with --cache-mode / --cache-dir, and a judge named as
code (judge='module:attr') only with --allow-code."""

from __future__ import annotations

import json
import sys

import pytest
from click.testing import CliRunner
from evalcore._cli.main import main
from evalcore.testing import Reply, ScriptedServer, requested_schema, schema_instance

METRIC = "judge/answer_quality"


def by_model(request):
    """Every score 1 from the model "lenient", 0 from any other."""
    number = 1 if request.get("model") == "lenient" else 0
    text = json.dumps(schema_instance(requested_schema(request), number=number))
    return Reply.chat(text, usage={"prompt_tokens": 10, "completion_tokens": 5})


@pytest.fixture(autouse=True)
def no_judge_in_the_environment(monkeypatch):
    for name in ("EVALCORE_JUDGE_MODEL", "EVALCORE_JUDGE_BASE_URL", "OPENAI_BASE_URL", "EVALCORE_JUDGE_BACKEND",
                 "EVALCORE_JUDGE_CALLABLE"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def server():
    with ScriptedServer(by_model) as running:
        yield running


@pytest.fixture
def labels(tmp_path):
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps({"id": f"r{i}", "example": {"query": f"q{i}"},
                                        "prediction": {"response": f"a{i}"}, "label": True}) + "\n"
                            for i in range(3)))
    return path


def calibrate(labels, *args, env=None):
    result = CliRunner().invoke(main, ["calibrate", str(labels), "-m", METRIC, "--json", *args], env=env)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_the_judge_flags_choose_the_judge(server, labels, tmp_path):
    found = calibrate(labels, "--judge-base-url", server.base_url, "--judge-model", "lenient",
                      "--cache-dir", str(tmp_path / "cache"))
    assert (found["n"], found["agreement"]) == (3, 1.0)  # every answer 1: passes, as every label says
    assert {r["json"]["model"] for r in server.requests} == {"lenient"}
    assert (tmp_path / "cache").is_dir()


def test_the_environment_chooses_the_judge_and_a_flag_wins_over_it(server, labels):
    env = {"EVALCORE_JUDGE_BASE_URL": server.base_url, "EVALCORE_JUDGE_MODEL": "strict"}
    strict = calibrate(labels, "--cache-mode", "off", env=env)
    assert (strict["n"], strict["agreement"]) == (3, 0.0)  # every answer 0: fails, against every label
    lenient = calibrate(labels, "--cache-mode", "off", "--judge-model", "lenient", env=env)
    assert lenient["agreement"] == 1.0
    assert [r["json"]["model"] for r in server.requests] == ["strict"] * 3 + ["lenient"] * 3


def test_no_judge_anywhere_is_one_line_naming_the_flags(labels):
    result = CliRunner().invoke(main, ["calibrate", str(labels), "-m", METRIC])
    assert result.exit_code != 0
    [line] = [line for line in result.output.splitlines() if line.strip()]
    assert "--judge-base-url" in line and "Traceback" not in result.output


def test_a_judge_named_as_code_needs_allow_code(labels, tmp_path, monkeypatch):
    (tmp_path / "calibration_judge.py").write_text(
        "import json, pathlib\n"
        "CALLED = pathlib.Path(__file__).with_name('called')\n"
        "def answer(prompt, metadata):\n"
        "    CALLED.write_text('yes')\n"
        "    return json.dumps({field: 1 for field in metadata['fields']} | {'explanation': 'fine'})\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    metric = f"{METRIC}(judge='calibration_judge:answer')"
    refused = CliRunner().invoke(main, ["calibrate", str(labels), "-m", metric, "--cache-mode", "off"])
    assert refused.exit_code != 0 and "Traceback" not in refused.output, refused.output
    [line] = [line for line in refused.output.splitlines() if line.strip()]
    assert "'calibration_judge:answer'" in line and "--allow-code" in line
    assert "calibration_judge" not in sys.modules and not (tmp_path / "called").exists()  # nothing imported
    result = CliRunner().invoke(main, ["calibrate", str(labels), "-m", metric, "--cache-mode", "off", "--json",
                                       "--allow-code"])
    assert result.exit_code == 0, result.output
    found = json.loads(result.output)
    assert (found["n"], found["agreement"]) == (3, 1.0)  # every answer 1: passes, as every label says
    assert (tmp_path / "called").read_text() == "yes"
