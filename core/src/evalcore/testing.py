"""Test helpers for evalcore and plugin authors: a scripted OpenAI-compatible server, records and
journals written by hand, the ``evalcore`` command in a fresh process, and quality gates
(``assert_metric``, ``assert_no_regression``). Part of evalcore-pytest (``pip install evalcore-pytest``)."""

from evalcore._lazy import attach_stub

# Each public name is listed once, in the stub ``testing.pyi``, with the module that defines it.
__getattr__, __dir__, __all__ = attach_stub(globals())
