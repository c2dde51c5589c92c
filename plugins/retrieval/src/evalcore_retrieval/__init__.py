"""evalcore-retrieval: trec_eval-compatible retrieval metrics, vectorised with numpy.

Metrics are used through evalcore (``evalcore.get_metric("retrieval/ndcg@10")``); whole
runs given as pytrec_eval-style dicts are scored with :func:`evaluate_run`, runs given as
columns (numpy arrays, pandas, pyarrow) with :func:`evaluate_columns`, and TREC files are
read with :func:`read_trec` (diversity qrels, for alpha-nDCG, with :func:`read_subtopic_qrels`);
:func:`average` gives the means and :func:`column_scores` a metric's per-query values over a
:class:`Rankings`. Nothing heavy is imported until one of these is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["evaluate_run", "evaluate_columns", "average", "column_scores", "read_trec", "TrecData",
           "Rankings", "QueryScores", "read_subtopic_qrels"]

_HOMES = {
    "evaluate_run": "_api", "evaluate_columns": "_api", "average": "_api", "column_scores": "_api",
    "read_trec": "_trec", "TrecData": "_trec", "Rankings": "_ranking", "QueryScores": "_results",
    "read_subtopic_qrels": "_subtopic_qrels",
}


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        from importlib import import_module

        return getattr(import_module(f".{_HOMES[name]}", __name__), name)
    raise AttributeError(f"module 'evalcore_retrieval' has no attribute {name!r}")


if TYPE_CHECKING:  # pragma: no cover
    from ._api import average, column_scores, evaluate_columns, evaluate_run
    from ._ranking import Rankings
    from ._results import QueryScores
    from ._subtopic_qrels import read_subtopic_qrels
    from ._trec import TrecData, read_trec
