"""Shared helpers: metrics come from the registry, as users get them."""

from __future__ import annotations

from typing import Any

import evalcore
import pytest


@pytest.fixture
def metric():
    """``metric(id, **params)`` -> a ready metric from the installed plugin."""

    def make(metric_id: str, **params: Any) -> evalcore.Metric:
        return evalcore.get_metric(metric_id, **params)

    return make
