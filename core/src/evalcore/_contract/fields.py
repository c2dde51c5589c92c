"""Reading the standard fields of examples and predictions (the Auepora RAG metric spec names).

Examples carry ``query``, ``reference_answer`` (a string or a list of strings),
``relevant_docs`` and ``labels``; predictions carry ``response``, ``retrieved``,
``timings`` and ``usage``. Metrics read them through these helpers so that every plugin
treats missing and malformed fields the same way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from evalcore._lazy import publish

from .errors import InputError, SkipSample

_MISSING = object()

# DSPy-style objects name the gold answer and the predicted answer ``answer``, and the
# question ``question``.
_EXAMPLE_ALIASES = {"reference_answer": ("answer", "response"), "query": ("question",)}
_PREDICTION_ALIASES = {"response": ("answer",)}


def as_record(obj: Any, *, role: str) -> dict[str, Any]:
    """A plain dict of fields from a mapping, a ``dspy.Example``/``Prediction`` or an object.

    ``role`` is ``"example"`` or ``"prediction"``; DSPy's ``answer`` field is mapped to
    ``reference_answer`` (example) or ``response`` (prediction), and ``question`` to
    ``query``, when those are absent.
    """
    if isinstance(obj, Mapping):
        record = dict(obj)
    elif hasattr(obj, "toDict"):
        record = dict(obj.toDict())
    elif isinstance(obj, str):
        record = {"reference_answer" if role == "example" else "response": obj}
    elif hasattr(obj, "__dict__"):
        record = {k: v for k, v in vars(obj).items() if not k.startswith("_")}
    else:
        raise InputError(f"cannot read fields from {type(obj).__name__}", field=role)
    aliases = _EXAMPLE_ALIASES if role == "example" else _PREDICTION_ALIASES
    for field, names in aliases.items():
        if field not in record:
            for name in names:
                if name in record:
                    record[field] = record[name]
                    break
    return record


def get_path(record: Mapping[str, Any], path: str, default: Any = _MISSING) -> Any:
    """Look up a dotted path (``"output.data.summary"``, ``"items.0.name"``) in nested data.

    Raises :class:`KeyError` naming the path when it is absent and no default is given.
    """
    current: Any = record
    for part in path.split("."):
        if isinstance(current, Mapping) and part in current:
            current = current[part]
        elif isinstance(current, Sequence) and not isinstance(current, str) and part.isdigit() \
                and int(part) < len(current):
            current = current[int(part)]
        else:
            if default is _MISSING:
                raise KeyError(path)
            return default
    return current


def text_field(record: Mapping[str, Any], field: str, *, role: str = "prediction") -> str:
    """A required text field; raises :class:`InputError` if missing or not a string."""
    if field not in record or record[field] is None:
        raise SkipSample(f"{role}.{field} is missing")
    value = record[field]
    if not isinstance(value, str):
        raise InputError(
            f"expected a string, got {type(value).__name__}", field=f"{role}.{field}"
        )
    return value


def reference_answers(example: Mapping[str, Any]) -> list[str]:
    """The reference answers of an example as a non-empty list of strings.

    Skips the sample when there is none; raises :class:`InputError` when the field holds
    something other than a string or a list of strings.
    """
    value = example.get("reference_answer")
    if value is None:
        raise SkipSample("example.reference_answer is missing")
    if isinstance(value, str):
        return [value]
    if isinstance(value, Sequence) and all(isinstance(v, str) for v in value):
        if not value:
            raise SkipSample("example.reference_answer is an empty list")
        return list(value)
    raise InputError(
        f"expected a string or a list of strings, got {type(value).__name__} {value!r:.60}",
        field="example.reference_answer",
    )


def response_text(prediction: Mapping[str, Any]) -> str:
    """The predicted response text (``prediction.response``)."""
    return text_field(prediction, "response", role="prediction")


def doc_texts(docs: Any, *, field: str) -> list[str]:
    """The ``text`` of each document in a list of document dicts (or plain strings)."""
    if docs is None:
        raise SkipSample(f"{field} is missing")
    if not isinstance(docs, Sequence) or isinstance(docs, str):
        raise InputError(f"expected a list of documents, got {type(docs).__name__}", field=field)
    texts = []
    for index, doc in enumerate(docs):
        if isinstance(doc, str):
            texts.append(doc)
        elif isinstance(doc, Mapping) and isinstance(doc.get("text"), str):
            texts.append(doc["text"])
        else:
            raise InputError("document has no text", field=f"{field}[{index}].text")
    return texts


publish(globals())
