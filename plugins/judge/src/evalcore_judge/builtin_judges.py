"""Built-in judged metrics written as custom judges, so that ``evalcore align`` can teach them.

A built-in qualifies when its judgement is one call of one instruction template over record fields
whose answer gives the value: ``judge/llm_judge`` (the dsrs LlmJudgeMetric) and ``judge/diff_semantic``
(the dsrs DiffMetric, Semantic level). Its prompt is not written down a second time: the built-in
builds its own request for a record whose fields are markers, and the markers become the custom
judge's ``{example.FIELD}`` / ``{prediction.FIELD}`` variables (a reference answer given as a list is
then shown as JSON, where the built-in puts one per line). The output is the built-in's own answer
schema (``output = "json"``, ``score_key = "score"``), so the judge answers as it did.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from evalcore.plugin import InputError, Record

from .schemas import json_schema

ALIGNABLE: dict[str, tuple[str, ...]] = {
    "judge/llm_judge": ("system_prompt", "criteria", "scale"),
    "judge/diff_semantic": ("field",),
}
"""The one-call built-ins align takes, and the parameters that shape their prompt."""

_MARK = "\x00"


def base_of(metric_id: str) -> str:
    """``judge/llm_judge(scale='1-5')`` -> ``judge/llm_judge``."""
    return metric_id.split("(", 1)[0]


def as_custom(metric_id: str, params: Mapping[str, Any], records: Sequence[Any]) -> dict[str, Any]:
    """The definition of a ``judge/custom`` judge that sends what the built-in ``metric_id`` (with the run's
    ``params``) sends for ``records``; a one-line :class:`InputError` for a built-in that is not one call."""
    import evalcore

    base = base_of(metric_id)
    if base not in ALIGNABLE:
        raise InputError(f"its value is not one judge call's answer to one prompt template over record fields; "
                         f"align takes judge/custom, {', '.join(ALIGNABLE)}", field=metric_id)
    if (params.get("n") or 1) != 1 or params.get("judges"):
        raise InputError("the run asked several judges or samples per record (n, judges); align takes a run "
                         "of one judge call per record", field=metric_id)
    shaping = {k: params[k] for k in ALIGNABLE[base] if params.get(k) is not None}
    metric = evalcore.get_metric(base, judge=_never_called, **shaping)
    with_reference = _with_reference(metric_id, records)
    example: Record = {"query": _marker("example.query")}
    if with_reference:
        example["reference_answer"] = _marker("example.reference_answer")
    field = str(metric.params.get("field") or "response")
    requests = metric.requests(example, {field: _marker(f"prediction.{field}")})
    if len(requests) != 1:  # pragma: no cover - ALIGNABLE lists one-call judges only
        raise InputError(f"{base} asks {len(requests)} questions of a record; align takes one", field=metric_id)
    request = requests[0]
    text = "\n\n".join(m["content"] for m in request.messages)
    escaped = text.replace("{", "{{").replace("}", "}}")
    instructions = re.sub(f"{_MARK}([^{_MARK}]+){_MARK}", r"{\1}", escaped)
    return {"name": base.split("/", 1)[1], "instructions": instructions, "output": "json",
            "schema": json_schema(request.answer), "score_key": request.answer.score_fields[0]}


def _marker(path: str) -> str:
    return f"{_MARK}{path}{_MARK}"


def _with_reference(metric_id: str, records: Sequence[Any]) -> bool:
    """Whether the built-in showed a reference answer: all records have one, or none (a custom judge
    has one prompt for every record)."""
    has = {bool(r.example.get("reference_answer")) for r in records}
    if len(has) > 1:
        raise InputError("some labelled records have a reference answer and some not; the built-in's prompt "
                         "differs between them, so align them apart", field=metric_id)
    return has == {True}


def _never_called(*args: Any, **kwargs: Any) -> Any:  # pragma: no cover - the built-in only builds its prompt
    raise RuntimeError("the built-in judge is only asked for its prompt")
