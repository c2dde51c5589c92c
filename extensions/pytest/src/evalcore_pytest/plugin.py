"""The pytest plugin ``evalcore`` (entry point ``pytest11``): the fixtures ``scripted_server`` and
``evalcore_run``.

It loads into every pytest run of an environment where evalcore-pytest is installed, so it
imports nothing of evalcore until a test asks for one of its fixtures. The conformance classes
of :mod:`evalcore.testkit` parametrise their own checks (a ``pytest_generate_tests`` method), so
this module need not know them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from evalcore import EvaluationResult

    from .testing import ScriptedServer


@pytest.fixture
def scripted_server() -> Iterator[ScriptedServer]:
    """A running :class:`~evalcore.testing.ScriptedServer` on 127.0.0.1 (OpenAI-compatible, scripted answers)."""
    from .testing import ScriptedServer

    with ScriptedServer() as server:
        yield server


@pytest.fixture(scope="session")
def evalcore_run() -> Callable[..., EvaluationResult]:
    """``evalcore_run(data, metrics, **options)``: :func:`evalcore.evaluate`, run once per test session
    for the same arguments; later calls with equal arguments return the same
    :class:`~evalcore.EvaluationResult`, so many tests can assert on one evaluation."""
    cache: dict[str, EvaluationResult] = {}

    def run(data: Any, metrics: Any, **options: Any) -> EvaluationResult:
        import evalcore

        key = _run_key(data, metrics, options)
        if key not in cache:
            cache[key] = evalcore.evaluate(data, metrics, **options)
        return cache[key]

    return run


def _run_key(data: Any, metrics: Any, options: Mapping[str, Any]) -> str:
    """Equal arguments, equal key: paths by their absolute form, the rest as JSON (else ``repr``)."""
    import json
    import os

    if isinstance(data, (str, os.PathLike)) and os.fspath(data) != "-":
        data = os.path.abspath(os.fspath(data))
    metrics = [metrics] if isinstance(metrics, str) else list(metrics)
    return json.dumps([data, metrics, dict(options)], sort_keys=True, default=repr)
