"""DSPy's judge metrics, judged by evalcore: change
``from dspy.evaluate import SemanticF1, CompleteAndGrounded`` to
``from evalcore_judge.dspy import SemanticF1, CompleteAndGrounded``.

Each returns the evalcore metric (``judge/semantic_f1``, ``judge/complete_and_grounded``) with
DSPy's parameters. Called DSPy-style, ``metric(example, pred, trace=None)``, it returns what
DSPy's returns, ``dspy.Prediction(score=...)`` (``score >= threshold`` with a trace), judged
by the LM DSPy is configured with where it is called, with DSPy's own prompts; in
:func:`evalcore.evaluate` and ``evalcore evaluate`` it is an evalcore metric like any other.
Other keyword arguments are the metric's parameters (another ``judge``, ``cache_mode``, ...).
"""

from __future__ import annotations

from typing import Any

import evalcore
from evalcore.plugin import Metric

__all__ = ["CompleteAndGrounded", "SemanticF1"]

_JUDGE_SETTINGS = ("judge", "backend", "base_url", "model")


def SemanticF1(threshold: float = 0.66, decompositional: bool = False, **params: Any) -> Metric:  # noqa: N802
    """DSPy's ``SemanticF1(threshold=0.66, decompositional=False)`` as ``judge/semantic_f1``."""
    return _metric("judge/semantic_f1", threshold=threshold, decompositional=decompositional, **params)


def CompleteAndGrounded(threshold: float = 0.66, **params: Any) -> Metric:  # noqa: N802
    """DSPy's ``CompleteAndGrounded(threshold=0.66)`` as ``judge/complete_and_grounded``."""
    return _metric("judge/complete_and_grounded", threshold=threshold, **params)


def _metric(metric_id: str, **params: Any) -> Metric:
    if not any(params.get(name) is not None for name in _JUDGE_SETTINGS):
        params["judge"] = "dspy"  # DSPy's metrics judge with DSPy's LM
    return evalcore.get_metric(metric_id, **params)
