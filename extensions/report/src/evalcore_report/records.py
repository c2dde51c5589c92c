"""Which records the page embeds, and one record's view: input, reference, prediction, plugins' views,
documents, scores.

A page embeds at most ``limit`` records so that a run of a million records still gives a page
of a few megabytes: every record when there are few, else the records with an error or a skip
(up to half), then the worst-scoring records of each metric in turn, then the rest in input order.
All text reaches the page through :func:`html.escape`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

import numpy as np
from evalcore import Record
from evalcore.plugin import Run

from .images import images_section
from .summary import ok_value

DEFAULT_RECORDS = 1000
SHORT_TEXT = 300
"""Characters of a text shown before "more"; the rest opens in place."""
LONG_TEXT = 20_000
"""Characters of one text the page holds at most (the input keeps the rest)."""


def value_matrix(run: Run, metric_ids: Sequence[str]) -> np.ndarray:
    """Per record (rows, in record order) and metric (columns): the ``ok`` value, else NaN."""
    matrix = np.full((len(run.rows), len(metric_ids)), np.nan)
    for j, metric_id in enumerate(metric_ids):
        values = [ok_value(row["scores"].get(metric_id)) for row in run.rows.values()]
        matrix[:, j] = np.array(values, dtype=float)  # None becomes NaN
    return matrix


def worst_first(values: np.ndarray, direction: str) -> np.ndarray:
    """Indices of the finite ``values``, worst first for a metric whose better ``direction`` is given."""
    finite = np.flatnonzero(np.isfinite(values))
    keys = values[finite] if direction != "lower" else -values[finite]
    return finite[np.argsort(keys, kind="stable")]


def select(run: Run, limit: int, matrix: np.ndarray) -> list[str]:
    """The ids of the records the page embeds (see the module's note), in record order;
    ``matrix`` is the run's :func:`value_matrix` over all its metrics."""
    ids = list(run.rows)
    if len(ids) <= limit:
        return ids
    chosen: dict[int, None] = {}
    for i, row in enumerate(run.rows.values()):
        if len(chosen) >= limit // 2:
            break
        if any(type(s) is dict and s.get("status", "ok") != "ok" for s in row["scores"].values()):
            chosen[i] = None
    orders = [worst_first(matrix[:, j], run.direction(m)) for j, m in enumerate(run.metrics)]
    depth = 0
    while len(chosen) < limit and any(depth < len(order) for order in orders):
        for order in orders:
            if depth < len(order) and len(chosen) < limit:
                chosen.setdefault(int(order[depth]), None)
        depth += 1
    for i in range(len(ids)):
        if len(chosen) >= limit:
            break
        chosen.setdefault(i, None)
    return [ids[i] for i in sorted(chosen)]


def record_view(index: int, record_id: str, row: Mapping[str, Any], record: Record | None,
                labels: Mapping[str, str], missing: str | None, views: str = "") -> str:
    """The hidden panel the page shows when record ``index`` is clicked; ``views``: the plugins'
    views of the record, rendered (:func:`.views.plugin_views`), shown after its fields."""
    parts = [f"<h3>{escape(record_id)}</h3>"]
    if labels:
        parts.append("<p>" + " ".join(f"<span class=\"label\">{escape(k)} = {escape(v)}</span>"
                                      for k, v in labels.items()) + "</p>")
    if record is None:
        parts.append(f"<p class=\"muted\">{escape(missing or 'the record is not in the input')}</p>")
    else:
        parts.append(_fields(record))
        parts.append(images_section(record))
        parts.append(views)
    parts.append(_scores(row))
    if record is not None:
        parts.append(_documents(record))
        parts.append(_rest(record))
    return f"<div class=\"record\" id=\"record-{index}\" hidden>" + "".join(parts) + "</div>"


def long_text(value: Any) -> str:
    """Text escaped; past :data:`SHORT_TEXT` characters the rest opens in a ``<details>``."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    cut = ""
    if len(text) > LONG_TEXT:
        cut = f" … ({len(text) - LONG_TEXT} more characters in the input)"
        text = text[:LONG_TEXT]
    if len(text) <= SHORT_TEXT:
        return f"<span class=\"text\">{escape(text)}</span>"
    return (f"<details class=\"text\"><summary>{escape(text[:SHORT_TEXT])} …</summary>"
            f"<span class=\"text\">{escape(text)}{escape(cut)}</span></details>")


_SHOWN_EXAMPLE = ("id", "query", "reference_answer", "reference_answers", "relevant_docs", "labels")
_SHOWN_PREDICTION = ("response", "retrieved")


def _fields(record: Record) -> str:
    example, prediction = record.example, record.prediction
    rows = [("input", example.get("query"))]
    references = example.get("reference_answers", example.get("reference_answer"))
    if isinstance(references, list):
        rows += [(f"reference {n + 1}" if len(references) > 1 else "reference", r) for n, r in enumerate(references)]
    else:
        rows.append(("reference", references))
    rows.append(("prediction", prediction.get("response")))
    cells = "".join(f"<tr><th>{name}</th><td>{long_text(value) if value is not None else '–'}</td></tr>"
                    for name, value in rows if value is not None or name in ("input", "prediction"))
    return f"<table class=\"fields\"><tbody>{cells}</tbody></table>"


def _documents(record: Record) -> str:
    retrieved = record.prediction.get("retrieved")
    relevant = record.example.get("relevant_docs")
    out = []
    grades = {str(d.get("doc_id")): d.get("relevance", 1) for d in relevant or [] if isinstance(d, Mapping)}
    if isinstance(retrieved, list) and retrieved:
        rows = []
        for n, doc in enumerate(retrieved):
            doc = doc if isinstance(doc, Mapping) else {"doc_id": doc}
            doc_id = str(doc.get("doc_id", doc.get("id", "")))
            grade = grades.get(doc_id)
            rows.append(f"<tr><td class=\"num\">{escape(str(doc.get('rank', n + 1)))}</td><td>{escape(doc_id)}</td>"
                        f"<td class=\"num\">{escape(str(doc.get('score', '')))}</td>"
                        f"<td>{escape(str(grade)) if grade is not None else '–'}</td>"
                        f"<td>{long_text(doc['text']) if doc.get('text') is not None else ''}</td></tr>")
        out.append("<h4>Retrieved documents</h4><table class=\"docs\"><thead><tr><th class=\"num\">rank</th>"
                   "<th>doc</th><th class=\"num\">score</th><th>relevance</th><th>text</th></tr></thead><tbody>"
                   + "".join(rows) + "</tbody></table>")
    if isinstance(relevant, list) and relevant:
        found = {str(d.get("doc_id", d.get("id", ""))) if isinstance(d, Mapping) else str(d)
                 for d in retrieved or []}
        rows = []
        for doc in relevant:
            doc = doc if isinstance(doc, Mapping) else {"doc_id": doc}
            doc_id = str(doc.get("doc_id", ""))
            rows.append(f"<tr><td>{escape(doc_id)}</td><td>{escape(str(doc.get('relevance', 1)))}</td>"
                        f"<td>{'yes' if doc_id in found else 'no'}</td>"
                        f"<td>{long_text(doc['text']) if doc.get('text') is not None else ''}</td></tr>")
        out.append("<h4>Relevant documents</h4><table class=\"docs\"><thead><tr><th>doc</th><th>relevance</th>"
                   "<th>retrieved</th><th>text</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>")
    return "".join(out)


_JUDGE = (("explanation", "judge rationale"), ("model", "judge model"), ("usage", "tokens"),
          ("answers", "judge answer"))


def _scores(row: Mapping[str, Any]) -> str:
    blocks = []
    for metric_id, score in row["scores"].items():
        score = score if isinstance(score, Mapping) else {"value": score}
        status = str(score.get("status", "ok"))
        value = score.get("value")
        shown = f"{value:.4f}" if isinstance(value, float) else escape(str(value)) if value is not None else "–"
        lines = [f"<tr><th>value</th><td>{shown}</td></tr>",
                 f"<tr><th>status</th><td class=\"{status_class(status)}\">{escape(status)}</td></tr>"]
        if score.get("reason"):
            lines.append(f"<tr><th>reason</th><td>{long_text(score['reason'])}</td></tr>")
        error = score.get("error")
        if error:
            error = error if isinstance(error, Mapping) else {"message": error}
            lines.append(f"<tr><th>error</th><td class=\"status-error\">{escape(str(error.get('type', 'Error')))}: "
                         f"{long_text(error.get('message', ''))}</td></tr>")
        details = score.get("details") if isinstance(score.get("details"), Mapping) else {}
        if score.get("feedback") and score["feedback"] != details.get("explanation"):
            lines.append(f"<tr><th>feedback</th><td>{long_text(score['feedback'])}</td></tr>")
        for key, name in _JUDGE:
            if details.get(key):
                lines.append(f"<tr class=\"judge\"><th>{name}</th><td>{long_text(_judge_text(key, details[key]))}"
                             "</td></tr>")
        calls = _judge_calls(details)
        if calls:
            lines.append(f"<tr class=\"judge\"><th>judge calls</th><td>{calls}</td></tr>")
        if details:
            lines.append(f"<tr><th>details</th><td><details><summary>{len(details)} "
                         f"{'field' if len(details) == 1 else 'fields'}</summary>"
                         f"<pre>{escape(_json(details))}</pre></details></td></tr>")
        blocks.append(f"<h4>{escape(metric_id)}</h4><table class=\"score\"><tbody>{''.join(lines)}</tbody></table>")
    return "<div class=\"scores\">" + "".join(blocks) + "</div>"


def _judge_calls(details: Mapping[str, Any]) -> str:
    """Each judge call of a score (``prompts`` and ``raw_answers`` by prompt, as the judge plugin keeps
    them) as a closed ``<details>``: the prompt's messages, then every answer as received."""
    prompts = details.get("prompts") if isinstance(details.get("prompts"), Mapping) else {}
    raw = details.get("raw_answers") if isinstance(details.get("raw_answers"), Mapping) else {}
    parts = []
    for role in dict.fromkeys([*prompts, *raw]):
        messages = prompts.get(role)
        body = [f"<h6>{escape(str(m.get('role', 'message')))}</h6><pre class=\"text\">"
                f"{escape(_cut(m.get('content')))}</pre>" for m in messages if isinstance(m, Mapping)
                ] if isinstance(messages, list) else []
        answers = raw.get(role)
        for n, answer in enumerate(answers if isinstance(answers, list) else [answers] if answers else []):
            label = "answer" if n == 0 else f"answer {n + 1} (repair)"
            body.append(f"<h6>{label}</h6><pre class=\"text\">{escape(_cut(answer))}</pre>")
        parts.append(f"<details class=\"judge-call\"><summary>{escape(str(role))}: prompt and answer</summary>"
                     + "".join(body) + "</details>")
    return "".join(parts)


def _cut(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= LONG_TEXT else text[:LONG_TEXT] + f" … ({len(text) - LONG_TEXT} more characters)"


def _judge_text(key: str, value: Any) -> Any:
    """Tokens as ``N prompt + M completion``; one answer per prompt as ``prompt: answer`` lines."""
    if key == "usage" and isinstance(value, Mapping):
        return " + ".join(f"{value[k]} {k.removesuffix('_tokens')}" for k in ("prompt_tokens", "completion_tokens")
                          if k in value) or value
    if key == "answers" and isinstance(value, Mapping):
        return "\n".join(f"{role}: {text}" if len(value) > 1 else str(text) for role, text in value.items())
    return value


def _rest(record: Record) -> str:
    example = {k: v for k, v in record.example.items() if k not in _SHOWN_EXAMPLE}
    prediction = {k: v for k, v in record.prediction.items() if k not in _SHOWN_PREDICTION}
    if not example and not prediction:
        return ""
    return ("<details><summary>other fields</summary>"
            f"<pre>{escape(_json({'example': example, 'prediction': prediction}))}</pre></details>")


def _json(value: Any) -> str:
    text = json.dumps(value, indent=2, ensure_ascii=False, default=str)
    return text if len(text) <= LONG_TEXT else text[:LONG_TEXT] + f"\n… ({len(text) - LONG_TEXT} more characters)"


def status_class(status: str) -> str:
    """The CSS class of a status: only the statuses the style knows, never a word from the data."""
    return f"status-{status}" if status in ("error", "skipped") else ""
