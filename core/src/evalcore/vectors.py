"""Vector helpers shared by embedding-based metrics (evalcore-text's; they import numpy: use them
from implementations)."""

from evalcore._lazy import attach_stub

# Each public name is listed once, in the stub ``vectors.pyi``, with the module that defines it.
__getattr__, __dir__, __all__ = attach_stub(globals())
