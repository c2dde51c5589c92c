"""One budget for every Ray worker: an actor holds it, workers reserve and settle through a proxy.

The actor owns a :class:`~evalcore.Budget`, so the check "spent + reserved + estimate
<= limit" happens in one place and the limit holds across workers. A worker's
:class:`BudgetProxy` has the ``Budget`` interface the runners use; it reserves with one
actor call and defers settlements to its next call (a reservation held a little longer
only makes the check stricter). :meth:`BudgetProxy.flush` sends what is left before a
chunk's result is returned, so the driver reads the final spend when the run ends.
"""

from __future__ import annotations

import threading
from typing import Any

from .._budget import Budget


class BudgetKeeper:
    """The state of the run's budget, held by a Ray actor (``ray.remote(BudgetKeeper)``)."""

    def __init__(self, limit_msats: int | None, spent: int, reserved: int) -> None:
        self.budget = Budget(limit_msats)
        self.budget.spent = spent
        self.budget.reserved = reserved

    def reserve(self, estimate_msats: int, settled: list[tuple[int, int]]) -> bool:
        """Apply the ``(estimate, actual)`` settlements, then hold ``estimate_msats`` if it fits."""
        self.settle(settled)
        return self.budget.reserve(estimate_msats)

    def settle(self, settled: list[tuple[int, int]]) -> None:
        for estimate, actual in settled:
            self.budget.settle(estimate, actual)

    def state(self) -> dict[str, int]:
        return {"spent": self.budget.spent, "reserved": self.budget.reserved, "refused": self.budget.refused}


class BudgetProxy:
    """A worker's view of the run's budget: ``limit_msats``, ``reserve`` and ``settle``."""

    def __init__(self, limit_msats: int | None, keeper: Any) -> None:
        self.limit_msats = limit_msats
        self.keeper = keeper
        self._settled: list[tuple[int, int]] = []
        self._lock = threading.Lock()

    def __getstate__(self) -> dict[str, Any]:
        return {"limit_msats": self.limit_msats, "keeper": self.keeper}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["limit_msats"], state["keeper"])  # type: ignore[misc]

    def reserve(self, estimate_msats: int) -> bool:
        """Hold ``estimate_msats`` in the shared budget; ``False`` if it does not fit."""
        if self.limit_msats is None:
            return True
        import ray

        return bool(ray.get(self.keeper.reserve.remote(estimate_msats, self._take())))

    def settle(self, estimate_msats: int, actual_msats: int) -> None:
        """Release a reservation and record the actual cost (sent with the next call)."""
        if self.limit_msats is None:
            return
        with self._lock:
            self._settled.append((estimate_msats, actual_msats))

    def flush(self) -> None:
        """Send the deferred settlements and wait until the actor has applied them."""
        settled = self._take()
        if settled:
            import ray

            ray.get(self.keeper.settle.remote(settled))

    def _take(self) -> list[tuple[int, int]]:
        with self._lock:
            settled, self._settled = self._settled, []
        return settled


class SharedBudget:
    """The driver's side: starts the actor from the run's budget and folds the spend back."""

    def __init__(self, ray: Any, budget: Budget) -> None:
        self.budget = budget
        self.start = {"spent": budget.spent, "refused": budget.refused}
        self.keeper = None
        if budget.limit_msats is not None:
            self.keeper = ray.remote(num_cpus=0)(BudgetKeeper).remote(
                budget.limit_msats, budget.spent, budget.reserved)
        self.ray = ray

    def proxy(self) -> BudgetProxy:
        return BudgetProxy(self.budget.limit_msats, self.keeper)

    def close(self) -> None:
        """Report what the workers spent and refused in the run's budget; stop the actor."""
        if self.keeper is None:
            return
        keeper, self.keeper = self.keeper, None
        state = self.ray.get(keeper.state.remote())
        self.budget.settle(0, state["spent"] - self.start["spent"])
        self.budget.refused += state["refused"] - self.start["refused"]
        self.ray.kill(keeper)
