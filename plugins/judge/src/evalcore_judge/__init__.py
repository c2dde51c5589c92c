"""evalcore-judge: LLM-as-judge metrics and the critic interface (the Auepora RAG metric spec).

Public names are imported on first access, so that listing metrics (which imports the
registration module, and with it this package) loads no implementation.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "CallableBackend": ".backends", "Completion": ".backends", "Decoding": ".backends",
    "HTTPBackend": ".backends", "Call": ".critic", "InvalidAnswer": ".critic", "LLMCritic": ".critic",
    "UnparseableJudgement": ".parsing", "parse_judgement": ".parsing", "read_answer": ".parsing",
    "JudgeAnswer": ".schemas", "make_judge": ".custom", "Scenario": ".simulate", "Simulation": ".simulate",
    "read_scenarios": ".simulate", "simulate": ".simulate", "align": ".alignment", "Alignment": ".alignment",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'evalcore_judge' has no attribute {name!r}")
    return getattr(importlib.import_module(module, __name__), name)


if TYPE_CHECKING:  # pragma: no cover - for type checkers only
    from .alignment import Alignment, align
    from .backends import CallableBackend, Completion, Decoding, HTTPBackend
    from .critic import Call, InvalidAnswer, LLMCritic
    from .custom import make_judge
    from .parsing import UnparseableJudgement, parse_judgement, read_answer
    from .schemas import JudgeAnswer
    from .simulate import Scenario, Simulation, read_scenarios, simulate
