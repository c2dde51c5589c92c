"""evalcore-judge: LLM-as-judge metrics and the critic interface (seed 002 §8)."""

from .backends import CallableBackend, Completion, Decoding, HTTPBackend
from .critic import Call, LLMCritic
from .parsing import UnparseableJudgement, parse_judgement

__all__ = [
    "CallableBackend", "Completion", "Decoding", "HTTPBackend", "Call", "LLMCritic",
    "UnparseableJudgement", "parse_judgement",
]
