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
    "PLUGIN_API_VERSION": "._contract.hooks", "hookimpl": "._contract.hooks",
    "MetricSpec": "._contract.spec", "ParamSpec": "._contract.spec", "TargetCategory": "._contract.spec", "Tier": "._contract.spec",
    "Direction": "._contract.spec", "Granularity": "._contract.spec",
    "Metric": "._contract.metric", "SampleMetric": "._contract.metric", "BatchMetric": "._contract.metric", "CorpusMetric": "._contract.metric",
    "Record": "._contract.metric", "Score": "._contract.scores", "Status": "._contract.scores",
    "SkipSample": "._contract.errors", "InputError": "._contract.errors", "ParameterError": "._contract.errors", "SetupError": "._contract.errors",
    "as_record": "._contract.fields", "doc_texts": "._contract.fields", "get_path": "._contract.fields", "reference_answers": "._contract.fields",
    "response_text": "._contract.fields", "text_field": "._contract.fields", "iter_jsonl": "._contract.records",
    "parse_record": "._contract.records", "RunContext": "._contract.context", "ReaderSpec": "._contract.reader_spec",
    "ReaderOption": "._contract.reader_spec", "Chunk": "._contract.chunk", "Source": "._contract.chunk",
    "file_fingerprint": "._engine.readers", "regex_search": "._contract.regex", "schema_validator": "._contract.schema",
    "ColumnScores": "._contract.scores", "MetricAlias": "._contract.spec", "aggregate_values": "._contract.spec", "MIN_GEO_MEAN": "._contract.spec",
}

__all__ = list(_EXPORTS)


__getattr__, __dir__ = lazy_exports("evalcore", _EXPORTS, globals())


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from evalcore._contract.chunk import Chunk, Source  # noqa: F401
    from evalcore._contract.context import RunContext  # noqa: F401
    from evalcore._contract.errors import InputError, ParameterError, SetupError, SkipSample  # noqa: F401
    from evalcore._contract.fields import as_record, doc_texts, get_path, reference_answers, response_text, text_field  # noqa: F401
    from evalcore._contract.hooks import PLUGIN_API_VERSION, hookimpl  # noqa: F401
    from evalcore._contract.metric import BatchMetric, CorpusMetric, Metric, Record, SampleMetric  # noqa: F401
    from evalcore._contract.reader_spec import ReaderOption, ReaderSpec  # noqa: F401
    from evalcore._contract.records import iter_jsonl, parse_record  # noqa: F401
    from evalcore._contract.regex import regex_search  # noqa: F401
    from evalcore._contract.schema import schema_validator  # noqa: F401
    from evalcore._contract.scores import ColumnScores, Score, Status  # noqa: F401
    from evalcore._contract.spec import (  # noqa: F401
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
    from evalcore._engine.readers import file_fingerprint  # noqa: F401
