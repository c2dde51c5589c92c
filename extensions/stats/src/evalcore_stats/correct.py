"""Multiple-comparison correction of p-values: Holm (step-down) and Bonferroni."""

from __future__ import annotations

from collections.abc import Sequence

from evalcore.plugin import ParameterError

CORRECTIONS = ("holm", "bonferroni", "none")


def adjust(p_values: Sequence[float], method: str) -> list[float]:
    """Adjusted p-values in the order given (``none`` returns them unchanged)."""
    m = len(p_values)
    if method == "none" or m == 0:
        return list(p_values)
    if method == "bonferroni":
        return [min(1.0, p * m) for p in p_values]
    if method == "holm":
        order = sorted(range(m), key=lambda i: p_values[i])
        adjusted = [0.0] * m
        running = 0.0
        for rank, i in enumerate(order):
            running = max(running, min(1.0, (m - rank) * p_values[i]))
            adjusted[i] = running
        return adjusted
    raise ParameterError(f"parameter 'correction': unknown correction {method!r}; use one of {', '.join(CORRECTIONS)}")
