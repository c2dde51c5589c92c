"""alpha-nDCG@k (Clarke et al., Novelty and Diversity in Information Retrieval Evaluation,
SIGIR 2008) over subtopic judgements, as ndeval (ir_measures' pyndeval provider) computes it.

A record's judgements are ``example.relevant_docs`` entries with a ``subtopic`` field: one
entry per judged (subtopic, document) pair, as the lines ``qid subtopic docno rel`` of a
diversity qrels file. A document relevant to several subtopics is listed once per subtopic;
an entry without ``subtopic`` belongs to the record's one default subtopic.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from evalcore.plugin import InputError, Record, SampleMetric

from ._doc_ranking import check_present, plain_columns, ranked_documents
from ._records import _doc_id, _documents, _number


class SubtopicJudgements:
    """One record's judged documents and, for each, the subtopics it is relevant to."""

    def __init__(self, judged: set[str], relevant: dict[str, list[int]]) -> None:
        self.judged = judged
        self.relevant = relevant  # doc id -> subtopic indices (first-appearance order), relevant ones only


def read_subtopics(example: Record, level: float) -> SubtopicJudgements:
    """The judgements of ``example.relevant_docs``; a (subtopic, document) pair at or above
    ``level`` is relevant. A pair listed twice is an :class:`InputError` naming the entry."""
    docs = example.get("relevant_docs")
    plain = plain_columns(docs, "relevance", 1, unique=False)
    subtopics = _plain_subtopics(docs) if plain is not None else None
    if plain is None or subtopics is None or len(set(zip(plain[0], subtopics))) != len(subtopics):
        doc_ids, subtopics, grades = _checked(example)
    else:
        doc_ids, grades = plain
    index: dict[str | None, int] = {}
    relevant: dict[str, list[int]] = {}
    for doc_id, subtopic, grade in zip(doc_ids, subtopics, grades):
        position = index.setdefault(subtopic, len(index))
        if grade >= level:
            relevant.setdefault(doc_id, []).append(position)
    return SubtopicJudgements(set(doc_ids), {doc: sorted(subs) for doc, subs in relevant.items()})


def _plain_subtopics(docs: list[Any]) -> list[str | None] | None:
    """The entries' subtopics as strings (None when absent), or None when one is not a string
    or an integer."""
    values = [doc.get("subtopic") for doc in docs]
    if all(v is None or type(v) is str or type(v) is int for v in values):
        return [v if v is None else str(v) for v in values]
    return None


def _checked(example: Record) -> tuple[list[str], list[str | None], list[float]]:
    """Doc ids, subtopics and grades of ``example.relevant_docs``, every entry checked."""
    doc_ids: list[str] = []
    subtopics: list[str | None] = []
    grades: list[float] = []
    seen: set[tuple[str, str | None]] = set()
    for index, doc in enumerate(_documents(example, "relevant_docs", "example")):
        field = f"example.relevant_docs[{index}]"
        doc_id = _doc_id(doc, field)
        subtopic = _subtopic(doc, field)
        if (doc_id, subtopic) in seen:
            raise InputError(f"document {doc_id!r} is listed twice for subtopic {subtopic!r}",
                             field=f"{field}.doc_id")
        seen.add((doc_id, subtopic))
        grade = doc.get("relevance", 1) if isinstance(doc, Mapping) else 1
        grades.append(_number(1 if grade is None else grade, f"{field}.relevance"))
        doc_ids.append(doc_id)
        subtopics.append(subtopic)
    return doc_ids, subtopics, grades


def _subtopic(doc: Any, field: str) -> str | None:
    value = doc.get("subtopic") if isinstance(doc, Mapping) else None
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise InputError(f"subtopic must be a string or an integer, got {type(value).__name__}",
                         field=f"{field}.subtopic")
    return str(value)


def _discount(rank: int) -> float:
    """ndeval's discount of 0-based ``rank``: 1 / log2(rank + 2)."""
    return math.log(2.0) / math.log(rank + 2.0)


def alpha_dcg(ranked: Sequence[Sequence[int]], k: int, alpha: float) -> float:
    """alpha-DCG of the top k: each document gains the sum over its relevant subtopics of
    (1 - alpha)^(documents above it relevant to that subtopic), discounted by log2(rank + 1)."""
    gain: dict[int, float] = {}
    total = 0.0
    for rank, subtopics in enumerate(ranked[:k]):
        score = 0.0
        for subtopic in subtopics:
            score += gain.get(subtopic, 1.0)
            gain[subtopic] = gain.get(subtopic, 1.0) * (1.0 - alpha)
        total += score * _discount(rank)
    return total


def ideal_ranking(relevant: Mapping[str, Sequence[int]], k: int, alpha: float) -> list[Sequence[int]]:
    """ndeval's greedy ideal ranking to depth k: at each rank the document with the highest gain
    given those above it, equal gains resolved by the larger doc id.

    A document's gain is re-summed (in subtopic order, as ndeval sums it) only when one of its
    subtopics was just covered."""
    gain: dict[int, float] = {}

    def worth(subtopics: Sequence[int]) -> float:
        score = 0.0
        for subtopic in subtopics:
            score += gain.get(subtopic, 1.0)
        return score

    scores = {doc: worth(subtopics) for doc, subtopics in relevant.items()}
    holders: dict[int, list[str]] = {}
    for doc, subtopics in relevant.items():
        for subtopic in subtopics:
            holders.setdefault(subtopic, []).append(doc)
    ideal: list[Sequence[int]] = []
    while scores and len(ideal) < k:
        best = max(scores, key=lambda doc: (scores[doc], doc))
        del scores[best]
        ideal.append(relevant[best])
        for subtopic in relevant[best]:
            gain[subtopic] = gain.get(subtopic, 1.0) * (1.0 - alpha)
        for doc in {doc for subtopic in relevant[best] for doc in holders[subtopic] if doc in scores}:
            scores[doc] = worth(relevant[doc])
    return ideal


def alpha_ndcg(judgements: SubtopicJudgements, ranking: Sequence[str], k: int, alpha: float) -> float:
    """alpha-DCG of the ranking's top k over that of the greedy ideal ranking; 0 when either is 0."""
    dcg = alpha_dcg([judgements.relevant.get(doc, ()) for doc in ranking], k, alpha)
    ideal = alpha_dcg(ideal_ranking(judgements.relevant, k, alpha), k, alpha)
    return dcg / ideal if dcg and ideal else 0.0


class AlphaNDCG(SampleMetric):
    """ir_measures' ``alpha_nDCG(alpha=..., rel=..., judged_only=...)@k``."""

    def score(self, example: Record, prediction: Record) -> float:
        p = self.params
        judgements = read_subtopics(example, p["relevance_level"])
        ranking = ranked_documents(prediction, p["ties"]).doc_ids
        if not check_present(len(judgements.judged), len(ranking), p["missing"]):
            return 0.0
        if p["judged_only"]:
            ranking = [doc for doc in ranking if doc in judgements.judged]
        return alpha_ndcg(judgements, ranking, p["k"], p["alpha"])
