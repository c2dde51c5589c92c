"""DSPy's per-test settings reset, as DSPy's own ``tests/conftest.py`` (fixture ``clear_settings``,
stanfordnlp/dspy 3.3.1, MIT licence) applies it to its ``tests/evaluate/test_evaluate.py``."""

from __future__ import annotations

import copy
from collections.abc import Iterator

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "extra: DSPy's marker for tests that need optional packages (pandas)")


@pytest.fixture(autouse=True)
def clear_settings() -> Iterator[None]:
    """Fresh DSPy settings and an in-memory cache for each test."""
    dspy = pytest.importorskip("dspy")
    from dspy.dsp.utils.settings import DEFAULT_CONFIG

    original_cache = dspy.cache
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=True, disk_cache_dir=None)
    try:
        yield
    finally:
        try:
            dspy.configure(**copy.deepcopy(DEFAULT_CONFIG), inherit_config=False)
        finally:
            dspy.cache = original_cache
