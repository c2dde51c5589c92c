"""The compiled part of the package, where it was built (None where not).

``ter`` (``_ter``) computes sacrebleu's translation edit rate of a sentence pair (``lib_ter``'s beam
edit distance and shift search) in C, with the same results. Where the package was installed
without a C compiler, sacrebleu's own Python does the same work (the same numbers, several times
slower).
"""

from __future__ import annotations

from types import ModuleType

ter: ModuleType | None
try:
    from . import _ter as ter
except ImportError:
    ter = None
