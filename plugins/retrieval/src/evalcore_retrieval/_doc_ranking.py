"""One record's ranking as document ids, for the measures that need documents, not just hits
(Compat, alpha-nDCG): the columnar :class:`Rankings` keeps only the relevant ones."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from evalcore.plugin import Record, SkipSample

from ._ranking import trec_order, trec_scores
from ._records import _read

_NUMBERS = (int, float)
NO_JUDGEMENTS = "no judged documents (example.relevant_docs is empty)"
NOT_RETRIEVED = "nothing retrieved (missing='zero' scores it 0)"


class RankedDocuments:
    """A record's retrieved document ids in ranked order, with the scores they were ranked by.

    ``scored`` tells whether the documents had scores (else they were ranked by ``rank`` or
    list order, and ``scores`` holds negated ranks or positions)."""

    def __init__(self, doc_ids: list[str], scores: dict[str, float], scored: bool) -> None:
        self.doc_ids, self.scores, self.scored = doc_ids, scores, scored


def ranked_documents(prediction: Record, ties: str) -> RankedDocuments:
    """``prediction.retrieved`` ranked by score descending, equal scores ordered as ``ties`` says.

    Without scores, documents are ranked by their ``rank`` field, else in list order. A
    malformed list raises :class:`~evalcore.plugin.InputError` naming the field."""
    plain = plain_columns(prediction.get("retrieved"), "score", None)
    if plain is None:
        query = _read({}, prediction)
        doc_ids, scores, scored = query.doc_ids, query.scores, _has_scores(prediction)
    else:
        (doc_ids, scores), scored = plain, bool(plain[0])
    if ties == "trec":
        order = trec_order(trec_scores(np.asarray(scores, dtype=float)).tolist(), doc_ids)
    elif ties == "doc_id":
        order = sorted(range(len(doc_ids)), key=lambda i: (-scores[i], doc_ids[i]))
    else:
        order = sorted(range(len(doc_ids)), key=lambda i: -scores[i])
    return RankedDocuments([doc_ids[i] for i in order], dict(zip(doc_ids, scores)), scored)


def judged_grades(example: Record) -> dict[str, float]:
    """``example.relevant_docs`` as ``{doc_id: grade}`` in list order (grade 1 when not given)."""
    plain = plain_columns(example.get("relevant_docs"), "relevance", 1)
    return dict(zip(*plain)) if plain is not None else _read(example, {}).judged


def plain_columns(docs: Any, field: str, default: Any, unique: bool = True) -> tuple[list[str], list[float]] | None:
    """The doc ids and ``field`` values of a list of well-formed document objects (string ids,
    numbers, each id once when ``unique``), or None when anything needs the checking reader of
    :mod:`._records`, which names what is wrong. Reading the common case in bulk is most of the
    time the record measures take."""
    if type(docs) is not list:
        return None
    try:
        ids = [doc["doc_id"] for doc in docs]
        values = [doc.get(field, default) for doc in docs]
    except (TypeError, KeyError, AttributeError):
        return None
    if not all(type(i) is str for i in ids) or not all(type(v) in _NUMBERS and v == v for v in values):
        return None
    if unique and len(set(ids)) != len(ids):
        return None
    return ids, [float(v) for v in values]


def check_present(judged: int, retrieved: int, missing: str) -> bool:
    """Whether the record is scored: it has judgements (else skipped) and retrieved documents
    (else skipped, or scored 0 when ``missing='zero'``: ``False`` then)."""
    if not judged:
        raise SkipSample(NO_JUDGEMENTS)
    if not retrieved:
        if missing == "skip":
            raise SkipSample(NOT_RETRIEVED)
        return False
    return True


def _has_scores(prediction: Record) -> bool:
    docs: Any = prediction.get("retrieved") or ()
    return bool(docs) and all(isinstance(d, Mapping) and d.get("score") is not None for d in docs)
