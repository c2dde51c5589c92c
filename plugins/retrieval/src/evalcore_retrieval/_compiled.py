"""The compiled pass over TREC files (the ``_trec_scan`` extension), where it was built.

``scanner`` is the extension module, or None where the package was installed without a C
compiler: pyarrow and numpy then read the files and match the judgements instead (the same
columns and grades, several times slower on large files).
"""

from __future__ import annotations

from types import ModuleType

scanner: ModuleType | None
try:
    from . import _trec_scan as scanner
except ImportError:
    scanner = None
