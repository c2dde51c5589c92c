"""Metric ids as MLflow keys, and nested settings as flat string parameters.

MLflow names may hold only letters, digits, ``_ - . /`` and spaces (and no ``.`` or ``..`` path
segment), at most 250 characters; evalcore ids hold ``@``, brackets, quotes and ``=``
(``retrieval/ndcg@10``, ``overlap/rouge(variant='L')``). Each run of other characters becomes one
``_`` and a trailing ``_`` is dropped: ``retrieval/ndcg_10``, ``overlap/rouge_variant_L``. The
mapping depends on the id alone, so a metric keeps its key across runs; where two ids of one run
would share a key, the later gets ``-`` and eight hex digits of its id's SHA-1. The original id is
logged beside each key (the parameter ``metric.<key>.id``).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

_OUTSIDE = re.compile(r"[^A-Za-z0-9_.\-/]+")
MAX_KEY = 200
"""Room left for the suffixes (``.ci_high``, ``.randomization.p_adjusted``) under MLflow's 250."""
MAX_VALUE = 6000
"""MLflow's longest parameter value."""


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:8]


def mlflow_key(metric_id: str) -> str:
    """The MLflow name of ``metric_id`` (see the module docstring)."""
    segments = [_OUTSIDE.sub("_", part) for part in metric_id.split("/")]
    key = "/".join(part if part.strip(".") else "_" * max(1, len(part)) for part in segments)
    key = re.sub(r"^\.+", lambda dots: "_" * len(dots.group()), key)  # no leading "..": not a path up
    stripped = key.rstrip("_")
    key = stripped if stripped and not stripped.endswith("/") else key
    if len(key) > MAX_KEY:
        key = f"{key[:MAX_KEY - 9]}-{_digest(metric_id)}"
    return key


def mlflow_keys(metric_ids: Iterable[str]) -> dict[str, str]:
    """``{metric id: key}``, distinct keys for distinct ids (in the given order)."""
    keys: dict[str, str] = {}
    taken: set[str] = set()
    for metric_id in metric_ids:
        if metric_id in keys:
            continue
        key = mlflow_key(metric_id)
        if key in taken:
            key = f"{key[:MAX_KEY - 9]}-{_digest(metric_id)}"
        keys[metric_id] = key
        taken.add(key)
    return keys


def param_value(value: Any) -> str:
    """A parameter's text: strings as they are, anything else as JSON (``null``, ``0.95``, ``{}``)."""
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= MAX_VALUE else text[:MAX_VALUE - 1] + "…"


def flat_params(prefix: str, values: Mapping[str, Any]) -> dict[str, str]:
    """``{prefix.key: text}`` for each setting, nested mappings flattened (``input.sha256``)."""
    flat: dict[str, str] = {}
    for name, value in values.items():
        key = f"{prefix}.{_OUTSIDE.sub('_', str(name))}"
        if isinstance(value, Mapping) and value:
            flat.update(flat_params(key, value))
        else:
            flat[key] = param_value(value)
    return flat
