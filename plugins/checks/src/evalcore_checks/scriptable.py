"""``checks/custom_scriptable``: a safe boolean expression over run fields and earlier metrics (seed 004)."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

from evalcore.plugin import Record, SampleMetric, Score, SkipSample

from .expression import Expression, ExpressionError, compile_expression, preview


def resolver(prediction: Record) -> Any:
    """Name lookup: a field of the prediction (run), else an earlier metric's value on this record."""
    metrics = prediction.get("metrics")
    metrics = metrics if isinstance(metrics, Mapping) else {}

    def lookup(name: str) -> Any:
        if name in prediction:
            return prediction[name]
        if name in metrics:
            value = metrics[name]
            if isinstance(value, Mapping):
                value = value.get("value", value.get("score"))
            if value is None:
                raise SkipSample(f"earlier metric {name!r} has no value on this record")
            return value
        raise ExpressionError(
            f"unknown name {name!r}: not a field of the prediction nor an earlier metric "
            f"(fields: {_listing(prediction)}; metrics: {_listing(metrics)})"
        )

    return lookup


def _listing(names: Mapping[str, Any], shown: int = 20) -> str:
    """Up to ``shown`` of the names (sorted), and how many more there are."""
    if not names:
        return "none"
    first = sorted(map(str, itertools.islice(names, 10 * shown)))[:shown]
    more = len(names) - len(first)
    return ", ".join(first) + (f" and {more} more" if more > 0 else "")


class CustomScriptable(SampleMetric):
    """1.0 when the expression is true for the record, 0.0 when false."""

    def setup(self) -> None:
        self._compiled: Expression | None = None
        self._error: ExpressionError | None = None
        if self.params["expression"] is not None:
            try:
                self._compiled = compile_expression(self.params["expression"])
            except ExpressionError as exc:
                self._error = exc

    def _expression(self, example: Record) -> Expression:
        if self._error is not None:
            raise self._error
        if self._compiled is not None:
            return self._compiled
        source = example.get("expression")
        if source is None:
            raise SkipSample("no expression (parameter 'expression' or example.expression)")
        return compile_expression(source)

    def score(self, example: Record, prediction: Record) -> Score:
        expression = self._expression(example)
        result = expression.evaluate(resolver(prediction))
        if not isinstance(result, bool):
            raise ExpressionError(
                f"the expression must be true or false; it gave {type(result).__name__} {preview(result)}"
            )
        return Score(float(result), feedback=f"{expression.source} -> {result}",
                     details={"result": result, "expression": expression.source})
