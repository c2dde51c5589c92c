"""Registration of evalcore-http: a library of the judge and semantic families, it adds no metrics,
readers or commands; registering it shows it, with its version, in ``evalcore plugins``."""

PLUGIN_API_VERSION = 2
