"""Everything a plugin author needs, in one import.

A registration module (the target of an ``evalcore.plugins`` entry point) looks like::

    from evalcore.plugin import MetricSpec, ParamSpec, hookimpl

    PLUGIN_API_VERSION = 1  # the plugin API these specs are written for (a literal, checked on load)

    @hookimpl
    def evalcore_metrics():
        return [MetricSpec(name="my_metric", implementation="my_pkg.metrics:MyMetric", ...)]

It must import nothing heavy (this module imports each name on first use, so a registration
module that takes only specs loads no metric machinery); implementations subclass
:class:`SampleMetric`, :class:`BatchMetric` or :class:`CorpusMetric` and live in modules
imported on use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import lazy_exports

_EXPORTS = {
    "PLUGIN_API_VERSION": "._hooks", "hookimpl": "._hooks",
    "MetricSpec": "._spec", "ParamSpec": "._spec", "TargetCategory": "._spec", "Tier": "._spec",
    "Direction": "._spec", "Granularity": "._spec",
    "Metric": "._metric", "SampleMetric": "._metric", "BatchMetric": "._metric", "CorpusMetric": "._metric",
    "Record": "._metric", "Score": "._result", "Status": "._result",
    "SkipSample": "._errors", "InputError": "._errors", "ParameterError": "._errors", "SetupError": "._errors",
    "as_record": "._fields", "doc_texts": "._fields", "get_path": "._fields", "reference_answers": "._fields",
    "response_text": "._fields", "text_field": "._fields", "iter_jsonl": "._records",
    "parse_record": "._records", "RunContext": "._engine.context", "ReaderSpec": "._reader_spec",
    "ReaderOption": "._reader_spec", "Chunk": "._engine.chunk", "Source": "._engine.chunk",
    "file_fingerprint": "._engine.readers", "regex_search": "._regex", "schema_validator": "._schema",
    "ColumnScores": "._result", "MetricAlias": "._spec", "aggregate_values": "._spec", "MIN_GEO_MEAN": "._spec",
}

__all__ = list(_EXPORTS)


__getattr__, __dir__ = lazy_exports("evalcore", _EXPORTS, globals())


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from ._engine.chunk import Chunk, Source  # noqa: F401
    from ._engine.context import RunContext  # noqa: F401
    from ._engine.readers import file_fingerprint  # noqa: F401
    from ._errors import InputError, ParameterError, SetupError, SkipSample  # noqa: F401
    from ._fields import as_record, doc_texts, get_path, reference_answers, response_text, text_field  # noqa: F401
    from ._hooks import PLUGIN_API_VERSION, hookimpl  # noqa: F401
    from ._metric import BatchMetric, CorpusMetric, Metric, Record, SampleMetric  # noqa: F401
    from ._reader_spec import ReaderOption, ReaderSpec  # noqa: F401
    from ._records import iter_jsonl, parse_record  # noqa: F401
    from ._regex import regex_search  # noqa: F401
    from ._result import ColumnScores, Score, Status  # noqa: F401
    from ._schema import schema_validator  # noqa: F401
    from ._spec import (  # noqa: F401
        MIN_GEO_MEAN,
        Direction,
        Granularity,
        MetricAlias,
        MetricSpec,
        ParamSpec,
        TargetCategory,
        Tier,
        aggregate_values,
    )
