"""DSPy's own test file runs here as DSPy's suite runs it: each test starts from DSPy's default
settings (as DSPy's ``tests/conftest.py`` ``clear_settings`` fixture does) and without
evalcore's judge settings from the environment."""

from __future__ import annotations

import copy
import importlib.util

import pytest

if importlib.util.find_spec("dspy") is None:  # DSPy is in evalcore-judge's test extra
    collect_ignore = ["test_auto_evaluation.py"]


@pytest.fixture(autouse=True)
def dspy_defaults(monkeypatch):
    import dspy
    from dspy.dsp.utils.settings import DEFAULT_CONFIG

    for name in ("BACKEND", "BASE_URL", "MODEL", "CALLABLE", "API_KEY_ENV"):
        monkeypatch.delenv(f"EVALCORE_JUDGE_{name}", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("EVALCORE_CACHE_MODE", raising=False)
    yield
    dspy.configure(**copy.deepcopy(DEFAULT_CONFIG))
