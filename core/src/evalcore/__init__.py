"""evalcore: evaluation metrics for ML, LLM, RAG and agent systems.

Importing this package loads nothing else: plugins are discovered the first time a
function such as :func:`list_metrics` or :func:`get_metric` needs them, and each public
name is imported from its module on first access.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import lazy_exports
from ._version import __version__

_EXPORTS = {
    # registry and function-style API
    "list_metrics": "._api", "metric_keys": "._api", "list_plugins": "._api",
    "describe": "._api", "get_metric": "._api", "expand_metrics": "._api", "register_metric": "._functions",
    "Registry": "._registry", "MetricInfo": "._registry", "PluginInfo": "._registry",
    "PluginStatus": "._registry",
    # evaluation
    "evaluate": "._evaluate", "aevaluate": "._evaluate", "EvaluationResult": "._evaluate",
    "Scorer": "._scorer", "Budget": "._budget",
    "read_records": "._records", "Record": "._records",
    "compare": "._compare", "Comparison": "._compare", "RecordMismatchError": "._compare",
    "write_report": "._report",
    "aggregate": "._stats", "aggregate_metric_values": "._stats", "aggregate_all": "._stats",
    # the metric contract
    "Metric": "._metric", "SampleMetric": "._metric", "BatchMetric": "._metric",
    "CorpusMetric": "._metric", "Origin": "._metric", "FeedbackScore": "._metric",
    "Score": "._result", "Status": "._result",
    "MetricSpec": "._spec", "ParamSpec": "._spec", "MetricAlias": "._spec", "TargetCategory": "._spec",
    "Tier": "._spec", "Direction": "._spec", "Granularity": "._spec",
    "hookimpl": "._hooks", "PLUGIN_API_VERSION": "._hooks",
    # errors
    "EvalcoreError": "._errors", "InputError": "._errors", "ParameterError": "._errors",
    "UnknownMetricError": "._errors", "AmbiguousMetricError": "._errors",
    "MetricConflictError": "._errors", "MetricIdError": "._errors", "PluginError": "._errors",
    "SpecError": "._errors", "SkipSample": "._errors", "SetupError": "._errors",
}

__all__ = ["__version__", *_EXPORTS]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from ._api import describe, expand_metrics, get_metric, list_metrics, list_plugins, metric_keys
    from ._budget import Budget
    from ._compare import Comparison, RecordMismatchError, compare
    from ._errors import (
        AmbiguousMetricError,
        EvalcoreError,
        InputError,
        MetricConflictError,
        MetricIdError,
        ParameterError,
        PluginError,
        SetupError,
        SkipSample,
        SpecError,
        UnknownMetricError,
    )
    from ._evaluate import EvaluationResult, aevaluate, evaluate
    from ._functions import register_metric
    from ._hooks import PLUGIN_API_VERSION, hookimpl
    from ._metric import BatchMetric, CorpusMetric, FeedbackScore, Metric, Origin, SampleMetric
    from ._records import Record, read_records
    from ._registry import MetricInfo, PluginInfo, PluginStatus, Registry
    from ._report import write_report
    from ._result import Score, Status
    from ._scorer import Scorer
    from ._spec import Direction, Granularity, MetricAlias, MetricSpec, ParamSpec, TargetCategory, Tier
    from ._stats import aggregate, aggregate_all, aggregate_metric_values
