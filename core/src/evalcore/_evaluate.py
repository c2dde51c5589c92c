"""``evalcore.evaluate``: the public entry to the engine (see :mod:`evalcore._engine`)."""

from __future__ import annotations

from ._engine.result import EvaluationResult
from ._engine.run import aevaluate, evaluate

__all__ = ["EvaluationResult", "aevaluate", "evaluate"]
