"""A content-addressed on-disk cache for expensive calls (LLM judges, embedding models).

A key is the SHA-256 of the canonical JSON of everything that determines the answer: the
metric id and version, the prompt template hash, the model, the decoding parameters and
the inputs (see :func:`cache_key`). Each entry is one JSON file, written atomically, so
several processes can share a cache directory and an interrupted run keeps every entry
it finished.

Modes:

* ``readwrite`` (default): read hits, write misses.
* ``readonly``: read hits, never write (a shared, frozen cache).
* ``refresh``: never read, overwrite every entry (re-run and replace).
* ``off``: neither read nor write.

Entries may record ``usage`` (``prompt_tokens``, ``completion_tokens``) and
``cost_msats``; each hit adds them to :class:`CacheStats` as tokens and cost saved.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs
from evalcore.plugin import CACHE_MODES, CacheMode, check_cache_mode, default_cache_dir

if TYPE_CHECKING:
    from evalcore.plugin import RunContext

MODES: tuple[CacheMode, ...] = CACHE_MODES
"""The cache modes (:data:`evalcore.plugin.CACHE_MODES`)."""


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no whitespace; tuples are written as lists."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=_default)


def _default(value: Any) -> Any:
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise TypeError(f"cannot put {type(value).__name__} into a cache key")


def content_hash(value: Any) -> str:
    """The SHA-256 hex digest of the canonical JSON of ``value`` (or of a string itself)."""
    text = value if isinstance(value, str) else canonical_json(value)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cache_key(
    *, metric: str, version: str, template_hash: str, model: str,
    decoding: Mapping[str, Any], inputs: Any,
) -> str:
    """The content address of one call: every part that can change its answer."""
    return content_hash({
        "metric": metric, "version": version, "template": template_hash, "model": model,
        "decoding": dict(decoding), "inputs": inputs,
    })


@attrs.define
class CacheStats:
    """Hits, misses and writes, with the tokens and cost that hits saved."""

    hits: int = 0
    misses: int = 0
    writes: int = 0
    saved_prompt_tokens: int = 0
    saved_completion_tokens: int = 0
    saved_cost_msats: int = 0

    def to_dict(self) -> dict[str, int]:
        return attrs.asdict(self)


class ContentCache:
    """JSON values stored under their content address in ``directory``.

    ``mode`` is one of :data:`MODES` (default ``readwrite``; a run takes ``$EVALCORE_CACHE_MODE``
    or ``--cache-mode``, and metrics build their caches with :func:`run_cache`).
    """

    def __init__(self, directory: str | os.PathLike[str] | None = None, mode: str | None = None) -> None:
        self.mode: CacheMode = check_cache_mode(mode, "cache mode") or "readwrite"
        self.directory = Path(directory) if directory is not None else default_cache_dir()
        self.stats = CacheStats()
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"<ContentCache {str(self.directory)!r} mode={self.mode}>"

    def path(self, key: str) -> Path:
        """Where the entry for ``key`` lives."""
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> Any | None:
        """The stored value, or ``None`` on a miss (counted); a corrupt entry is a miss."""
        if self.mode in ("refresh", "off"):
            self._count(hit=False)
            return None
        try:
            value = json.loads(self.path(key).read_text(encoding="utf-8"))["value"]
        except (OSError, ValueError, KeyError, TypeError):
            self._count(hit=False)
            return None
        self._count(hit=True, value=value)
        return value

    def contains(self, key: str) -> bool:
        """Whether a read would hit (not counted in the stats)."""
        return self.mode in ("readwrite", "readonly") and self.path(key).is_file()

    def put(self, key: str, value: Any) -> bool:
        """Store ``value`` (JSON-serialisable) unless the mode forbids it; True when written."""
        if self.mode in ("readonly", "off"):
            return False
        target = self.path(key)
        target.parent.mkdir(parents=True, exist_ok=True)
        data = json.dumps({"key": key, "value": value}, ensure_ascii=False)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(data)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        with self._lock:
            self.stats.writes += 1
        return True

    def _count(self, *, hit: bool, value: Any = None) -> None:
        with self._lock:
            if not hit:
                self.stats.misses += 1
                return
            self.stats.hits += 1
            if isinstance(value, Mapping):
                usage = value.get("usage") or {}
                self.stats.saved_prompt_tokens += int(usage.get("prompt_tokens") or 0)
                self.stats.saved_completion_tokens += int(usage.get("completion_tokens") or 0)
                self.stats.saved_cost_msats += int(value.get("cost_msats") or 0)



def run_cache(context: RunContext, mode: str | None = None, folder: str | None = None) -> ContentCache | None:
    """The model-call cache of a run: ``mode`` / ``folder`` (a metric's own parameters) when given,
    else the run's, else ``readwrite`` in the default folder; ``None`` when the mode is ``off``."""
    mode = mode or context.cache_mode or "readwrite"
    if mode == "off":
        return None
    return ContentCache(folder or context.cache_dir, mode)
