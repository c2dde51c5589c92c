"""Text normalisation and tokenisation shared by the text metrics of every plugin
(evalcore-text's)."""

from evalcore._lazy import attach_stub

# Each public name is listed once, in the stub ``text.pyi``, with the module that defines it.
__getattr__, __dir__, __all__ = attach_stub(globals())
