"""Function-style metrics: plain callables registered by key (the benchmark engine's registry) or DSPy-style.

Two calling conventions are accepted:

* DSPy: ``fn(gold, pred, trace=None)`` returning a bool, a float, ``(score, feedback)`` or
  an object with ``score``/``feedback`` attributes. ``gold`` and ``pred`` are records with
  both item and attribute access; DSPy's ``answer`` field is available on both.
* Engine: ``fn(run, context)`` returning a dict such as ``{"accuracy": 1.0, "mode": "exact"}``.
  ``run`` is the prediction (with ``run["metrics"]`` holding earlier metrics' values),
  ``context`` the example. The score is ``value_key``, else ``score``/``value``, else the
  dict's only number; the whole dict is kept in the details.
"""

from __future__ import annotations

import functools
import inspect
import numbers
from collections.abc import Callable, Mapping
from typing import Any, Literal

import attrs

from evalcore._contract.errors import ParameterError
from evalcore._contract.metric import Metric, Origin, Record, SampleMetric
from evalcore._contract.scores import Score
from evalcore._contract.spec import Direction, MetricSpec, Tier
from evalcore._lazy import publish

from .info import MetricInfo
from .registry import default_registry

Style = Literal["auto", "dspy", "engine"]
LOCAL_NAMESPACE = "local"


class RecordView(dict):
    """A dict whose fields can also be read as attributes (like ``dspy.Example``)."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


def detect_style(fn: Callable[..., Any]) -> Literal["dspy", "engine"]:
    """``engine`` for ``fn(run, context)``, ``dspy`` otherwise."""
    try:
        names = [p.name for p in inspect.signature(fn).parameters.values()]
    except (TypeError, ValueError):
        return "dspy"
    return "engine" if names[:2] == ["run", "context"] else "dspy"


class FunctionMetric(SampleMetric):
    """A metric backed by a plain callable."""

    io_bound = True  # a callable may wait on anything (an API, a subprocess): it keeps the worker threads

    def __init__(
        self, spec: MetricSpec, params: Mapping[str, Any] | None, origin: Origin | None, *,
        fn: Callable[..., Any], style: Literal["dspy", "engine"], value_key: str | None = None,
    ) -> None:
        self.fn = fn
        self.style = style
        self.value_key = value_key
        super().__init__(spec, params, origin)

    def score(self, example: Record, prediction: Record) -> Any:
        if self.style == "engine":
            output = self.fn(dict(prediction), dict(example))
            return _engine_score(output, self.value_key)
        gold = RecordView(example)
        gold.setdefault("answer", example.get("reference_answer"))
        pred = RecordView(prediction)
        pred.setdefault("answer", prediction.get("response"))
        return self.fn(gold, pred)


def _engine_score(output: Any, value_key: str | None) -> Any:
    if not isinstance(output, Mapping):
        return output
    if value_key is not None:
        if value_key not in output:
            raise ParameterError(f"parameter 'value_key': the metric's output has no {value_key!r}; "
                                 f"it has {', '.join(output)}")
        value = output[value_key]
    else:
        value = _pick_value(output)
    if value is None:
        reason = str(output.get("reason") or "metric reported no value")
        return attrs.evolve(Score.skipped(reason), details=dict(output))
    return Score(float(value), details=dict(output))


def _pick_value(output: Mapping[str, Any]) -> Any:
    for key in ("score", "value"):
        if key in output:
            return output[key]
    numbers_ = [k for k, v in output.items() if isinstance(v, numbers.Real) and not isinstance(v, bool)]
    if len(numbers_) == 1:
        return output[numbers_[0]]
    bools = [k for k, v in output.items() if isinstance(v, bool)]
    if not numbers_ and len(bools) == 1:
        return output[bools[0]]
    raise ParameterError(
        "cannot tell which field of the metric output is the score "
        f"({', '.join(output)}); register it with value_key=..."
    )


def function_spec(
    key: str, fn: Callable[..., Any], *, summary: str | None = None,
    direction: Direction | str = Direction.HIGHER,
    value_range: tuple[float | None, float | None] = (None, None),
    tier: Tier | str = Tier.PROXY, pass_threshold: float | None = None,
) -> MetricSpec:
    """The spec of a function-style metric registered under ``key``."""
    namespace, _, name = key.rpartition("/")
    doc = inspect.getdoc(fn) or ""
    return MetricSpec(
        name=name, namespace=namespace or LOCAL_NAMESPACE,
        implementation=f"{getattr(fn, '__module__', None) or 'local'}:{getattr(fn, '__qualname__', name)}",
        summary=summary or (doc.splitlines()[0] if doc else f"function metric {name}"),
        family="function", direction=Direction(direction), value_range=value_range,
        tier=Tier(tier), pass_threshold=pass_threshold, deterministic=False,
    )


def register_metric(
    key: str, fn: Callable[..., Any], *, style: Style = "auto", value_key: str | None = None,
    replace: bool = False, **spec_fields: Any,
) -> MetricInfo:
    """Register a plain callable as a metric under ``key`` (``name`` or ``namespace/name``).

    Bare keys go to the ``local`` namespace. Registering the same function twice is a
    no-op; another function under a taken key raises unless ``replace=True``.
    """
    resolved = detect_style(fn) if style == "auto" else style
    spec = function_spec(key, fn, **spec_fields)
    factory = functools.partial(FunctionMetric, fn=fn, style=resolved, value_key=value_key)
    return default_registry().register(spec, factory, replace=replace)


def metric_from_callable(fn: Callable[..., Any], *, style: Style = "auto") -> Metric:
    """Wrap a callable as an unregistered metric (used when one is passed to ``evaluate``)."""
    resolved = detect_style(fn) if style == "auto" else style
    name = getattr(fn, "__name__", "metric")
    name = name.lower() if name.isidentifier() and not name.startswith("<") else "metric"
    spec = function_spec(f"{LOCAL_NAMESPACE}/{name.strip('_') or 'metric'}", fn)
    return FunctionMetric(spec, {}, Origin.local(), fn=fn, style=resolved)


publish(globals())
