"""Calibrating a judged metric against human labels: agreement, Cohen's kappa, confusion matrix, the labels file
(from evalcore-stats)."""

from evalcore._lazy import attach_stub

# Each public name is listed once, in the stub ``judge.pyi``, with the module that defines it.
__getattr__, __dir__, __all__ = attach_stub(globals())
