"""Reading the number of passing tests from a test runner's output."""

from __future__ import annotations

import re

_CARGO_RESULT = re.compile(r"^test result: \w+\. (\d+) passed", re.MULTILINE)
_PASSED = re.compile(r"\b(\d+) passed\b")


def passed_count(output: str) -> int | None:
    """Tests reported as passing, or ``None`` when the output reports no count.

    cargo prints one ``test result: ok. N passed; M failed; ...`` line per test binary:
    their counts are summed. Otherwise the last ``N passed`` wins (pytest's summary line
    ``=== 3 passed, 1 failed in 0.12s ===`` comes last).
    """
    cargo = _CARGO_RESULT.findall(output)
    if cargo:
        return sum(int(n) for n in cargo)
    matches = _PASSED.findall(output)
    return int(matches[-1]) if matches else None
