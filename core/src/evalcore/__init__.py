"""evalcore: evaluation metrics for ML, LLM, RAG and agent systems.

Importing this package loads nothing else: plugins are discovered the first time a
function such as :func:`list_metrics` or :func:`get_metric` needs them, and each public
name is imported from its module on first access.
"""

from ._lazy import attach_stub
from ._version import __version__

# Each public name is listed once, in the stub ``__init__.pyi``, with the module that defines it.
__getattr__, __dir__, __all__ = attach_stub(globals())
