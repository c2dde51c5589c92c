"""The recipe that executors scoring in other processes send their workers: a plan rebuilt from
it (after a pickle round trip, as it travels) scores chunks as the local run does."""

from __future__ import annotations

import asyncio
import pickle
from concurrent.futures import ThreadPoolExecutor

import evalcore
import pytest
from evalcore._engine.entry import make_source
from evalcore._engine.options import make_options, run_context
from evalcore._engine.plan import Plan, bind_metrics
from evalcore._engine.remote import Rebuild
from evalcore._engine.score import score_chunk
from evalcore._registry.registry import default_registry
from evalcore.plugin import make_recipe, worker_plan

RECORDS = [{"id": f"r{i}", "example": {"reference_answer": "the cat sat on the mat"},
            "prediction": {"response": " ".join("the cat sat on a mat".split()[: i % 6 + 1])}} for i in range(12)]


def local_plan(metrics):
    options = make_options(seed=3)
    context = run_context(options)
    bound, sources = bind_metrics(metrics, default_registry(), context)
    return Plan(bound, options, context, sources)


def bleu_object():
    return evalcore.get_metric("overlap/bleu")


class Unlimited:
    """A budget workers can share without a limit (an executor's proxy of the run's budget)."""

    limit_msats = remaining = None

    def reserve(self, estimate_msats):
        return True

    def settle(self, reserved_msats, actual_msats):
        return actual_msats


def shorter(gold, pred, trace=None):
    """A callable metric: travels to the workers as an object."""
    return float(len(pred.response) < 10)


def test_a_rebuilt_plan_scores_each_chunk_as_the_local_run():
    plan = local_plan(["overlap/token_f1", bleu_object(), shorter])
    recipe = make_recipe("run-1", plan, None, Unlimited())
    assert [name for name, _ in recipe.shipped()] == ["local/shorter"]
    assert recipe.context.cache_dir  # workers share this machine's cache folder unless the run names one
    travelled = pickle.dumps(recipe)
    worker = worker_plan("run-1", lambda: pickle.loads(travelled))
    assert worker_plan("run-1", lambda: pytest.fail("rebuilt twice")) is worker
    assert [m.id for m in worker.plan.metrics] == [m.id for m in plan.metrics]
    pool = ThreadPoolExecutor(2)
    try:
        for chunk in make_source(RECORDS, None, None, None).chunks(5):
            local = asyncio.run(score_chunk(plan, chunk, pool))
            remote = worker.score(chunk)
            assert (remote.lines, remote.n_errors) == (local.lines, local.n_errors)
            assert pickle.dumps(remote.states) == pickle.dumps(local.states)  # corpus states hold arrays
            assert worker.calls(chunk) == len(chunk.records) * 3
    finally:
        pool.shutdown()
        worker.close()


def test_a_worker_with_another_plugin_version_refuses_to_score():
    metric = bleu_object()
    skewed = Rebuild(metric.spec.key, dict(metric.params), metric.id, metric.spec.version + ".old")
    with pytest.raises(evalcore.EvalcoreError, match=r"overlap/bleu: a worker built .* same plugin versions"):
        skewed.build(default_registry())
    rebuilt = Rebuild(metric.spec.key, dict(metric.params), metric.id, metric.spec.version).build(default_registry())
    assert rebuilt.params == metric.params
