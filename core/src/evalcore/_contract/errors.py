"""The errors evalcore raises: one tree under :class:`EvalcoreError`.

Every error evalcore raises on purpose, for bad input, a bad parameter or setting, or a model
backend that fails, derives from ``EvalcoreError``, names its place (``file:line``, record id,
field, or metric id and parameter) and prints as one line: ``except evalcore.EvalcoreError``
catches them all, and the ``evalcore`` command prints each as one ``error: ...`` line (a
traceback only with ``--debug``). Where callers may expect a built-in exception, a class also
derives from it (an ``InputError`` is a ``ValueError``)::

    EvalcoreError
    ├── InputError (ValueError) .............. bad input data; names file:line or record id, and field
    │   ├── ExpressionError .................. evalcore-checks: an expression not allowed, unparsable or failing
    │   ├── JournalError ..................... a samples journal is damaged or was changed after it was written
    │   └── MetricMismatchError .............. compared runs computed a metric by different versions or parameters
    ├── ParameterError (ValueError) .......... a parameter or setting; names the metric id and parameter
    │   ├── MetricIdError .................... a metric id, or the parameters written in it, cannot be parsed
    │   └── SetupError ....................... a metric cannot be set up (no backend configured, unknown model)
    │       └── JudgeConfigError ............. evalcore-judge: the judge backend settings
    ├── UnknownMetricError (LookupError) ..... no installed metric has this id (with close matches)
    ├── AmbiguousMetricError (LookupError) ... a bare metric name matches several namespaces, or names a metric set
    ├── MetricConflictError (LookupError) .... two distributions claim one metric id or namespace
    ├── SpecError (ValueError) ............... a metric spec field is invalid; names the field (and the spec)
    ├── PluginError .......................... a plugin failed to load (strict mode)
    ├── OptionError .......................... an evaluation option is out of range or inconsistent
    ├── OutputError .......................... an output cannot be written there (an input, another run's journal,
    │                                          a special file), or writing it failed
    ├── ResumeError .......................... a journal cannot be resumed
    ├── ExecutorError ........................ an executor cannot start or reach its workers
    │   └── RayUnavailable ................... evalcore-ray: executor="ray" without a reachable Ray
    ├── RecordMismatchError .................. compared runs do not cover the same records
    ├── MissingStatsError .................... a paired test needs scipy
    ├── StateCodecError (ValueError) ......... a corpus state cannot be journalled or read back
    ├── ScoringError (RuntimeError) .......... a metric could not score what it was called on
    ├── TrackingError ........................ a run could not be logged to a tracker (client missing, store refused)
    ├── BackendError ......................... evalcore-http: a call to a model backend failed (names the URL)
    │   ├── BackendUnreachable ............... no connection (retryable)
    │   ├── BackendTimeout ................... no answer within the time limit (retryable)
    │   ├── RateLimited ...................... HTTP 429 (retryable)
    │   ├── ServerError ...................... HTTP 5xx (retryable)
    │   ├── AuthenticationError .............. HTTP 401 or 403: a missing or wrong API key
    │   ├── RequestRejected .................. another HTTP 4xx (unknown model, prompt too long)
    │   └── MalformedResponse ................ not the JSON an OpenAI-compatible API answers
    ├── UnparseableJudgement (ValueError) .... evalcore-judge: a judge's answer holds no unambiguous score
    │   └── InvalidAnswer .................... evalcore-judge: an answer and its repair failed the answer's schema
    ├── DSPyNotConfigured .................. evalcore-judge: the judge is DSPy's LM and none is configured
    ├── CommandError (RuntimeError) .......... evalcore-outcome: a command could not be run to completion
    └── ModelUnavailable (RuntimeError) ...... evalcore-semantic: an embedding model cannot be loaded

Outside the tree, on purpose:

* :class:`SkipSample` is a control-flow signal, not an error, and derives from ``Exception``
  only: a metric raises it to skip one sample with a reason, and the runner records a
  ``skipped`` score. It reaches a caller only from a DSPy-style call (``metric(gold, pred)``)
  on a pair the metric skips. ``except EvalcoreError`` does not catch it.
* ``DeprecatedParameterWarning`` (a ``FutureWarning``) is a warning: an old parameter name
  still works.
* An exception raised inside a metric while it scores a sample is not raised at all: it
  becomes that sample's ``error`` score, with the exception's type and message.
* Python's own exceptions stay where Python's protocols expect them: ``TypeError`` for an
  argument of the wrong type in code, ``KeyError`` from mapping-style lookups
  (``get_path``, a comparison's entries), jsonschema's ``SchemaError`` from
  ``schema_validator``, and ``ValueError`` from the dependency-free helpers of
  ``evalcore.text`` and ``evalcore.vectors``. An invalid ``MetricSpec`` field, made by hand or
  by a plugin, raises ``SpecError`` (also a ``ValueError``) naming the field.
"""

from __future__ import annotations

from collections.abc import Sequence

from evalcore._lazy import publish


class EvalcoreError(Exception):
    """Base class of every error evalcore raises on purpose; ``str()`` is one line (line breaks
    in a message, e.g. from a server's answer, become spaces)."""

    def __str__(self) -> str:
        text = super().__str__()
        if "\n" in text or "\r" in text:
            text = " ".join(part.strip() for part in text.splitlines() if part.strip())
        return text


class SpecError(EvalcoreError, ValueError):
    """A metric spec is invalid: a field of a :class:`~evalcore.plugin.MetricSpec` being made (the
    message starts with the field), or a plugin's registration (the message names the spec)."""


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
    """A bare metric name matches metrics in several namespaces, or names a metric set (several
    metrics: ``metric_set`` is its name) where one metric is asked for."""

    def __init__(self, metric_id: str, candidates: Sequence[str], *, metric_set: str | None = None) -> None:
        self.metric_id = metric_id
        self.candidates = list(candidates)
        what = "is ambiguous" if metric_set is None else (
            f"names the metric set {metric_set!r} of {len(self.candidates)} metrics (a list of metric "
            f"ids takes them all, as `evalcore evaluate -m {metric_set}`)")
        super().__init__(
            f"metric name {metric_id!r} {what}; use one of " + ", ".join(repr(c) for c in self.candidates)
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
    """A parameter or setting is unknown, missing, of the wrong type or out of range; the message
    names the metric id (or the function or setting) and the parameter."""


class SetupError(ParameterError):
    """A metric cannot be set up from its parameters and environment (no backend configured,
    unknown model); the message names the metric id and the parameter."""

    def __init__(self, metric_id: str, param: str, message: str) -> None:
        self.metric_id = metric_id
        self.param = param
        self.reason = message
        super().__init__(f"{metric_id}: parameter {param!r}: {message}")


class MetricIdError(ParameterError):
    """A metric id, or the parameters written in it, cannot be parsed; ``suggestions`` lists the
    closest known metric ids where the registry found some (the message names them too)."""

    suggestions: Sequence[str] = ()


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


class ScoringError(EvalcoreError, RuntimeError):
    """A metric could not score what it was called on: a DSPy-style call on a pair it fails on,
    a batch answered with the wrong number of results, or no labelled sample scored; the
    message names the metric id and the first reason."""


class ExecutorError(EvalcoreError):
    """An executor (``executor=NAME``) cannot start, or cannot reach the machines it scores on."""


class TrackingError(EvalcoreError):
    """A run could not be logged to a tracker (``log_to=NAME``): its client is not installed, its
    store or server refused, or no installed tracker has that name."""


class SkipSample(Exception):
    """Raised by a metric to skip one sample, with a reason (e.g. no gold documents).

    A control-flow signal, not an error: it derives from ``Exception``, not :class:`EvalcoreError`."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


publish(globals())
