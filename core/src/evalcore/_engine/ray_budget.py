"""One budget for every Ray worker: an actor holds it, workers lease from it per chunk.

The actor owns a :class:`~evalcore.Budget`, so the check "spent + reserved <= limit"
happens in one place. A call to it per sample costs milliseconds, so a worker's
:class:`BudgetProxy` (the ``Budget`` interface the runners use: ``limit_msats``,
``reserve``, ``settle``) leases a block at a time, sized to the estimates of the calls
its chunk will still make, and serves reservations from it locally. A lease counts as
reserved in the actor until the chunk ends and the proxy hands back what it did not
spend (:meth:`BudgetProxy.flush`), so the workers together never reserve more than the
limit. Near the end of a budget, a block leased by one worker but not yet used may make
another worker skip a sample that a local run would have scored; the limit always holds.
"""

from __future__ import annotations

import threading
from typing import Any

from .._budget import Budget


class BudgetKeeper:
    """The run's budget, held by a Ray actor (``ray.remote(BudgetKeeper)``)."""

    def __init__(self, limit_msats: int, spent: int, reserved: int) -> None:
        self.budget = Budget(limit_msats)
        self.budget.spent = spent
        self.budget.reserved = reserved

    def exchange(self, want: int, minimum: int, returned: int, spent: int, refused: int) -> int:
        """Take back ``returned`` of a lease (``spent`` of it spent, ``refused`` calls refused);
        then lease ``want``, or what is left if that is at least ``minimum``, else nothing."""
        budget = self.budget
        budget.settle(returned, spent)
        budget.refused += refused
        left = budget.limit_msats - budget.spent - budget.reserved  # type: ignore[operator]
        granted = want if want <= left else (left if left >= minimum else 0)
        budget.reserved += granted
        return granted

    def state(self) -> dict[str, int]:
        return {"spent": self.budget.spent, "reserved": self.budget.reserved, "refused": self.budget.refused}


class BudgetProxy:
    """A worker's share of the run's budget, with the interface of :class:`~evalcore.Budget`."""

    def __init__(self, limit_msats: int | None, keeper: Any) -> None:
        self.limit_msats = limit_msats
        self.keeper = keeper
        self._lock = threading.Lock()
        self._leased = self._held = self._spent = self._refused = self._expected = 0

    def __getstate__(self) -> dict[str, Any]:
        return {"limit_msats": self.limit_msats, "keeper": self.keeper}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["limit_msats"], state["keeper"])  # type: ignore[misc]

    def expect(self, calls: int) -> None:
        """The chunk about to be scored makes at most ``calls`` reservations (sizes the lease)."""
        with self._lock:
            self._expected = calls

    def reserve(self, estimate_msats: int) -> bool:
        """Hold ``estimate_msats``; ``False`` (and counted) if the shared budget cannot cover it."""
        if self.limit_msats is None:
            return True
        with self._lock:
            self._expected = max(self._expected - 1, 0)
            short = estimate_msats - (self._leased - self._held - self._spent)
            if short > 0 and not self._lease(estimate_msats, estimate_msats * (self._expected + 1)):
                self._refused += 1
                return False
            self._held += estimate_msats
            return True

    def settle(self, estimate_msats: int, actual_msats: int) -> None:
        """Release a reservation and record what the call actually cost."""
        if self.limit_msats is None:
            return
        with self._lock:
            self._held -= estimate_msats
            self._spent += actual_msats

    def flush(self) -> None:
        """Hand back the unused lease, the spend and the refusals (at the end of each chunk)."""
        if self.limit_msats is None:
            return
        with self._lock:
            self._lease(0, 0)

    def _lease(self, minimum: int, want: int) -> bool:
        """Hand back the unused lease with the spend so far; lease ``want`` anew (at least ``minimum``)."""
        import ray

        returned = self._leased - self._held  # keep only what calls in flight hold
        granted = ray.get(self.keeper.exchange.remote(want, minimum, returned, self._spent, self._refused))
        self._leased, self._spent, self._refused = self._held + granted, 0, 0
        return granted >= minimum


class SharedBudget:
    """The driver's side: starts the actor from the run's budget and folds the spend back."""

    def __init__(self, ray: Any, budget: Budget) -> None:
        self.ray = ray
        self.budget = budget
        self.start = {"spent": budget.spent, "refused": budget.refused}
        self.keeper = None
        if budget.limit_msats is not None:
            self.keeper = ray.remote(num_cpus=0)(BudgetKeeper).remote(
                budget.limit_msats, budget.spent, budget.reserved)

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
