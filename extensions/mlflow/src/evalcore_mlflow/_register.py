"""The ``mlflow`` tracker's spec (imports only ``evalcore.plugin``; MLflow loads when a run is logged)."""

from __future__ import annotations

from evalcore.plugin import TrackerSpec, hookimpl

__all__ = ["PLUGIN_API_VERSION", "evalcore_trackers"]

PLUGIN_API_VERSION = 2  # trackers are a plugin API 2 hook


@hookimpl
def evalcore_trackers() -> list[TrackerSpec]:
    return [TrackerSpec(
        name="mlflow", implementation="evalcore_mlflow.tracker:MlflowTracker",
        summary="MLflow's active tracking URI ($MLFLOW_TRACKING_URI) and experiment: parameters, each metric "
                "with its interval, the rows table and the HTML report; a comparison with a nested run per system",
    )]
