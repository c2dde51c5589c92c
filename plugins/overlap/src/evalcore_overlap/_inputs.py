"""Reading the texts a metric compares from an example/prediction pair.

Missing fields skip the sample, malformed ones are :class:`~evalcore.plugin.InputError`
results; both go through the core helpers so every plugin reports them alike.
"""

from __future__ import annotations

from evalcore.plugin import Record, SkipSample, doc_texts, reference_answers, response_text, text_field


def response(prediction: Record, empty: str = "score") -> str:
    """``prediction.response``; with ``empty="skip"`` a blank response skips the sample."""
    text = response_text(prediction)
    if empty == "skip" and not text.strip():
        raise SkipSample("prediction.response is empty")
    return text


def targets(example: Record, compare_to: str = "reference") -> list[str]:
    """The texts to compare the response with: the reference answers, or the query."""
    if compare_to == "query":
        return [text_field(example, "query", role="example")]
    return reference_answers(example)


def passages(prediction: Record, source: str = "auto") -> list[str]:
    """Passage texts: ``prediction.context`` (a list of strings, DSPy's field) or the
    ``text`` of ``prediction.retrieved``; ``auto`` takes ``context`` when present."""
    if source == "context" or (source == "auto" and prediction.get("context") is not None):
        return doc_texts(prediction.get("context"), field="prediction.context")
    return doc_texts(prediction.get("retrieved"), field="prediction.retrieved")


def evidence(example: Record, prediction: Record, source: str, top_k: int | None) -> list[str]:
    """Evidence texts: the first ``top_k`` retrieved docs, or the example's relevant docs."""
    if source == "relevant":
        texts = doc_texts(example.get("relevant_docs"), field="example.relevant_docs")
    else:
        texts = doc_texts(prediction.get("retrieved"), field="prediction.retrieved")
        if top_k is not None:
            texts = texts[:top_k]
    if not texts:
        raise SkipSample(f"no {source} documents to check the response against")
    return texts

