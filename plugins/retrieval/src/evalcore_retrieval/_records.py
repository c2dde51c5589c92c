"""Reading evaluator records (``relevant_docs`` / ``retrieved``) into :class:`Rankings`."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from evalcore.plugin import InputError, Record

from ._ranking import Rankings, rank_order


class _Query:
    """One record's judged grades and retrieved documents in input order."""

    __slots__ = ("judged", "doc_ids", "scores")

    def __init__(self, judged: dict[str, float], doc_ids: list[str], scores: list[float]) -> None:
        self.judged = judged
        self.doc_ids = doc_ids
        self.scores = scores


def rankings_from_records(
    examples: Sequence[Record], predictions: Sequence[Record], ties: str, by_rank: bool = False,
) -> tuple[Rankings, list[int], dict[int, InputError]]:
    """Rankings of the well-formed records, their record indices, and the errors of the others.

    ``by_rank`` ranks by the documents' ``rank`` field when every one has it (else by score).
    """
    queries: list[_Query] = []
    kept: list[int] = []
    errors: dict[int, InputError] = {}
    for index, (example, prediction) in enumerate(zip(examples, predictions)):
        try:
            queries.append(_read(example, prediction, by_rank))
            kept.append(index)
        except InputError as exc:
            errors[index] = exc
    lengths = np.fromiter((len(q.doc_ids) for q in queries), np.int64, len(queries))
    scores = np.fromiter((s for q in queries for s in q.scores), float, int(lengths.sum()))
    gains = np.fromiter(
        (q.judged.get(d, math.nan) for q in queries for d in q.doc_ids), float, len(scores)
    )
    order = rank_order(scores, lengths, lambda i: queries[i].doc_ids, ties)
    gains = gains[order]
    unjudged = np.isnan(gains)
    gains[unjudged] = 0.0
    judged_lengths = np.fromiter((len(q.judged) for q in queries), np.int64, len(queries))
    judged = np.fromiter((g for q in queries for g in q.judged.values()), float, int(judged_lengths.sum()))
    rankings = Rankings.from_ranked_grades(lengths, gains, judged_lengths, judged, lengths > 0, unjudged)
    return rankings, kept, errors


def _read(example: Record, prediction: Record, by_rank: bool = False) -> _Query:
    judged: dict[str, float] = {}
    for index, doc in enumerate(_documents(example, "relevant_docs", "example")):
        field = f"example.relevant_docs[{index}]"
        doc_id = _doc_id(doc, field)
        relevance = doc.get("relevance", 1) if isinstance(doc, Mapping) else 1
        relevance = _number(1 if relevance is None else relevance, f"{field}.relevance")
        if doc_id in judged:
            raise InputError(f"document {doc_id!r} is listed twice", field=f"{field}.doc_id")
        judged[doc_id] = relevance
    doc_ids: list[str] = []
    scores: list[Any] = []
    ranks: list[Any] = []
    seen: set[str] = set()
    for index, doc in enumerate(_documents(prediction, "retrieved", "prediction")):
        field = f"prediction.retrieved[{index}]"
        doc_id = _doc_id(doc, field)
        if doc_id in seen:
            raise InputError(f"document {doc_id!r} is listed twice", field=f"{field}.doc_id")
        seen.add(doc_id)
        doc_ids.append(doc_id)
        score = doc.get("score") if isinstance(doc, Mapping) else None
        scores.append(None if score is None else _number(score, f"{field}.score"))
        rank = doc.get("rank") if isinstance(doc, Mapping) else None
        ranks.append(None if rank is None else _number(rank, f"{field}.rank"))
    return _Query(judged, doc_ids, _ranking_scores(scores, ranks, by_rank))


def _ranking_scores(scores: list[Any], ranks: list[Any], by_rank: bool = False) -> list[float]:
    """Scores to rank by: the scores; else negated ranks; else negated list positions.

    ``by_rank``: negated ranks first when every document has one."""
    if by_rank and ranks and None not in ranks:
        return [-r for r in ranks]
    if None not in scores:
        return scores
    if any(s is not None for s in scores):
        index = scores.index(None)
        raise InputError("some retrieved documents have a score and others do not",
                         field=f"prediction.retrieved[{index}].score")
    if ranks and None not in ranks:
        return [-r for r in ranks]
    return [-float(i) for i in range(len(scores))]


def _documents(record: Record, name: str, role: str) -> Sequence[Any]:
    docs = record.get(name)
    if docs is None:
        return ()
    if isinstance(docs, (str, bytes)) or not isinstance(docs, Sequence):
        raise InputError(f"expected a list of documents, got {type(docs).__name__}", field=f"{role}.{name}")
    return docs


def _doc_id(doc: Any, field: str) -> str:
    if isinstance(doc, str):
        return doc
    if isinstance(doc, Mapping):
        doc_id = doc.get("doc_id")
        if isinstance(doc_id, (str, int)) and not isinstance(doc_id, bool):
            return str(doc_id)
        if doc_id is None:
            raise InputError("document has no doc_id", field=f"{field}.doc_id")
        raise InputError(f"doc_id must be a string, got {type(doc_id).__name__}", field=f"{field}.doc_id")
    raise InputError(f"expected a document object or a doc id, got {type(doc).__name__}", field=field)


def _number(value: Any, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"expected a number, got {type(value).__name__} {value!r:.40}", field=field)
    if math.isnan(value):
        raise InputError("expected a number, got NaN", field=field)
    return float(value)
