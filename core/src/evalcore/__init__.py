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
    "list_metrics": "._registry.api", "metric_keys": "._registry.api", "list_plugins": "._registry.api",
    "describe": "._registry.api", "get_metric": "._registry.api", "expand_metrics": "._registry.api", "register_metric": "._registry.functions",
    "Registry": "._registry.registry", "MetricInfo": "._registry.registry", "PluginInfo": "._registry.registry",
    "PluginStatus": "._registry.registry",
    # evaluation
    "evaluate": "._engine.entry", "aevaluate": "._engine.entry", "EvaluationResult": "._engine.result",
    "Scorer": "._compat.scorer", "Budget": "._contract.budget",
    "read_records": "._contract.records", "Record": "._contract.records",
    "compare": "._compare", "Comparison": "._compare", "RecordMismatchError": "._compare",
    "write_report": "._report",
    "aggregate": "._engine.stats", "aggregate_metric_values": "._engine.stats", "aggregate_all": "._engine.stats",
    # the metric contract
    "Metric": "._contract.metric", "SampleMetric": "._contract.metric", "BatchMetric": "._contract.metric",
    "CorpusMetric": "._contract.metric", "Origin": "._contract.metric", "FeedbackScore": "._contract.metric",
    "Score": "._contract.scores", "Status": "._contract.scores",
    "MetricSpec": "._contract.spec", "ParamSpec": "._contract.spec", "MetricAlias": "._contract.spec", "TargetCategory": "._contract.spec",
    "Tier": "._contract.spec", "Direction": "._contract.spec", "Granularity": "._contract.spec",
    "hookimpl": "._contract.hooks", "PLUGIN_API_VERSION": "._contract.hooks",
    # errors
    "EvalcoreError": "._contract.errors", "InputError": "._contract.errors", "ParameterError": "._contract.errors",
    "UnknownMetricError": "._contract.errors", "AmbiguousMetricError": "._contract.errors",
    "MetricConflictError": "._contract.errors", "MetricIdError": "._contract.errors", "PluginError": "._contract.errors",
    "SpecError": "._contract.errors", "SkipSample": "._contract.errors", "SetupError": "._contract.errors",
}

__all__ = ["__version__", *_EXPORTS]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from evalcore._compat.scorer import Scorer
    from evalcore._contract.budget import Budget
    from evalcore._contract.errors import (
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
    from evalcore._contract.hooks import PLUGIN_API_VERSION, hookimpl
    from evalcore._contract.metric import BatchMetric, CorpusMetric, FeedbackScore, Metric, Origin, SampleMetric
    from evalcore._contract.records import Record, read_records
    from evalcore._contract.scores import Score, Status
    from evalcore._contract.spec import Direction, Granularity, MetricAlias, MetricSpec, ParamSpec, TargetCategory, Tier
    from evalcore._engine.entry import aevaluate, evaluate
    from evalcore._engine.result import EvaluationResult
    from evalcore._engine.stats import aggregate, aggregate_all, aggregate_metric_values
    from evalcore._registry.api import describe, expand_metrics, get_metric, list_metrics, list_plugins, metric_keys
    from evalcore._registry.functions import register_metric
    from evalcore._registry.registry import MetricInfo, PluginInfo, PluginStatus, Registry

    from ._compare import Comparison, RecordMismatchError, compare
    from ._report import write_report
