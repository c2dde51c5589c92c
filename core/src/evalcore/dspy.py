"""A drop-in for ``dspy.Evaluate`` on top of :func:`evalcore.evaluate`: change
``from dspy import Evaluate`` to ``from evalcore.dspy import Evaluate``; from evalcore-dropins."""

from evalcore._lazy import attach_stub

# Each public name is listed once, in the stub ``dspy.pyi``, with the module that defines it.
__getattr__, __dir__, __all__ = attach_stub(globals())
