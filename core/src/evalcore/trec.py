"""Reading TREC relevance judgements (qrels) and runs, and turning them into evaluator records.

* qrels lines are ``qid iter docno rel`` (``iter`` is ignored, ``rel`` an integer);
* run lines are ``qid Q0 docno rank score tag``; like trec_eval, the rank column and any
  columns after the tag are ignored: documents are ranked by score.

Blank lines are skipped. A malformed line (too few or too many columns, a relevance that
is not an integer, a score that is not a number, the same document twice in one query)
raises :class:`~evalcore.InputError` naming the file, the line and the field.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator, Mapping
from typing import Any

from ._errors import InputError

Qrels = dict[str, dict[str, int]]
Run = dict[str, dict[str, float]]

_QRELS_COLUMNS = "qid iter docno rel"
_RUN_COLUMNS = "qid Q0 docno rank score tag"


def read_qrels(path: str | os.PathLike[str]) -> Qrels:
    """Read a qrels file into ``{qid: {docno: relevance}}`` (file order kept)."""
    qrels: Qrels = {}
    for source, fields in _lines(path):
        if len(fields) != 4:
            raise InputError(
                f"expected 4 columns '{_QRELS_COLUMNS}', got {len(fields)}", source=source,
                field="columns",
            )
        qid, _, docno, rel_text = fields
        try:
            rel = int(rel_text)
        except ValueError:
            raise InputError(
                f"relevance must be an integer, got {rel_text!r}", source=source, field="rel"
            ) from None
        _add(qrels.setdefault(qid, {}), docno, rel, source, qid)
    return qrels


def read_run(path: str | os.PathLike[str]) -> Run:
    """Read a run file into ``{qid: {docno: score}}`` (file order kept, rank column ignored)."""
    run: Run = {}
    for source, fields in _lines(path):
        if len(fields) < 6:
            raise InputError(
                f"expected 6 columns '{_RUN_COLUMNS}', got {len(fields)}", source=source,
                field="columns",
            )
        qid, _, docno, _, score_text = fields[:5]
        score = _parse_score(score_text, source)
        _add(run.setdefault(qid, {}), docno, score, source, qid)
    return run


def records_from_trec(
    qrels: str | os.PathLike[str] | Mapping[str, Mapping[str, Any]],
    run: str | os.PathLike[str] | Mapping[str, Mapping[str, Any]],
) -> list[dict[str, Any]]:
    """Evaluator records from qrels and a run, each a file path or a ``{qid: {docno: value}}`` dict.

    One record per query in either input, in run order followed by the queries found only
    in the qrels::

        {"id": qid,
         "example": {"relevant_docs": [{"doc_id": docno, "relevance": rel}, ...]},
         "prediction": {"retrieved": [{"doc_id": docno, "score": score, "rank": 1}, ...]}}

    ``relevant_docs`` holds every judged document, non-relevant ones (relevance 0) included.
    ``retrieved`` is ordered by score descending, equal scores by docno descending, and
    ``rank`` counts from 1 in that order. A query only in the qrels gets ``retrieved: []``
    (retrieval metrics skip it, or score it 0 with ``missing='zero'``, like ``trec_eval -c``);
    a query only in the run gets ``relevant_docs: []`` (skipped: there is nothing to judge
    it by, as in trec_eval).
    """
    judged = _as_qrels(qrels)
    ranked = _as_run(run)
    records = []
    for qid in dict.fromkeys([*ranked, *judged]):
        docs = ranked.get(qid, {})
        order = sorted(docs.items(), key=lambda item: (item[1], item[0]), reverse=True)
        records.append({
            "id": qid,
            "example": {"relevant_docs": [
                {"doc_id": doc, "relevance": rel} for doc, rel in judged.get(qid, {}).items()
            ]},
            "prediction": {"retrieved": [
                {"doc_id": doc, "score": score, "rank": rank}
                for rank, (doc, score) in enumerate(order, start=1)
            ]},
        })
    return records


def _lines(path: str | os.PathLike[str]) -> Iterator[tuple[str, list[str]]]:
    name = os.fspath(path)
    with open(path, encoding="utf-8") as handle:
        for lineno, line in enumerate(handle, start=1):
            fields = line.split()
            if fields:
                yield f"{name}:{lineno}", fields


def _parse_score(text: str, source: str, field: str = "score") -> float:
    try:
        score = float(text)
    except ValueError:
        raise InputError(f"score must be a number, got {text!r}", source=source, field=field) from None
    if math.isnan(score):
        raise InputError("score must not be NaN", source=source, field=field)
    return score


def _add(docs: dict[str, Any], docno: str, value: Any, source: str, qid: str) -> None:
    if docno in docs:
        raise InputError(
            f"document {docno!r} appears twice in query {qid!r}", source=source, field="docno"
        )
    docs[docno] = value


def _as_qrels(qrels: str | os.PathLike[str] | Mapping[str, Mapping[str, Any]]) -> Qrels:
    if isinstance(qrels, (str, os.PathLike)):
        return read_qrels(qrels)
    checked: Qrels = {}
    for qid, docs in _items(qrels, "qrels"):
        for docno, rel in _items(docs, "qrels", qid):
            if isinstance(rel, bool) or not isinstance(rel, int):
                raise InputError(
                    f"relevance must be an integer, got {rel!r}", source="qrels",
                    field=f"[{qid!r}][{docno!r}]",
                )
        checked[str(qid)] = {str(doc): rel for doc, rel in docs.items()}
    return checked


def _as_run(run: str | os.PathLike[str] | Mapping[str, Mapping[str, Any]]) -> Run:
    if isinstance(run, (str, os.PathLike)):
        return read_run(run)
    checked: Run = {}
    for qid, docs in _items(run, "run"):
        scores = {}
        for docno, score in _items(docs, "run", qid):
            field = f"[{qid!r}][{docno!r}]"
            if isinstance(score, bool) or not isinstance(score, (int, float)):
                raise InputError(f"score must be a number, got {score!r}", source="run", field=field)
            if math.isnan(score):
                raise InputError("score must not be NaN", source="run", field=field)
            scores[str(docno)] = float(score)
        checked[str(qid)] = scores
    return checked


def _items(value: Any, source: str, qid: Any = None) -> Iterator[tuple[Any, Any]]:
    if not isinstance(value, Mapping):
        field = None if qid is None else f"[{qid!r}]"
        raise InputError(f"expected a mapping, got {type(value).__name__}", source=source, field=field)
    return iter(value.items())
