"""Everything a plugin author needs, in one import.

A registration module (the target of an ``evalcore.plugins`` entry point) looks like::

    from evalcore.plugin import PLUGIN_API_VERSION, MetricSpec, ParamSpec, hookimpl

    @hookimpl
    def evalcore_metrics():
        return [MetricSpec(name="my_metric", implementation="my_pkg.metrics:MyMetric", ...)]

It must import nothing heavy; implementations subclass :class:`SampleMetric`,
:class:`BatchMetric` or :class:`CorpusMetric` and live in modules imported on use.
"""

from ._engine.chunk import Chunk, Source
from ._engine.context import RunContext
from ._engine.readers import file_fingerprint
from ._errors import InputError, ParameterError, SetupError, SkipSample
from ._fields import as_record, doc_texts, get_path, reference_answers, response_text, text_field
from ._hooks import PLUGIN_API_VERSION, hookimpl
from ._metric import BatchMetric, CorpusMetric, Metric, Record, SampleMetric
from ._reader_spec import ReaderOption, ReaderSpec
from ._records import iter_jsonl, parse_record
from ._regex import regex_search
from ._result import Score, Status
from ._schema import schema_validator
from ._spec import Direction, Granularity, MetricSpec, ParamSpec, TargetCategory, Tier

__all__ = [
    "PLUGIN_API_VERSION", "hookimpl", "MetricSpec", "ParamSpec", "TargetCategory", "Tier",
    "Direction", "Granularity", "Metric", "SampleMetric", "BatchMetric", "CorpusMetric",
    "Record", "Score", "Status", "SkipSample", "InputError", "ParameterError", "SetupError", "as_record",
    "doc_texts", "get_path", "reference_answers", "response_text", "text_field", "iter_jsonl", "parse_record",
    "RunContext", "ReaderSpec", "ReaderOption", "Chunk", "Source", "file_fingerprint",
    "regex_search", "schema_validator",
]
