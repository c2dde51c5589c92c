"""Parity with ranx's compare (paired t-test, Fisher's randomization test) on the same per-query values."""

import math

import numpy as np
import pytest
from evalcore import compare
from evalcore.testing import write_journal
from ranx import Qrels, Run
from ranx import compare as ranx_compare

METRIC = "retrieval/ndcg@10"
RANX_METRIC = "ndcg@10"


def ranx_runs(n_queries, seed, boost=0.6):
    rng = np.random.default_rng(seed)
    qrels = {f"q{q}": {f"d{d}": int(rng.integers(1, 3)) for d in rng.choice(30, 4, replace=False)}
             for q in range(n_queries)}
    runs = []
    for name, gain in (("base", 0.0), ("new", boost)):
        run = {}
        for q, rels in qrels.items():
            scores = rng.random(30)
            for d in rels:
                scores[int(d[1:])] += gain * rng.random()
            run[q] = {f"d{d}": float(s) for d, s in enumerate(scores)}
        runs.append(Run(run, name=name))
    return Qrels(qrels), runs


def journals(tmp_path, runs):
    paths = []
    for run in runs:
        rows = {q: {METRIC: float(v)} for q, v in run.scores[RANX_METRIC].items()}
        paths.append(str(write_journal(tmp_path / f"{run.name}.jsonl", rows,
                                       metrics={METRIC: {"granularity": "sample", "direction": "higher"}})))
    return paths


def ranx_p(qrels, runs, stat_test, **options):
    report = ranx_compare(qrels, runs, metrics=RANX_METRIC, stat_test=stat_test, **options)
    return report.comparisons[runs[0].name, runs[1].name][RANX_METRIC]["p_value"]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_t_test_equals_ranx(tmp_path, seed):
    qrels, runs = ranx_runs(40, seed)
    p = ranx_p(qrels, runs, "student")
    ours = compare(*journals(tmp_path, runs), tests=["ttest"], correction="none").entries[0]
    assert ours.tests["ttest"].p_value == pytest.approx(p, rel=1e-12)
    assert ours.baseline_value == pytest.approx(np.mean(list(runs[0].scores[RANX_METRIC].values())), rel=1e-12)


def test_fisher_agrees_with_ranx_within_sampling_error(tmp_path):
    # ranx draws its permutations from numba's generator; the two estimates of the same
    # p-value differ by sampling error only.
    qrels, runs = ranx_runs(40, 1, boost=0.1)
    n = 20000
    p_ranx = ranx_p(qrels, runs, "fisher", n_permutations=n)
    ours = compare(*journals(tmp_path, runs), tests=["fisher"], n_resamples=n, correction="none").entries[0]
    p = ours.tests["fisher"].p_value
    assert 0.001 < p < 0.999
    assert abs(p - p_ranx) < 5 * math.sqrt(2 * p * (1 - p) / n)


def test_exhaustive_fisher_is_what_ranx_estimates(tmp_path):
    qrels, runs = ranx_runs(12, 1, boost=0.1)
    n = 50000
    p_ranx = ranx_p(qrels, runs, "fisher", n_permutations=n)
    outcome = compare(*journals(tmp_path, runs), tests=["fisher"], correction="none").entries[0].tests["fisher"]
    assert outcome.note == "exhaustive"
    assert 0.01 < outcome.p_value < 0.99
    p = outcome.p_value
    assert abs(p - p_ranx) < 5 * math.sqrt(p * (1 - p) / n) + 1 / n
