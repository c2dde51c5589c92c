# ruff: noqa: I001 - grouped by topic: the order is the namespace's __all__
# The public names of ``evalcore``, each re-exported from the module that defines it; ``evalcore``
# reads this stub at import (``evalcore._lazy.attach_stub``) and imports each name on first use.

from evalcore._version import __version__ as __version__

# metrics: listing, describing, building
from evalcore._registry.api import list_metrics as list_metrics
from evalcore._registry.api import metric_keys as metric_keys
from evalcore._registry.api import describe as describe
from evalcore._registry.api import get_metric as get_metric
from evalcore._registry.api import expand_metrics as expand_metrics
from evalcore._registry.api import list_plugins as list_plugins
from evalcore._registry.functions import register_metric as register_metric
from evalcore._registry.registry import Registry as Registry
from evalcore._registry.info import MetricInfo as MetricInfo
from evalcore._registry.registry import PluginInfo as PluginInfo
from evalcore._registry.registry import PluginStatus as PluginStatus

# evaluating, comparing, reporting
from evalcore._engine.entry import evaluate as evaluate
from evalcore._engine.entry import aevaluate as aevaluate
from evalcore._engine.result import EvaluationResult as EvaluationResult
from evalcore._contract.records import Record as Record
from evalcore._contract.budget import Budget as Budget
from evalcore_dropins.scorer import Scorer as Scorer
from evalcore_report.write import write_report as write_report
from evalcore_report.trend import write_trend as write_trend

# statistics over finished runs (evalcore-stats)
from evalcore_stats.comparing import compare as compare
from evalcore_stats.result import Comparison as Comparison
from evalcore_stats.arena import arena as arena
from evalcore_stats.arena import Arena as Arena
from evalcore_stats.ppi import ppi as ppi
from evalcore_stats.ppi import ppi_differences as ppi_differences
from evalcore_stats.active import active_probabilities as active_probabilities
from evalcore_stats.active import active_mean as active_mean
from evalcore_stats.active import labels_needed as labels_needed
from evalcore_stats.labels import read_labels as read_labels
from evalcore_stats.power import plan_sample_size as plan_sample_size
from evalcore_stats.gate import gate as gate
from evalcore_stats.history import runs as runs
from evalcore_stats.history import trend as trend
from evalcore_stats.history import locate_runs as locate_runs
from evalcore_stats.history import RunRecord as RunRecord
from evalcore_stats.history import RunMetric as RunMetric
from evalcore_stats.history import TrendPoint as TrendPoint

# the metric contract
from evalcore._contract.metric import Metric as Metric
from evalcore._contract.metric import SampleMetric as SampleMetric
from evalcore._contract.metric import BatchMetric as BatchMetric
from evalcore._contract.metric import CorpusMetric as CorpusMetric
from evalcore._contract.metric import FeedbackScore as FeedbackScore
from evalcore._contract.scores import Score as Score
from evalcore._contract.scores import Status as Status
from evalcore._contract.spec import MetricSpec as MetricSpec
from evalcore._contract.spec import ParamSpec as ParamSpec
from evalcore._contract.spec import MetricAlias as MetricAlias
from evalcore._contract.spec import TargetCategory as TargetCategory
from evalcore._contract.spec import Tier as Tier
from evalcore._contract.spec import Direction as Direction
from evalcore._contract.spec import Granularity as Granularity

# errors (the tree is drawn in evalcore._contract.errors) and warnings
from evalcore._contract.errors import EvalcoreError as EvalcoreError
from evalcore._contract.errors import InputError as InputError
from evalcore._contract.errors import ParameterError as ParameterError
from evalcore._contract.errors import SetupError as SetupError
from evalcore._contract.errors import MetricIdError as MetricIdError
from evalcore._contract.errors import UnknownMetricError as UnknownMetricError
from evalcore._contract.errors import AmbiguousMetricError as AmbiguousMetricError
from evalcore._contract.errors import MetricConflictError as MetricConflictError
from evalcore._contract.errors import SpecError as SpecError
from evalcore._contract.errors import PluginError as PluginError
from evalcore._contract.errors import ScoringError as ScoringError
from evalcore._contract.errors import TrackingError as TrackingError
from evalcore._contract.errors import ExecutorError as ExecutorError
from evalcore_stats.compare import RecordMismatchError as RecordMismatchError
from evalcore._contract.errors import SkipSample as SkipSample
from evalcore._contract.vocabulary import DeprecatedParameterWarning as DeprecatedParameterWarning
from evalcore._engine.diagnose import NothingScoredWarning as NothingScoredWarning
