"""The compiled parts of the package, where they were built (C extensions; None where not).

``scanner`` (``_trec_scan``) reads TREC files in one pass and matches judgements;
``dict_reader`` (``_dict_values``) ranks pytrec_eval-style dicts. Where the
package was installed without a C compiler, pyarrow and numpy do the same work instead (the
same results, several times slower on large inputs).
"""

from __future__ import annotations

from types import ModuleType

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
