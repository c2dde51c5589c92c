"""evalcore: evaluation metrics for ML, LLM, RAG and agent systems.

Importing this package loads nothing else: plugins are discovered the first time a
function such as :func:`list_metrics` or :func:`get_metric` needs them, and each public
name is imported from its module on first access.
"""

from ._lazy import attach_stub, with_deprecated_aliases
from ._version import __version__

# Each public name is listed once, in the stub ``__init__.pyi``, with the module that defines it.
_names, __dir__, __all__ = attach_stub(globals())
# names that moved, answering with a warning that says where they live now
__getattr__ = with_deprecated_aliases(_names, __name__,
                                      {"read_records": "evalcore.plugin", "aggregate": "evalcore.plugin"})
