"""A third party's judge backend (plugin API 2), built as a wheel, installed and chosen with
``--judge-backend`` exactly as evalcore-judge's own."""

import json
import os
import pathlib
import subprocess
import sys

import pytest

FIXTURE = pathlib.Path(__file__).parent / "fixtures" / "evalcore-acme-judge"
METRIC = "judge/llm_judge"


@pytest.fixture(scope="module")
def acme_judge(install_fixture):
    """evalcore-acme-judge installed into a folder of its own: ``{"PYTHONPATH": folder}``."""
    return install_fixture("evalcore-acme-judge")


@pytest.fixture
def data(tmp_path):
    records = [{"id": str(i), "example": {"query": "Capital of France?", "reference_answer": "Paris"},
                "prediction": {"response": "Paris"}} for i in range(3)]
    path = tmp_path / "data.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_the_backend_is_listed_for_the_judge_group(acme_judge, evalcore_cli):
    plugins = {p["name"]: p for p in json.loads(evalcore_cli("plugins", "--json", env=acme_judge).stdout)}
    assert plugins["acme_judge"]["backends"] == ["scripted"]
    assert plugins["judge"]["settings"] == ["judge"]
    assert plugins["judge"]["backends"] == ["http", "litellm", "dspy", "callable", "transformers"]


def test_judge_backend_names_a_third_party_backend(acme_judge, evalcore_cli, data):
    proc = evalcore_cli("evaluate", str(data), "-m", METRIC, "--judge-backend", "scripted", "--judge-model", "0.25",
                        "--cache-mode", "off", "--json", env=acme_judge)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["metrics"][METRIC]["value"] == pytest.approx(0.25)
    params = report["provenance"]["metrics"][METRIC]["params"]
    assert (params["backend"], params["model"]) == ("scripted", "verdict-0.25")
    assert report["provenance"]["settings"]["judge"] == {"backend": "scripted", "model": "0.25"}


def test_the_environment_names_the_backend_and_model(acme_judge, evalcore_cli, data):
    env = {**acme_judge, "EVALCORE_JUDGE_BACKEND": "scripted", "EVALCORE_JUDGE_MODEL": "0.5"}
    proc = evalcore_cli("evaluate", str(data), "-m", METRIC, "--cache-mode", "off", "--json", env=env)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["metrics"][METRIC]["value"] == pytest.approx(0.5)
    assert report["provenance"]["metrics"][METRIC]["params"]["backend"] == "scripted"


def test_an_unknown_backend_is_one_line_naming_the_installed_ones(acme_judge, evalcore_cli, data):
    proc = evalcore_cli("evaluate", str(data), "-m", METRIC, "--judge-backend", "nope", env=acme_judge)
    assert proc.returncode != 0
    [line] = proc.stderr.strip().splitlines()
    assert "no judge backend named 'nope'" in line
    assert "callable, dspy, http, litellm, scripted, transformers" in line


def test_the_python_api_takes_the_group_as_a_keyword(acme_judge, data, tmp_path):
    script = (
        "import evalcore\n"
        f"r = evalcore.evaluate({str(data)!r}, [{METRIC!r}], judge={{'backend': 'scripted', 'model': '0.75'}},\n"
        "                      cache_mode='off')\n"
        f"print(r.metrics[{METRIC!r}].value)\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                          env={**os.environ, **acme_judge}, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert float(proc.stdout) == pytest.approx(0.75)
