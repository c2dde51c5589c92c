# ruff: noqa: I001 - grouped by topic: the order is the namespace's __all__
# The public names of ``evalcore.plugin`` (for plugin authors), each re-exported from the module that
# defines it; ``evalcore.plugin`` reads this stub at import and imports each name on first use.

# registration modules
from evalcore._contract.hooks import PLUGIN_API_VERSION as PLUGIN_API_VERSION
from evalcore._contract.hooks import hookimpl as hookimpl
from evalcore._contract.spec import MetricSpec as MetricSpec
from evalcore._contract.spec import ParamSpec as ParamSpec
from evalcore._contract.spec import MetricAlias as MetricAlias
from evalcore._contract.spec import TargetCategory as TargetCategory
from evalcore._contract.spec import Tier as Tier
from evalcore._contract.spec import Direction as Direction
from evalcore._contract.spec import Granularity as Granularity
from evalcore._contract.spec import aggregate_values as aggregate_values
from evalcore._contract.spec import MIN_GEO_MEAN as MIN_GEO_MEAN
from evalcore._contract.vocabulary import canonical_name as canonical_name
from evalcore._contract.vocabulary import DeprecatedParameterWarning as DeprecatedParameterWarning

# implementations
from evalcore._contract.metric import Metric as Metric
from evalcore._contract.metric import SampleMetric as SampleMetric
from evalcore._contract.metric import BatchMetric as BatchMetric
from evalcore._contract.metric import CorpusMetric as CorpusMetric
from evalcore._contract.array_state import Reduction as Reduction
from evalcore._contract.metric import Record as Record
from evalcore._contract.scores import Score as Score
from evalcore._contract.scores import Status as Status
from evalcore._contract.scores import ColumnScores as ColumnScores
from evalcore._contract.context import RunContext as RunContext

# errors
from evalcore._contract.errors import EvalcoreError as EvalcoreError
from evalcore._contract.errors import SkipSample as SkipSample
from evalcore._contract.errors import InputError as InputError
from evalcore._contract.errors import ParameterError as ParameterError
from evalcore._contract.errors import SetupError as SetupError

# reading inputs
from evalcore._contract import inputs as inputs
from evalcore._contract.fields import get_path as get_path
from evalcore._contract.fields import text_field as text_field
from evalcore._contract.fields import response_text as response_text
from evalcore._contract.fields import reference_answers as reference_answers
from evalcore._contract.fields import doc_texts as doc_texts
from evalcore._contract.regex import regex_search as regex_search
from evalcore._contract.schema import schema_validator as schema_validator
from evalcore._contract.records import iter_jsonl as iter_jsonl

# readers, executors, trackers, commands, settings groups and backends (plugin API 2)
from evalcore._contract.components import ReaderSpec as ReaderSpec
from evalcore._contract.components import ReaderOption as ReaderOption
from evalcore._contract.components import ExecutorSpec as ExecutorSpec
from evalcore._contract.components import TrackerSpec as TrackerSpec
from evalcore._contract.components import CommandSpec as CommandSpec
from evalcore._contract.components import SettingsSpec as SettingsSpec
from evalcore._contract.components import BackendSpec as BackendSpec
from evalcore._registry.settings import backends as backends
from evalcore._registry.settings import backend as backend
from evalcore._engine.executors import ChunkExecutor as ChunkExecutor
from evalcore._engine.score import score_chunk as score_chunk
from evalcore._engine.trackers import Tracker as Tracker
from evalcore._contract.errors import ExecutorError as ExecutorError
from evalcore._contract.errors import TrackingError as TrackingError
from evalcore._contract.chunk import Source as Source
from evalcore._contract.chunk import Chunk as Chunk
from evalcore._engine.readers import file_fingerprint as file_fingerprint
