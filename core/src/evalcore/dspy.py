"""A drop-in for ``dspy.Evaluate`` on top of :func:`evalcore.evaluate`: change
``from dspy import Evaluate`` to ``from evalcore.dspy import Evaluate``."""

from evalcore._compat.dspy import Evaluate, as_program, is_dspy_module

__all__ = ["Evaluate", "as_program", "is_dspy_module"]
