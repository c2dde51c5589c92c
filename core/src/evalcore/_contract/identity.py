"""Metric ids: parsing ``namespace/name(param=value)@k`` and writing the canonical form.

The canonical id of a metric is its ``namespace/name`` followed by its identity parameters
that differ from their defaults, in the order the spec declares them: ``k`` is written as
``@k`` (``retrieval/ndcg@10``) and the others inside parentheses with Python literal
values (``retrieval/ndcg(gain='exp2')@10``); a ``k`` of None where the default is a number
is written ``(k=None)``.
"""

from __future__ import annotations

import ast
import re
from typing import Any, NamedTuple

from evalcore._lazy import publish

from .errors import MetricIdError
from .spec import MetricSpec

#: Longest metric id accepted (parameters included); longer text is not an id.
MAX_ID_CHARS = 4096

_ID_PATTERN = re.compile(
    r"""^\s*
    (?:(?P<namespace>[a-z][a-z0-9_]*)/)?
    (?P<name>[a-z][a-z0-9_]*)
    (?:\((?P<params>.*)\))?
    (?:@(?P<k>[^@()]*))?
    \s*$""",
    re.VERBOSE | re.DOTALL,
)


class ParsedId(NamedTuple):
    """A metric id split into its parts; ``namespace`` is ``None`` for a bare name."""

    namespace: str | None
    name: str
    params: dict[str, Any]

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}" if self.namespace else self.name


def parse_metric_id(text: str) -> ParsedId:
    """Split a metric id into namespace, name and parameter values.

    >>> parse_metric_id("retrieval/ndcg(gain='exp2')@10")
    ParsedId(namespace='retrieval', name='ndcg', params={'gain': 'exp2', 'k': 10})
    """
    if not isinstance(text, str):
        raise MetricIdError(f"a metric id must be a string; got {type(text).__name__}")
    if len(text) > MAX_ID_CHARS:
        raise MetricIdError(f"metric id {_shown(text)} has {len(text)} characters; at most {MAX_ID_CHARS} are allowed")
    match = _ID_PATTERN.match(text)
    if not match:
        raise MetricIdError(
            f"cannot parse metric id {_shown(text)}; expected 'namespace/name', "
            "optionally with '(param=value, ...)' and '@k'"
        )
    params = _parse_params(text, match.group("params"))
    k_text = match.group("k")
    if k_text is not None:
        if "k" in params:
            raise MetricIdError(f"metric id {_shown(text)} gives k twice")
        params["k"] = _parse_value(text, "k", k_text.strip())
    return ParsedId(match.group("namespace"), match.group("name"), params)


def _parse_params(text: str, params_text: str | None) -> dict[str, Any]:
    if params_text is None or not params_text.strip():
        return {}
    wrapped = f"f({params_text})"
    try:
        call = ast.parse(wrapped, mode="eval").body
    except (SyntaxError, ValueError):
        raise MetricIdError(f"cannot parse the parameters of metric id {_shown(text)}") from None
    except (RecursionError, MemoryError):
        raise MetricIdError(f"the parameters of metric id {_shown(text)} are nested too deeply") from None
    if not isinstance(call, ast.Call) or call.args:
        raise MetricIdError(f"parameters of metric id {_shown(text)} must be written name=value")
    params: dict[str, Any] = {}
    for keyword in call.keywords:
        if keyword.arg is None:
            raise MetricIdError(f"parameters of metric id {_shown(text)} must be written name=value")
        try:
            params[keyword.arg] = ast.literal_eval(keyword.value)
        except (RecursionError, MemoryError):
            raise MetricIdError(f"parameter {keyword.arg!r} in metric id {_shown(text)} is nested too deeply") from None
        except (ValueError, TypeError, SyntaxError):
            source = ast.get_source_segment(wrapped, keyword.value) or ""
            if len(source) > 60:
                raise MetricIdError(
                    f"parameter {keyword.arg!r} in metric id {_shown(text)} must be a literal") from None
            raise MetricIdError(
                f"parameter {keyword.arg!r} in metric id {_shown(text)} must be a literal; "
                f"got {source} (quote strings: {keyword.arg}='{source}')"
            ) from None
    return params


def _parse_value(text: str, name: str, value_text: str) -> Any:
    try:
        return ast.literal_eval(value_text)
    except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError):
        raise MetricIdError(
            f"parameter {name!r} in metric id {_shown(text)} must be a literal; got {_shown(value_text)}"
        ) from None


def _shown(text: str, limit: int = 120) -> str:
    """``text`` quoted for a message, its middle left out when it is long."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit // 2]!r}…{text[-limit // 2:]!r} ({len(text)} characters)"


def canonical_id(spec: MetricSpec, params: dict[str, Any]) -> str:
    """The canonical id of ``spec`` bound to ``params`` (already validated)."""
    inner: list[str] = []
    k_suffix = ""
    for param in spec.params:
        if not param.identity:
            continue
        value = params.get(param.name, param.default)
        if param.name == "k" and (value is not None or param.default is None):
            if value is not None:
                k_suffix = f"@{_literal(value)}"
            continue
        if value != param.default:
            inner.append(f"{param.name}={_literal(value)}")
    text = spec.key
    if inner:
        text += "(" + ", ".join(inner) + ")"
    return text + k_suffix


def _literal(value: Any) -> str:
    return repr(list(value) if isinstance(value, tuple) else value)


_TAG = "$t"  # the state codec's tag (evalcore._contract.state_codec), so a journal has one form


def params_to_json(params: dict[str, Any]) -> dict[str, Any]:
    """A metric's parameters in a form JSON keeps exactly: a mapping with a key that is not a
    string (nDCG's ``gains={1: 3.0}``) is written ``{"$t": "dict", "v": [[key, value], ...]}``,
    as the state codec writes one, and tuples as lists; :func:`params_from_json` reads it back."""
    return {name: _to_json(value) for name, value in params.items()}


def params_from_json(data: dict[str, Any]) -> dict[str, Any]:
    """The parameters :func:`params_to_json` wrote (plain JSON parameters pass through)."""
    return {name: _from_json(value) for name, value in data.items()}


def _to_json(value: Any) -> Any:
    if isinstance(value, dict):
        if all(isinstance(key, str) for key in value) and _TAG not in value:
            return {key: _to_json(item) for key, item in value.items()}
        return {_TAG: "dict", "v": [[_to_json(key), _to_json(item)] for key, item in value.items()]}
    if isinstance(value, (list, tuple)):
        return [_to_json(item) for item in value]
    return value


def _from_json(value: Any) -> Any:
    if isinstance(value, list):
        return [_from_json(item) for item in value]
    if not isinstance(value, dict):
        return value
    if value.get(_TAG) == "dict" and set(value) == {_TAG, "v"} and isinstance(value["v"], list):
        return {_hashable(_from_json(key)): _from_json(item) for key, item in value["v"]}
    return {key: _from_json(item) for key, item in value.items()}


def _hashable(value: Any) -> Any:
    return tuple(_hashable(item) for item in value) if isinstance(value, list) else value


publish(globals())
