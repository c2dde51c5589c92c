"""Type names shared by the statistics modules."""

from __future__ import annotations

from typing import Any

RunLike = Any
"""An :class:`~evalcore.EvaluationResult`, a :class:`~evalcore.plugin.Run`, or the path of a JSON report or
samples journal."""
