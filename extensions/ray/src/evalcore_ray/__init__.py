"""evalcore-ray: score a run's chunks as Ray tasks (``--executor ray``), locally or on a cluster.

Importing the package imports no Ray: the executor (:mod:`evalcore_ray.executor`) does, when a
run uses it.
"""

from evalcore.plugin import ExecutorError

__all__ = ["RayUnavailable"]
__version__ = "0.1.0"


class RayUnavailable(ExecutorError):
    """``executor="ray"`` was asked for, but Ray is not installed or cannot be reached."""
