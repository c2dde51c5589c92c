"""The run's settings reach the judge: ``evalcore evaluate``'s cache and judge flags, counted at a scripted server."""

from __future__ import annotations

import json
import os

import pytest
from evalcore.testing import run_evalcore, write_records

RECORDS = [
    {"id": i, "example": {"query": f"question {i}"},
     "prediction": {"response": f"answer {i}", "retrieved": [{"doc_id": "d", "text": f"context {i}"}]}}
    for i in range(3)
]


@pytest.fixture
def data(tmp_path):
    return write_records(tmp_path / "records.jsonl", RECORDS)


def evaluate(data, *flags, metric="judge/llm_judge", env=None):
    """``evalcore evaluate data -m METRIC FLAGS --json`` in a fresh process; its JSON report."""
    return json.loads(run_evalcore("evaluate", str(data), "-m", metric, "--json", *flags, env=env).stdout)


def scored(report):
    metric = report["metrics"]["judge/llm_judge"]
    assert metric["n"] == len(RECORDS) and metric["n_errors"] == 0, metric
    return metric


def test_cache_mode_and_folder_flags_reach_the_judge(scripted_server, data, tmp_path):
    judge = ["--judge-base-url", scripted_server.base_url, "--judge-model", "judge-model",
             "--cache-dir", str(tmp_path / "c")]
    scored(evaluate(data, *judge))
    assert len(scripted_server.requests) == 3
    scored(evaluate(data, *judge))  # readwrite (the default): every answer from the cache
    assert len(scripted_server.requests) == 3
    scored(evaluate(data, *judge, "--cache-mode", "off"))  # neither read nor written
    assert len(scripted_server.requests) == 6
    scored(evaluate(data, *judge, "--cache-mode", "refresh"))  # asked again, stored again
    assert len(scripted_server.requests) == 9
    scored(evaluate(data, *judge, "--cache-mode", "readonly"))  # hits only
    assert len(scripted_server.requests) == 9
    scored(evaluate(data, *judge[:4], "--cache-dir", str(tmp_path / "other")))  # another folder: all misses
    assert len(scripted_server.requests) == 12
    assert list((tmp_path / "c").rglob("*.json")) and list((tmp_path / "other").rglob("*.json"))


def test_judge_flags_reach_the_backend_and_beat_the_environment(scripted_server, data, tmp_path):
    env = {"EVALCORE_JUDGE_BASE_URL": "http://127.0.0.1:9/v1", "EVALCORE_JUDGE_MODEL": "from-env",
           "MY_JUDGE_KEY": "sk-run", "EVALCORE_CACHE_MODE": "off"}
    scored(evaluate(data, "--judge-base-url", scripted_server.base_url, "--judge-model", "from-flag",
                    "--judge-api-key-env", "MY_JUDGE_KEY", env=env))
    assert {r["json"]["model"] for r in scripted_server.requests} == {"from-flag"}
    assert {r["headers"]["authorization"] for r in scripted_server.requests} == {"Bearer sk-run"}


def test_the_environment_as_the_run_starts_when_no_flag_is_given(scripted_server, data, tmp_path):
    env = {"EVALCORE_JUDGE_BASE_URL": scripted_server.base_url, "EVALCORE_JUDGE_MODEL": "from-env",
           "EVALCORE_CACHE_MODE": "off"}
    scored(evaluate(data, env=env))
    scored(evaluate(data, env=env))  # the cache mode from the environment: off, so asked again
    assert len(scripted_server.requests) == 6
    assert {r["json"]["model"] for r in scripted_server.requests} == {"from-env"}


def test_a_metric_parameter_beats_the_run(scripted_server, data):
    scored(evaluate(data, "--judge-base-url", scripted_server.base_url, "--judge-model", "from-flag",
                    "--cache-mode", "off", metric="judge/llm_judge(model='from-param')"))
    assert {r["json"]["model"] for r in scripted_server.requests} == {"from-param"}


def test_evaluate_judge_option_reaches_the_judge(scripted_server, tmp_path, monkeypatch):
    import evalcore

    for name in [n for n in os.environ if n.startswith(("EVALCORE_JUDGE_", "OPENAI_"))]:
        monkeypatch.delenv(name)
    result = evalcore.evaluate(RECORDS, ["judge/llm_judge"], cache_mode="off",
                               judge={"base_url": scripted_server.base_url, "model": "from-python"})
    assert result.metrics["judge/llm_judge"].n == 3
    assert {r["json"]["model"] for r in scripted_server.requests} == {"from-python"}
