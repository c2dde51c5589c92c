"""Logging runs and comparisons to experiment trackers (MLflow), and the public ``evaluate``
that does it with ``log_to``. Above the report, because a logged run carries its HTML page."""

from .mlflow_sink import MlflowTracker, TrackingError, open_tracker

__all__ = ["MlflowTracker", "TrackingError", "open_tracker"]
