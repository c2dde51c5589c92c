"""Registration of evalcore-runs: a library of the statistics and report extensions, it adds no
metrics, readers or commands; registering it shows it, with its version, in ``evalcore plugins``."""

PLUGIN_API_VERSION = 2
