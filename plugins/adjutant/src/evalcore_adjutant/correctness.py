"""Adjutant's decision-correctness rules (outcome feedback).

| decision | correct when |
|---|---|
| complexity | the task succeeded within the iterations expected for the predicted level |
| delegation | the task succeeded; on failure, when it was delegated (delegated failures are less wrong) |
| rlm_trigger | the task succeeded; or the context was large (> 100k tokens) and RLM was used |

Sessions that were interrupted, ended in a system error or have no outcome are not judged.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .sessions import Decision, Session

FAILURES = ("failed", "max_iterations")
DEFAULT_COMPLEXITY_ITERATIONS = {"low": 2, "medium": 4, "high": 7}


def _level(output: Mapping[str, Any]) -> str:
    value = output.get("complexity", "Medium")
    return str(value).lower().replace("_", "").replace(" ", "")


def _flag(output: Mapping[str, Any], name: str) -> bool:
    return output.get(name) is True


def is_correct(
    signature: str, output: Mapping[str, Any], decision: Decision, session: Session, *,
    complexity_iterations: Mapping[str, int], large_context_tokens: int,
) -> bool | None:
    """Whether ``output`` (the DSPy or the legacy one) was right given the session's outcome.

    ``None`` when the outcome cannot judge it. Complexity levels missing from
    ``complexity_iterations`` (e.g. VeryHigh) accept any number of iterations.
    """
    if session.outcome not in ("success", *FAILURES):
        return None
    succeeded = session.outcome == "success"
    if signature == "complexity":
        limit = complexity_iterations.get(_level(output))
        return succeeded and (limit is None or session.iterations_used <= limit)
    if signature == "delegation":
        return succeeded or _flag(output, "should_delegate")
    if signature == "rlm_trigger":
        return succeeded or (decision.estimated_tokens > large_context_tokens and _flag(output, "use_rlm"))
    return None
