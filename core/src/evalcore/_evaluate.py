"""``evalcore.evaluate``: the public entry to the engine (see :mod:`evalcore._engine`)."""

from __future__ import annotations

from ._engine.entry import aevaluate, evaluate
from ._engine.result import EvaluationResult

__all__ = ["EvaluationResult", "aevaluate", "evaluate"]
