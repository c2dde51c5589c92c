"""The ``wandb`` tracker's spec (imports only ``evalcore.plugin``; wandb loads when a run is logged)."""

from __future__ import annotations

from evalcore.plugin import ReaderOption, TrackerSpec, hookimpl

__all__ = ["PLUGIN_API_VERSION", "evalcore_trackers"]

PLUGIN_API_VERSION = 2  # trackers are a plugin API 2 hook


@hookimpl
def evalcore_trackers() -> list[TrackerSpec]:
    return [TrackerSpec(
        name="wandb", implementation="evalcore_wandb.tracker:WandbTracker",
        options=[
            ReaderOption("--wandb-project", "project", "W&B project (default: evalcore)", kind="str"),
            ReaderOption("--wandb-dir", "dir", "folder W&B writes its run into (default: the current one)",
                         kind="str"),
            ReaderOption("--wandb-mode", "mode", "offline (default: written to the folder only, wandb sync uploads "
                         "it later) or online", kind="str"),
        ],
        summary="Weights & Biases, offline by default: config, each metric with its interval, the rows table "
                "and the HTML report",
    )]
