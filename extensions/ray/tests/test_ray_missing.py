"""``executor="ray"`` without Ray installed is a clear configuration error, raised before any scoring."""

import sys

import evalcore
import pytest
from evalcore import EvalcoreError


def test_ray_executor_without_ray_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    records = [{"id": "r1", "example": {"reference_answer": "a"}, "prediction": {"response": "a"}}]
    called = []

    def metric(gold, pred, trace=None):
        called.append(1)
        return 1.0

    with pytest.raises(EvalcoreError, match=r"executor='ray' needs Ray.*pip install 'evalcore-core\[ray\]'"):
        evalcore.evaluate(records, [metric], executor="ray")
    assert not called
