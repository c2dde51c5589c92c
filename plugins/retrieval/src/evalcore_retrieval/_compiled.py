"""The compiled parts of the package, where they were built (C extensions; None where not).

``scanner`` (``_trec_scan``) reads TREC files in one pass and matches judgements;
``dict_reader`` (``_dict_values``) ranks pytrec_eval-style dicts. Where the
package was installed without a C compiler, pyarrow and numpy do the same work instead (the
same results, several times slower on large inputs). Their passes over many lines run in two
parts on two threads (:func:`in_two_parts`: they release the GIL).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from types import ModuleType
from typing import TypeVar

_T = TypeVar("_T")
TWO_THREADS = 1 << 20  # lines from which a compiled pass runs in two parts on two threads

scanner: ModuleType | None
dict_reader: ModuleType | None
try:
    from . import _trec_scan as scanner
except ImportError:
    scanner = None
try:
    from . import _dict_values as dict_reader
except ImportError:
    dict_reader = None


def in_two_parts(work: Callable[[int, int], _T], n_queries: int, lines: int, middle: Callable[[], int]) -> list[_T]:
    """``[work(0, n_queries)]``, or for ``lines`` of at least :data:`TWO_THREADS` ``work`` on
    queries ``0 .. m - 1`` and ``m .. n_queries - 1`` at once on two threads, ``m = middle()``
    (the query of the middle line, kept inside the range)."""
    if lines < TWO_THREADS or n_queries < 2:
        return [work(0, n_queries)]
    split = min(max(middle(), 1), n_queries - 1)
    with ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(work, (0, split), (split, n_queries)))
