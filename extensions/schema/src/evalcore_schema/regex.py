"""Regular expressions that come from data, searched in linear time.

A pattern from a record or a JSON schema runs on RE2 (google-re2), whose matching time
is linear in the text, so ``^(a+)+$`` cannot backtrack for ever. A pattern RE2 does not
support (look-around, back-references), or any pattern when google-re2 is not installed,
runs on Python's ``re`` in a separate process that is killed after a time limit.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
from collections.abc import Callable
from typing import Any

from evalcore.plugin import InputError

#: Seconds a pattern may run on the fallback engine before it is an input error.
FALLBACK_TIMEOUT_S = 2.0

_FALLBACK = (
    "import json, re, sys\n"
    "job = json.load(sys.stdin)\n"
    "print(int(re.search(job['pattern'], job['text']) is not None))\n"
)


def _re2() -> Any | None:
    try:
        import re2
    except ImportError:
        return None
    return re2


@functools.lru_cache(maxsize=1024)
def _linear(pattern: str) -> Callable[[str], Any] | None:
    """RE2's search for ``pattern``, or ``None`` when RE2 is missing or rejects it."""
    re2 = _re2()
    if re2 is None:
        return None
    try:
        return re2.compile(pattern).search
    except Exception:  # noqa: BLE001 - re2.error: syntax RE2 does not support
        return None


def regex_search(pattern: str, text: str, *, where: str = "pattern",
                 timeout_s: float = FALLBACK_TIMEOUT_S) -> bool:
    """Whether ``pattern`` matches somewhere in ``text`` (``re.search`` semantics).

    Raises :class:`InputError` naming ``where`` when the pattern is invalid or, on the
    fallback engine, runs longer than ``timeout_s``.
    """
    search = _linear(pattern)
    if search is not None:
        return search(text) is not None
    return _bounded_search(pattern, text, where, timeout_s)


def _bounded_search(pattern: str, text: str, where: str, timeout_s: float) -> bool:
    job = json.dumps({"pattern": pattern, "text": text})
    try:
        done = subprocess.run(
            [sys.executable, "-I", "-S", "-c", _FALLBACK], input=job, capture_output=True, text=True,
            timeout=timeout_s, check=False,
        )
    except subprocess.TimeoutExpired:
        raise InputError(f"regular expression {pattern!r:.80} ran longer than {timeout_s:g} s "
                         "(and RE2 cannot run it in linear time)", field=where) from None
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["it does not compile"])[-1]
        raise InputError(f"invalid regular expression {pattern!r:.80}: {last}", field=where)
    return done.stdout.strip() == "1"

