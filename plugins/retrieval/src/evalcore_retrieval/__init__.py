"""evalcore-retrieval: trec_eval-compatible retrieval metrics, vectorised with numpy.

Metrics are used through evalcore (``evalcore.get_metric("retrieval/ndcg@10")``); whole
runs given as pytrec_eval-style dicts are scored with :func:`evaluate_run` and averaged
with :func:`average`. Nothing heavy is imported until one of these is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["evaluate_run", "average"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import _api

        return getattr(_api, name)
    raise AttributeError(f"module 'evalcore_retrieval' has no attribute {name!r}")


if TYPE_CHECKING:  # pragma: no cover
    from ._api import average, evaluate_run
