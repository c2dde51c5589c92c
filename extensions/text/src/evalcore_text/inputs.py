"""The texts a metric compares, read from an example/prediction pair the same way in every plugin
(also public as ``evalcore.plugin.inputs``).

``response`` (the prediction's answer), ``targets`` (what it is compared with: the reference
answers or the query), ``passages`` (DSPy's ``prediction.context`` or the retrieved texts) and
``evidence`` (what a response must be supported by). A missing field skips the sample, a
malformed one is an :class:`InputError`; ``blank`` says what a text of only whitespace does:
``"score"`` it (e.g. as 0 overlap) or ``"skip"`` the sample with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from evalcore.plugin import ParameterError, SkipSample, doc_texts, reference_answers, response_text, text_field

Blank = Literal["score", "skip"]
Record = Mapping[str, Any]


def response(prediction: Record, *, blank: Blank = "score") -> str:
    """``prediction.response``; with ``blank="skip"`` a blank response skips the sample."""
    text = response_text(prediction)
    _check_blank(blank)
    if blank == "skip" and not text.strip():
        raise SkipSample("prediction.response is empty")
    return text


def targets(example: Record, compare_to: str = "reference", *, blank: Blank = "score") -> list[str]:
    """The texts a response is compared with: the reference answers, or the query (``compare_to``).

    With ``blank="skip"`` blank texts are left out, and the sample is skipped when none is left.
    """
    _check_blank(blank)
    if compare_to == "query":
        found, field = [text_field(example, "query", role="example")], "example.query"
    elif compare_to == "reference":
        found, field = reference_answers(example), "example.reference_answer"
    else:
        raise ParameterError(f"compare_to must be 'reference' or 'query'; got {compare_to!r}")
    if blank == "skip":
        found = [text for text in found if text.strip()]
        if not found:
            raise SkipSample(f"{field} is empty")
    return found


def passages(prediction: Record, source: str = "auto") -> list[str]:
    """Passage texts: ``prediction.context`` (a list of strings, DSPy's field) or the ``text`` of
    ``prediction.retrieved``; ``auto`` takes ``context`` when present."""
    if source == "context" or (source == "auto" and prediction.get("context") is not None):
        return doc_texts(prediction.get("context"), field="prediction.context")
    return doc_texts(prediction.get("retrieved"), field="prediction.retrieved")


def evidence(example: Record, prediction: Record, source: str = "retrieved", k: int | None = None) -> list[str]:
    """What a response must be supported by: the first ``k`` retrieved documents (``source=
    "retrieved"``; when nothing was retrieved, DSPy's ``prediction.context``, one string or a list)
    or the example's relevant documents (``"relevant"``). No document skips the sample."""
    context = prediction.get("context")
    if source == "relevant":
        texts = doc_texts(example.get("relevant_docs"), field="example.relevant_docs")
    elif source == "retrieved" and prediction.get("retrieved") is None and context is not None:
        texts = doc_texts([context] if isinstance(context, str) else context, field="prediction.context")
    elif source == "retrieved":
        texts = doc_texts(prediction.get("retrieved"), field="prediction.retrieved")
    else:
        raise ParameterError(f"evidence source must be 'retrieved' or 'relevant'; got {source!r}")
    texts = texts[:k] if k else texts
    if not texts:
        raise SkipSample(f"no {source} documents to check the response against")
    return texts


def _check_blank(blank: str) -> None:
    if blank not in ("score", "skip"):
        raise ParameterError(f"blank must be 'score' or 'skip'; got {blank!r}")
