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

# the run's model-call cache settings (the cache itself is evalcore-http's)
from evalcore._contract.cache_settings import CacheMode as CacheMode
from evalcore._contract.cache_settings import CACHE_MODES as CACHE_MODES
from evalcore._contract.cache_settings import check_cache_mode as check_cache_mode
from evalcore._contract.cache_settings import default_cache_dir as default_cache_dir

# errors
from evalcore._contract.errors import EvalcoreError as EvalcoreError
from evalcore._contract.errors import SkipSample as SkipSample
from evalcore._contract.errors import InputError as InputError
from evalcore._contract.errors import ParameterError as ParameterError
from evalcore._contract.errors import SetupError as SetupError

# reading inputs
from evalcore_text import inputs as inputs
from evalcore._contract.fields import get_path as get_path
from evalcore._contract.fields import text_field as text_field
from evalcore._contract.fields import response_text as response_text
from evalcore._contract.fields import reference_answers as reference_answers
from evalcore._contract.fields import doc_texts as doc_texts
from evalcore_schema.regex import regex_search as regex_search
from evalcore_schema.schema import schema_validator as schema_validator
from evalcore._contract.records import iter_jsonl as iter_jsonl
from evalcore._contract.records import read_records as read_records

# readers, executors, trackers, commands, program adapters, settings groups and backends (plugin API 2)
from evalcore._contract.components import ReaderSpec as ReaderSpec
from evalcore._contract.components import ReaderOption as ReaderOption
from evalcore._registry.api import readers as readers
from evalcore._contract.components import ExecutorSpec as ExecutorSpec
from evalcore._contract.components import TrackerSpec as TrackerSpec
from evalcore._contract.components import CommandSpec as CommandSpec
from evalcore._contract.components import ProgramSpec as ProgramSpec
from evalcore._contract.components import SettingsSpec as SettingsSpec
from evalcore._contract.components import BackendSpec as BackendSpec
from evalcore._registry.settings import backends as backends
from evalcore._registry.settings import backend as backend
from evalcore._engine.executors import ChunkExecutor as ChunkExecutor
from evalcore._engine.score import score_chunk as score_chunk
from evalcore._engine.plan import Plan as Plan
from evalcore._engine.score import ChunkResult as ChunkResult
from evalcore._engine.remote import PlanRecipe as PlanRecipe
from evalcore._engine.remote import make_recipe as make_recipe
from evalcore._engine.remote import WorkerPlan as WorkerPlan
from evalcore._engine.remote import worker_plan as worker_plan
from evalcore._engine.trackers import Tracker as Tracker
from evalcore_runs.parameters import run_parameters as run_parameters
from evalcore._engine.trackers import open_tracker as open_tracker
from evalcore_runs.destinations import check_answers as check_answers
from evalcore._contract.errors import ExecutorError as ExecutorError
from evalcore._contract.errors import TrackingError as TrackingError
from evalcore._contract.chunk import Source as Source
from evalcore._contract.chunk import Chunk as Chunk
from evalcore._engine.readers import file_fingerprint as file_fingerprint
from evalcore._engine.readers import FileSource as FileSource
from evalcore._engine.readers import DataSource as DataSource
from evalcore._engine.readers import ChunkBuilder as ChunkBuilder
from evalcore._contract.field_map import place_columns as place_columns

# building on the evaluator (drop-ins, scorers)
from evalcore._registry.api import as_metric as as_metric
from evalcore._registry.api import open_metric as open_metric
from evalcore._engine.options import check_options as check_options
from evalcore._engine.programs import call_program as call_program
from evalcore._engine.stats import aggregate as aggregate
from evalcore._engine.entry import without_unscored_warning as without_unscored_warning
# testing a plugin (the conformance kit of evalcore-pytest checks with these)
from evalcore._registry.registry import default_registry as default_registry
from evalcore._registry.registry import load_implementation as load_implementation
from evalcore._contract.metric import implementation_kind as implementation_kind
from evalcore._contract.identity import parse_metric_id as parse_metric_id
from evalcore._contract.identity import canonical_id as canonical_id
from evalcore._contract.identity import params_from_json as params_from_json
from evalcore._contract.vocabulary import naming_problems as naming_problems
# saved runs, for extensions that work on finished runs (statistics, reports)
from evalcore_runs.saved import Run as Run
from evalcore_runs.saved import load_run as load_run
from evalcore_runs.saved import load_runs as load_runs
from evalcore_runs.saved import metric_of as metric_of
from evalcore._engine.saved import SavedFiles as SavedFiles
from evalcore._engine.saved import read_saved as read_saved
from evalcore._engine.saved import journal_header as journal_header
from evalcore._engine.saved import saved_rows as saved_rows
from evalcore_stats.sequential import paired_difference_interval as paired_difference_interval
from evalcore._engine.sequential import mean_sequence as mean_sequence
from evalcore._engine.sequential import final_interval as final_interval
from evalcore._engine.sequential import draw_keys as draw_keys

# command-line helpers for a plugin's commands
from evalcore._cli.common import reports_errors as reports_errors
from evalcore._cli.common import echo_json as echo_json
from evalcore._cli.common import echo_rows as echo_rows
from evalcore_stats.cli.options import comparison_options as comparison_options
from evalcore._cli.components import SettingsCommand as SettingsCommand
from evalcore._contract.display import table_lines as table_lines

# views of a record in the report (plugin API 2)
from evalcore._contract.components import RecordViewSpec as RecordViewSpec
from evalcore_report.record_view import RecordView as RecordView
from evalcore._registry.api import record_views as record_views

# extensions that show saved runs (the report)
from evalcore._engine.output import summary_notes as summary_notes
from evalcore._engine.stats import standard_error as standard_error
from evalcore._engine.stats import bootstrap_intervals as bootstrap_intervals
from evalcore._engine.files import check_output as check_output
from evalcore._engine.files import replacing as replacing
