"""The run's settings reach the embedding metrics: ``evalcore evaluate``'s embedding and cache flags,
counted at a scripted OpenAI-compatible embeddings endpoint."""

from __future__ import annotations

import json

import pytest
from evalcore.testing import run_evalcore, write_records

RECORDS = [{"id": i, "example": {"reference_answer": f"reference {i}"}, "prediction": {"response": f"answer {i}"}}
           for i in range(3)]
TEXTS = 6  # a response and a reference per record, all distinct


@pytest.fixture
def data(tmp_path):
    return write_records(tmp_path / "records.jsonl", RECORDS)


def embedded(server):
    return sum(len(r["json"]["input"]) for r in server.requests)


def evaluate(data, *flags, env=None):
    proc = run_evalcore("evaluate", str(data), "-m", "semantic/embedding_similarity", "--json", *flags, env=env)
    metric = json.loads(proc.stdout)["metrics"]["semantic/embedding_similarity"]
    assert metric["n"] == len(RECORDS) and metric["n_errors"] == 0, metric
    return metric


def test_embedding_and_cache_flags_reach_the_embedder(scripted_server, data, tmp_path):
    flags = ["--embedding-base-url", scripted_server.base_url, "--embedding-model", "embedder-from-flag",
             "--cache-dir", str(tmp_path / "vectors")]
    evaluate(data, *flags)
    assert embedded(scripted_server) == TEXTS
    assert {r["json"]["model"] for r in scripted_server.requests} == {"embedder-from-flag"}
    evaluate(data, *flags)  # every vector from the cache the flag names
    assert embedded(scripted_server) == TEXTS
    evaluate(data, *flags, "--cache-mode", "off")
    assert embedded(scripted_server) == 2 * TEXTS
    evaluate(data, *flags[:4], "--cache-dir", str(tmp_path / "elsewhere"))
    assert embedded(scripted_server) == 3 * TEXTS


def test_the_embedding_model_from_the_environment_as_the_run_starts(scripted_server, data):
    env = {"EVALCORE_EMBEDDING_MODEL": "embedder-from-env", "EVALCORE_CACHE_MODE": "off"}
    evaluate(data, "--embedding-base-url", scripted_server.base_url, env=env)
    assert {r["json"]["model"] for r in scripted_server.requests} == {"embedder-from-env"}
