"""One budget for every Ray worker: an actor holds it, workers lease from it per chunk.

The actor owns a :class:`~evalcore.Budget`, so the check "spent + reserved <= limit"
happens in one place. A call to it per sample costs milliseconds, so a worker's
:class:`BudgetProxy` (the ``Budget`` interface the runners use: ``limit_msats``,
``remaining``, ``reserve``, ``settle``) leases a block at a time, sized to the estimates of
the calls its chunk will still make, and serves reservations from it locally. A lease
counts as reserved in the actor until the chunk ends and the proxy hands back what it did
not spend (:meth:`BudgetProxy.flush`), so the workers together never reserve more than
the limit. Near the end of a budget, a block leased by one worker but not yet used may
make another worker skip a sample that a local run would have scored; the limit holds.
Without a limit there is no actor: each chunk reports what its calls were charged.
"""

from __future__ import annotations

import threading
from typing import Any

import attrs
from evalcore import Budget


@attrs.define
class Usage:
    """What a worker's calls were charged (and refused) since its last report."""

    spent: int = 0
    refused: int = 0
    overrun_msats: int = 0
    overrun_calls: int = 0

    def add_to(self, budget: Budget) -> None:
        """Count this usage in ``budget`` (the driver's, which no worker can reach)."""
        budget.spent += self.spent
        budget.refused += self.refused
        budget.overrun_msats += self.overrun_msats
        budget.overrun_calls += self.overrun_calls


class BudgetKeeper:
    """The run's budget, held by a Ray actor (``ray.remote(BudgetKeeper)``)."""

    def __init__(self, limit_msats: int, spent: int, reserved: int) -> None:
        self.budget = Budget(limit_msats)
        self.budget.spent = spent
        self.budget.reserved = reserved

    def exchange(self, want: int, minimum: int, returned: int, usage: Usage) -> tuple[int, int]:
        """Take back ``returned`` of a lease and count ``usage``; then lease ``want``, or what is
        left if that is at least ``minimum``, else nothing. Returns the lease and what is left."""
        budget = self.budget
        budget.reserved -= returned
        usage.add_to(budget)
        left = budget.limit_msats - budget.spent - budget.reserved  # type: ignore[operator]
        granted = want if want <= left else (left if left >= minimum else 0)
        budget.reserved += granted
        return granted, left - granted

    def state(self) -> Usage:
        budget = self.budget
        return Usage(budget.spent, budget.refused, budget.overrun_msats, budget.overrun_calls)


class BudgetProxy:
    """A worker's share of the run's budget, with the interface of :class:`~evalcore.Budget`."""

    def __init__(self, limit_msats: int | None, keeper: Any) -> None:
        self.limit_msats = limit_msats
        self.keeper = keeper
        self._lock = threading.Lock()
        self._usage = Usage()
        self._leased = self._held = self._expected = 0
        self._elsewhere = 0  # what the actor had left at the last exchange

    def __getstate__(self) -> dict[str, Any]:
        return {"limit_msats": self.limit_msats, "keeper": self.keeper}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["limit_msats"], state["keeper"])  # type: ignore[misc]

    @property
    def remaining(self) -> int | None:
        """What this worker may still reserve: its lease's rest plus what the actor had left."""
        if self.limit_msats is None:
            return None
        with self._lock:
            return self._leased - self._held - self._usage.spent + self._elsewhere

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
            short = estimate_msats > self._leased - self._held - self._usage.spent
            if short and not self._lease(estimate_msats, estimate_msats * (self._expected + 1)):
                self._usage.refused += 1
                return False
            self._held += estimate_msats
            return True

    def settle(self, reserved_msats: int, actual_msats: int) -> int:
        """Release a reservation and charge the call ``min(actual, reserved)`` (as
        :meth:`Budget.settle <evalcore.Budget.settle>` does); returns the charge."""
        with self._lock:
            charge = actual_msats if self.limit_msats is None else min(actual_msats, reserved_msats)
            if charge < actual_msats:
                self._usage.overrun_msats += actual_msats - charge
                self._usage.overrun_calls += 1
            self._held -= reserved_msats
            self._usage.spent += charge
            return charge

    def flush(self) -> Usage:
        """End of a chunk: hand the unused lease back to the actor with the usage, or without a
        limit return the usage for the driver to count."""
        with self._lock:
            if self.limit_msats is not None:
                self._lease(0, 0)
                return Usage()
            usage, self._usage = self._usage, Usage()
            return usage

    def _lease(self, minimum: int, want: int) -> bool:
        """Hand back the unused lease with the usage so far; lease ``want`` anew (at least ``minimum``)."""
        import ray

        returned = self._leased - self._held  # keep only what calls in flight hold
        granted, self._elsewhere = ray.get(self.keeper.exchange.remote(want, minimum, returned, self._usage))
        self._leased, self._usage = self._held + granted, Usage()
        return granted >= minimum


class SharedBudget:
    """The driver's side: the actor (for a limit), and the usage folded into the run's budget."""

    def __init__(self, ray: Any, budget: Budget) -> None:
        self.ray = ray
        self.budget = budget
        self.start = Usage(budget.spent, budget.refused, budget.overrun_msats, budget.overrun_calls)
        self.keeper = None
        if budget.limit_msats is not None:
            self.keeper = ray.remote(num_cpus=0)(BudgetKeeper).remote(
                budget.limit_msats, budget.spent, budget.reserved)

    def proxy(self) -> BudgetProxy:
        return BudgetProxy(self.budget.limit_msats, self.keeper)

    def add(self, usage: Usage) -> None:
        """Count a chunk's usage (reported by chunks only when there is no limit)."""
        usage.add_to(self.budget)

    def close(self) -> None:
        """Count what the workers spent and refused in the run's budget; stop the actor."""
        if self.keeper is None:
            return
        keeper, self.keeper = self.keeper, None
        final: Usage = self.ray.get(keeper.state.remote())
        start = self.start
        Usage(final.spent - start.spent, final.refused - start.refused, final.overrun_msats - start.overrun_msats,
              final.overrun_calls - start.overrun_calls).add_to(self.budget)
        self.ray.kill(keeper)
