"""A drop-in for the benchmark engine's metric registry, on top of evalcore's metrics.

The API is the document's own::

    register_metric(key, fn)        # fn(run, context) -> dict
    get_metric(key)                 # -> fn(run, context) -> dict
    list_metrics() / metric_keys()  # -> list[str]
    apply_metrics(run, context, keys)          # earlier results passed on in run["metrics"]
    aggregate_metric_values(runs, key) / aggregate_all(runs, keys)

``run`` is a RunResult-like dict (``duration_ms``, ``status``, ``output``, ``usage``,
``cost``, ``metrics``); ``context`` holds the knobs (``latency_threshold_ms``,
``expected_output``, ``keywords``, ``score_value``, ``expression`` ...), at its top level
or under ``context["params"]`` (scenario parameters; top-level keys win).

The eight built-ins (``technical_performance``, ``accuracy_score``, ``keyword_coverage``,
``policy_compliance``, ``robustness``, ``cost_efficiency``, ``completeness``,
``custom_scriptable``) run the evalcore metrics of the same name with those knobs, read the
document's default input paths (``output.summary`` for texts, ``output.policy_violations``,
the fields of ``output`` for completeness; a ``field_path`` knob is read under ``output``
unless it names a top-level run field) and answer the document's output dicts. The knobs keep
the benchmark engine's names and are passed on under evalcore's names (:data:`KNOB_PARAMS`:
``field_path`` is ``field``, ``case_insensitive`` is ``ignore_case`` ...). A metric
that raises answers ``{"error": "Type: message"}`` instead of failing the pipeline.
Functions registered here are also registered with evalcore (namespace ``local``), so
:func:`evalcore.evaluate` can use them.
"""

from __future__ import annotations

import math
import numbers
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import evalcore
from evalcore import EvalcoreError, Status

__all__ = [
    "aggregate_all", "aggregate_metric_values", "apply_metrics", "get_metric", "list_metrics", "metric_keys",
    "register_metric",
]

EngineFn = Callable[[dict[str, Any], "dict[str, Any] | None"], dict[str, Any]]

# key -> (evalcore metric id, the output field that is its value, the knobs it takes)
BUILTINS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "technical_performance": ("system/technical_performance", "fast_enough",
                              ("latency_threshold_ms", "ok_statuses", "timing_key", "source")),
    "accuracy_score": ("checks/accuracy_score", "accuracy",
                       ("mode", "expected_output", "expected_path", "case_insensitive", "field_path")),
    "keyword_coverage": ("checks/keyword_coverage", "coverage",
                         ("keywords", "unique_match", "field_path", "case_insensitive", "whole_word")),
    "policy_compliance": ("checks/policy_compliance", "compliant", ("field_path",)),
    "robustness": ("robustness/robustness", "robustness_score", ("mode", "expected_signal")),
    "cost_efficiency": ("system/cost_efficiency", "efficiency",
                        ("score_value", "score_field_path", "cost_field_path", "token_to_cost_rate")),
    "completeness": ("checks/completeness", "completeness", ("required_fields", "allow_nested", "field_path")),
    "custom_scriptable": ("checks/custom_scriptable", "result", ("expression",)),
}
# The benchmark engine's knob -> evalcore's parameter, where the names differ.
KNOB_PARAMS = {
    "field_path": "field", "case_insensitive": "ignore_case", "expected_path": "expected_field",
    "timing_key": "timing_field", "score_field_path": "score_field", "cost_field_path": "cost_field",
}
# The document's default input paths, where evalcore's default differs.
DEFAULT_PATHS = {
    "accuracy_score": "output.summary", "keyword_coverage": "output.summary",
    "policy_compliance": "output.policy_violations", "completeness": "output",
}
_registered: dict[str, EngineFn] = {}
_lock = threading.Lock()


def register_metric(key: str, fn: EngineFn) -> None:
    """Register ``fn(run, context) -> dict`` under ``key`` (replacing an earlier function)."""
    if not callable(fn):
        raise EvalcoreError(f"engine metric {key!r}: fn must be callable; got {type(fn).__name__}")
    with _lock:
        _registered[key] = fn
    evalcore.register_metric(key, fn, style="engine", replace=True)


def get_metric(key: str) -> EngineFn:
    """The function registered under ``key``, or the built-in of that name."""
    with _lock:
        fn = _registered.get(key)
    if fn is not None:
        return fn
    if key in BUILTINS:
        return _builtin(key)
    raise EvalcoreError(f"unknown engine metric {key!r}; known: {', '.join(list_metrics())}")


def list_metrics() -> list[str]:
    """Every key :func:`get_metric` answers, sorted."""
    with _lock:
        return sorted(set(BUILTINS) | set(_registered))


metric_keys = list_metrics


def apply_metrics(run: Mapping[str, Any], context: Mapping[str, Any] | None, keys: Sequence[str]) -> dict[str, Any]:
    """Each metric's output in order, later metrics seeing earlier ones in ``run["metrics"]``.

    A metric that raises answers ``{"error": "Type: message"}``; the others still run.
    """
    results: dict[str, Any] = dict(run.get("metrics") or {})
    for key in keys:
        try:
            output = get_metric(key)({**run, "metrics": dict(results)}, dict(context or {}))
        except Exception as exc:  # noqa: BLE001 - per-metric error capture, as the engine does
            output = {"error": f"{type(exc).__name__}: {exc}"}
        results[key] = output
    return results


def _builtin(key: str) -> EngineFn:
    metric_id, value_field, knob_names = BUILTINS[key]

    def fn(run: dict[str, Any], context: dict[str, Any] | None = None) -> dict[str, Any]:
        knobs = _knobs(context)
        given = {name: knobs[name] for name in knob_names if name in knobs}
        if "field_path" in knob_names:
            path = given.get("field_path", DEFAULT_PATHS.get(key))
            if path is not None:
                given["field_path"] = _run_path(run, path)
        params = {KNOB_PARAMS.get(name, name): value for name, value in given.items()}
        score = evalcore.get_metric(metric_id, **params).score_one(knobs, _prediction(run))
        details = dict(score.details)
        if score.status is Status.ERROR:
            return {**details, "error": f"{score.error_type}: {score.error_message}"}
        if score.status is Status.SKIPPED:
            return {value_field: None, "supported": False, "reason": score.reason, **details}
        return {value_field: score.value, **details} if value_field not in details else details

    fn.__name__ = key
    fn.__doc__ = f"The benchmark engine's {key!r}, computed by evalcore's {metric_id}."
    return fn


def _knobs(context: Mapping[str, Any] | None) -> dict[str, Any]:
    context = dict(context or {})
    params = context.get("params")
    return {**(params if isinstance(params, Mapping) else {}), **context}


def _run_path(run: Mapping[str, Any], path: str) -> str:
    """A path read under ``output`` unless it starts with a top-level run field."""
    head = path.split(".", 1)[0]
    return path if head in run or "output" not in run else f"output.{path}"


def _prediction(run: Mapping[str, Any]) -> dict[str, Any]:
    """The run as an evalcore prediction: earlier metrics by their value, and a ``response``
    from ``output.summary`` (or a text output) when the run has none."""
    prediction = dict(run)
    metrics = run.get("metrics")
    if isinstance(metrics, Mapping):
        prediction["metrics"] = {k: _value_of(k, v) for k, v in metrics.items()}
    output = run.get("output")
    if "response" not in prediction:
        if isinstance(output, Mapping) and isinstance(output.get("summary"), str):
            prediction["response"] = output["summary"]
        elif isinstance(output, str):
            prediction["response"] = output
    return prediction


def _value_of(key: str, output: Any) -> Any:
    """The value of an earlier metric's output dict (its document field, else its only number)."""
    if not isinstance(output, Mapping):
        return output
    if key in BUILTINS and BUILTINS[key][1] in output:
        return output[BUILTINS[key][1]]
    for name in ("value", "score"):
        if name in output:
            return output[name]
    found = [v for v in output.values() if isinstance(v, numbers.Real)]
    return found[0] if len(found) == 1 else None


def aggregate_metric_values(runs: Sequence[Mapping[str, Any]], metric_key: str) -> dict[str, Any]:
    """Mean, min, max and count of every numeric (and boolean, as a rate) field of one
    metric's outputs over ``runs`` (read from ``run["metrics"][metric_key]``), with the
    number of runs that have the metric, that errored, and that lack it."""
    fields: dict[str, list[float]] = {}
    present = errors = 0
    for run in runs:
        output = (run.get("metrics") or {}).get(metric_key)
        if not isinstance(output, Mapping):
            continue
        present += 1
        if output.get("error"):
            errors += 1
            continue
        for name, value in output.items():
            if isinstance(value, numbers.Real) and not (isinstance(value, float) and math.isnan(value)):
                fields.setdefault(name, []).append(float(value))
    stats = {name: {"mean": sum(values) / len(values), "min": min(values), "max": max(values),
                    "count": len(values)} for name, values in fields.items()}
    return {"metric": metric_key, "runs": len(runs), "present": present, "errors": errors,
            "missing": len(runs) - present, "fields": stats}


def aggregate_all(runs: Sequence[Mapping[str, Any]], metric_keys: Sequence[str]) -> dict[str, Any]:
    """:func:`aggregate_metric_values` for each key."""
    return {key: aggregate_metric_values(runs, key) for key in metric_keys}

