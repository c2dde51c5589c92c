"""A drop-in for the benchmark engine's metric registry: ``register_metric(key, fn)``,
``get_metric``, ``list_metrics`` / ``metric_keys``, ``apply_metrics`` and the aggregation
helpers, over evalcore's metrics, from evalcore-dropins (see :mod:`evalcore_dropins.engine` for the details)."""

from evalcore._lazy import attach_stub

# Each public name is listed once, in the stub ``engine.pyi``, with the module that defines it.
__getattr__, __dir__, __all__ = attach_stub(globals())
