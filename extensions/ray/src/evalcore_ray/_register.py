"""The ``ray`` executor of evalcore-ray (imports only ``evalcore.plugin``: no Ray until it is used)."""

from __future__ import annotations

from evalcore.plugin import ExecutorSpec, hookimpl

__all__ = ["PLUGIN_API_VERSION", "evalcore_executors"]

PLUGIN_API_VERSION = 2  # executors are a plugin API 2 hook


@hookimpl
def evalcore_executors() -> list[ExecutorSpec]:
    return [ExecutorSpec(
        name="ray",
        implementation="evalcore_ray.executor:RayExecutor",
        options=[{"flag": "--ray-address", "dest": "address", "kind": "str",
                  "help": "The Ray cluster to join (ray://HOST:10001, or auto on a node); "
                          "default: a running Ray, else a local instance."}],
        summary="Chunks scored as Ray tasks, on a local Ray instance or an existing cluster.",
    )]
