"""The conformance kit for plugin authors: :class:`PluginConformance` and :class:`ComponentConformance`,
the checks every metric and component of a plugin must pass. Part of evalcore-pytest
(``pip install evalcore-pytest``)."""

from evalcore._lazy import attach_stub

# Each public name is listed once, in the stub ``testkit.pyi``, with the module that defines it.
__getattr__, __dir__, __all__ = attach_stub(globals())
