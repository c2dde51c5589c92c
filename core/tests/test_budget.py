"""The budget's promise: never more than the limit, whatever is reported, from any number of threads."""

import asyncio
import random
import threading

import pytest
from evalcore import Budget, ParameterError


def test_charge_is_capped_at_the_reservation():
    budget = Budget(1000)
    assert budget.reserve(300)
    assert budget.settle(300, 250) == 250            # honest: the actual cost
    assert budget.reserve(300)
    assert budget.settle(300, 2670) == 300           # over-reported: capped, the rest recorded
    assert budget.spent == 550 and budget.reserved == 0
    assert budget.overrun_msats == 2370 and budget.overrun_calls == 1
    assert budget.to_dict() == {"limit_msats": 1000, "spent_msats": 550, "refused_calls": 0,
                                "overrun_msats": 2370, "overrun_calls": 1}


def test_refuses_what_does_not_fit_next_to_calls_in_flight():
    budget = Budget(100)
    assert budget.reserve(60)
    assert not budget.reserve(50)                    # 60 held + 50 > 100
    assert budget.reserve(40) and budget.remaining == 0
    budget.settle(60, 10)
    assert budget.remaining == 50 and budget.refused == 1


def test_without_a_limit_the_actual_cost_is_charged():
    budget = Budget(None)
    assert budget.reserve(0)
    assert budget.settle(0, 12345) == 12345 and budget.remaining is None and budget.overrun_calls == 0


@pytest.mark.parametrize("bad", [-1, 1.5, "10", True, None])
def test_bad_amounts_are_parameter_errors(bad):
    if bad is not None:
        with pytest.raises(ParameterError, match="budget_msats"):
            Budget(bad)
    budget = Budget(10)
    with pytest.raises(ParameterError, match="estimate_msats"):
        budget.reserve(bad)
    with pytest.raises(ParameterError, match="actual_msats"):
        budget.settle(0, bad)


@pytest.mark.parametrize("threads", [1, 8, 32])
def test_never_exceeded_from_many_threads(threads):
    limit = 5_000
    budget = Budget(limit)
    charged = []
    lock = threading.Lock()
    start = threading.Barrier(threads)

    def worker(seed):
        rng = random.Random(seed)
        start.wait()
        for _ in range(300):
            estimate = rng.randint(0, 60)
            if budget.reserve(estimate):
                actual = rng.choice([0, estimate // 2, estimate, estimate * 3 + 7])  # over-reports often
                charge = budget.settle(estimate, actual)
                with lock:
                    charged.append(charge)
                assert budget.spent <= limit

    pool = [threading.Thread(target=worker, args=(i,)) for i in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    assert budget.reserved == 0 and budget.spent == sum(charged) <= limit
    assert budget.refused > 0 and budget.overrun_calls > 0


def test_from_event_loop_tasks():
    budget = Budget(1_000)

    async def call(cost):
        if not budget.reserve(cost):
            return 0
        await asyncio.sleep(0)
        return budget.settle(cost, cost * 10)

    async def main():
        return await asyncio.gather(*(call(7) for _ in range(500)))

    charges = asyncio.run(main())
    assert sum(charges) == budget.spent == 994 and budget.refused == 500 - 142
