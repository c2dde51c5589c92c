"""Shared helpers: metrics come from the registry, as users get them; records are built from call lists."""

from __future__ import annotations

import os
from typing import Any

import evalcore
import pytest

# The reference libraries stay offline: no DeepEval telemetry or update check (set before it is
# imported; the root pytest configuration keeps DeepEval's own pytest plugin from loading), no
# LangSmith tracing of agentevals' evaluators.
os.environ["DEEPEVAL_TELEMETRY_OPT_OUT"] = "YES"
os.environ["DEEPEVAL_UPDATE_WARNING_OPT_IN"] = "0"
os.environ["LANGSMITH_TRACING"] = "false"


@pytest.fixture
def metric():
    """``metric(id, **params)`` -> a ready metric from the installed plugin."""

    def make(metric_id: str, **params: Any) -> evalcore.Metric:
        return evalcore.get_metric(metric_id, **params)

    return make


@pytest.fixture
def value(metric):
    """``value(id, expected, made, **params)`` -> the metric's value on calls given as ``(name, arguments)``."""

    def score(metric_id: str, expected: list[Any], made: list[Any], **params: Any) -> float | None:
        example = {"expected_tool_calls": [call(c) for c in expected]}
        prediction = {"tool_calls": [call(c) for c in made]}
        result = metric(metric_id, **params).score_one(example, prediction)
        assert result.status.value == "ok", result
        return result.value

    return score


def call(spec: Any) -> dict[str, Any]:
    """``"name"``, ``("name", arguments)`` or ``("name", arguments, result)`` as a record's tool call."""
    if isinstance(spec, dict):
        return spec
    if isinstance(spec, str):
        return {"name": spec, "arguments": {}}
    name, arguments, *result = spec
    return {"name": name, "arguments": arguments, **({"result": result[0]} if result else {})}
