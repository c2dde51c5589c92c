"""Everything a plugin author needs, in one import.

A registration module (the target of an ``evalcore.plugins`` entry point) looks like::

    from evalcore.plugin import MetricSpec, ParamSpec, hookimpl

    PLUGIN_API_VERSION = 2  # the plugin API these specs are written for (a literal, checked on load)

    @hookimpl
    def evalcore_metrics():
        return [MetricSpec(name="my_metric", implementation="my_pkg.metrics:MyMetric", ...)]

It must import nothing heavy (this module imports each name on first use, so a registration
module that takes only specs loads no metric machinery); implementations subclass
:class:`SampleMetric`, :class:`BatchMetric` or :class:`CorpusMetric` and live in modules
imported on use.
"""

from ._lazy import attach_stub

# Each public name is listed once, in the stub ``plugin.pyi``, with the module that defines it.
__getattr__, __dir__, __all__ = attach_stub(globals())
