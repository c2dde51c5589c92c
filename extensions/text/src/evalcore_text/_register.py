"""Registration of evalcore-text: a library of the metric families, it adds no metrics, readers or
commands; registering it shows it, with its version, in ``evalcore plugins``."""

PLUGIN_API_VERSION = 2
