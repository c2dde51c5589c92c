"""The content-addressed cache of model calls that judge and embedding metrics share (evalcore-http's).

Metrics get theirs from the run (:func:`run_cache`); this module also names the pieces for code
that builds or inspects a cache directly.
"""

from evalcore._lazy import attach_stub

# Each public name is listed once, in the stub ``cache.pyi``, with the module that defines it.
__getattr__, __dir__, __all__ = attach_stub(globals())
