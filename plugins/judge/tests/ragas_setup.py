"""Importing ragas in the judge tests (skipped without it)."""

from __future__ import annotations

import importlib.util
import sys
import types

import pytest


def import_ragas(langchain_openai: bool = True) -> None:
    """Make ``import ragas`` work, or skip the test. ragas 0.4 imports langchain-community's Vertex AI
    chat model at import time, which newer langchain-community releases no longer ship; it only serves
    isinstance checks, so a stand-in class does where it is missing."""
    try:
        import langchain_community.chat_models.vertexai  # noqa: F401
    except ImportError:
        if importlib.util.find_spec("langchain_community") is None:
            pytest.skip("ragas needs langchain-community")
        stub = types.ModuleType("langchain_community.chat_models.vertexai")
        stub.ChatVertexAI = type("ChatVertexAI", (), {})
        sys.modules.setdefault(stub.__name__, stub)
    pytest.importorskip("ragas")
    if langchain_openai:
        pytest.importorskip("langchain_openai")
