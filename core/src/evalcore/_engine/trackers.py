"""Trackers: where finished runs are logged (``log_to=NAME``, ``--log-to NAME``), as plugins provide them.

A tracker is a plugin component (:class:`~evalcore.plugin.TrackerSpec`): its implementation is
called with the values of its options and returns an object with the methods of :class:`Tracker`.
It is opened before any record is scored, so a missing client or a wrong address costs no
evaluation: a tracker's implementation checks that its destination answers, within seconds, when it
is made, and bounds the time of every later call, so that logging never waits on a silent server.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from evalcore._contract.errors import EvalcoreError, TrackingError
from evalcore._lazy import publish

if TYPE_CHECKING:
    from evalcore._registry.registry import Registry

    from .result import EvaluationResult


class Tracker(Protocol):
    """What a tracker's implementation returns."""

    def log_evaluation(self, result: EvaluationResult) -> str:
        """Log one finished run; return where it went, in a few words (``MLflow run 3f2a at
        file:///tmp/mlruns``), which the command prints as ``logged to ...``."""
        ...

    def log_comparison(self, comparison: Any, runs: Sequence[Any]) -> str:
        """Optional: log a finished comparison (:class:`~evalcore.Comparison`) of ``runs`` (the
        saved runs compared, the baseline first, each with its ``name`` and ``source``; as
        :func:`evalcore.write_report` takes them with ``comparison=``); return where it went, as
        :meth:`log_evaluation`."""
        ...


def open_tracker(name: str | None, options: Mapping[str, Any] | None = None,
                 registry: Registry | None = None) -> Tracker | None:
    """The tracker ``name`` (``None`` for none) opened with ``options`` (its options' ``dest`` names)."""
    if name is None:
        if options:
            raise TrackingError("tracker_options need log_to: the tracker they are for")
        return None
    if registry is None:
        from evalcore._registry.registry import default_registry

        registry = default_registry()
    try:
        spec = registry.component("trackers", name)
    except EvalcoreError as exc:
        raise TrackingError(f"log_to: {exc}") from None
    values = dict(options or {})
    unknown = sorted(set(values) - {option.dest for option in spec.options})
    if unknown:
        known = ", ".join(option.dest for option in spec.options) or "none"
        raise TrackingError(f"the {name} tracker has no option {', '.join(map(repr, unknown))} (options: {known})")
    tracker = spec.load()(**values)
    if not callable(getattr(tracker, "log_evaluation", None)):
        raise TrackingError(f"the {name} tracker ({spec.implementation}) made {type(tracker).__name__}, "
                            "which has no log_evaluation(result)")
    return tracker


publish(globals())
