"""Logging runs and comparisons to experiment trackers (MLflow), and the public ``evaluate``
that does it with ``log_to``. Above the report, because a logged run carries its HTML page.

Nothing is imported here: ``evalcore.evaluate`` without ``log_to`` or ``labels`` loads neither
MLflow's support nor the comparison's modules."""
