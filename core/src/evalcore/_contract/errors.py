"""Exceptions raised by evalcore. All derive from :class:`EvalcoreError`."""

from __future__ import annotations

from collections.abc import Sequence


class EvalcoreError(Exception):
    """Base class of every error evalcore raises on purpose."""


class SpecError(EvalcoreError):
    """A metric spec is invalid (raised while validating a plugin's registration)."""


class UnknownMetricError(EvalcoreError, LookupError):
    """No installed metric has this id; ``suggestions`` lists close matches."""

    def __init__(self, metric_id: str, suggestions: Sequence[str] = ()) -> None:
        self.metric_id = metric_id
        self.suggestions = list(suggestions)
        message = f"unknown metric {metric_id!r}"
        if self.suggestions:
            message += "; did you mean " + ", ".join(repr(s) for s in self.suggestions) + "?"
        super().__init__(message)


class AmbiguousMetricError(EvalcoreError, LookupError):
    """A bare metric name matches metrics in several namespaces."""

    def __init__(self, metric_id: str, candidates: Sequence[str]) -> None:
        self.metric_id = metric_id
        self.candidates = list(candidates)
        super().__init__(
            f"metric name {metric_id!r} is ambiguous; use one of "
            + ", ".join(repr(c) for c in self.candidates)
        )


class MetricConflictError(EvalcoreError, LookupError):
    """Two distributions claim the same metric id or namespace."""

    def __init__(self, metric_id: str, distributions: Sequence[str]) -> None:
        self.metric_id = metric_id
        self.distributions = list(distributions)
        super().__init__(
            f"metric {metric_id!r} is claimed by several distributions: "
            + ", ".join(self.distributions)
            + "; uninstall all but one"
        )


class ParameterError(EvalcoreError, ValueError):
    """A metric parameter is unknown, missing, of the wrong type or out of range."""


class SetupError(ParameterError):
    """A metric cannot be set up from its parameters and environment (no backend configured,
    unknown model); the message names the metric id and the parameter."""

    def __init__(self, metric_id: str, param: str, message: str) -> None:
        self.metric_id = metric_id
        self.param = param
        self.reason = message
        super().__init__(f"{metric_id}: parameter {param!r}: {message}")


class MetricIdError(ParameterError):
    """A metric id, or the parameters written in it, cannot be parsed."""


class PluginError(EvalcoreError):
    """A plugin failed to load (raised only in strict mode)."""


class InputError(EvalcoreError, ValueError):
    """Bad input data; the message names the source (file and line, or record) and the field."""

    def __init__(self, message: str, *, source: str | None = None, field: str | None = None) -> None:
        self.source = source
        self.field = field
        self.reason = message
        parts = [p for p in (source, field) if p]
        super().__init__(": ".join([*parts, message]))


class SkipSample(Exception):
    """Raised by a metric to skip one sample, with a reason (e.g. no gold documents)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)
