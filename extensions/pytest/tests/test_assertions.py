"""The assertions of ``evalcore.testing`` (``assert_metric``, ``assert_no_regression``) over saved runs,
and the ``evalcore_run`` fixture of the pytest plugin in a real pytest run."""

from __future__ import annotations

import json

import evalcore
import numpy as np
import pytest
from evalcore.testing import assert_metric, assert_no_regression, write_journal, write_records

pytest_plugins = ["pytester"]

METRIC = "toy/score"
LATENCY = "toy/latency"
HEADER = {METRIC: {"granularity": "sample", "direction": "higher", "metric_version": "1"},
          LATENCY: {"granularity": "sample", "direction": "lower", "metric_version": "1"}}
RNG = np.random.default_rng(7)
BASE = RNG.uniform(0.4, 0.9, 40)
NOISY = BASE + RNG.normal(0.0, 0.05, 40) - 0.004  # a tiny drop, well inside the noise
DROPPED = BASE - 0.15 + RNG.normal(0.0, 0.02, 40)  # a clear drop on nearly every record
LATENCIES = RNG.uniform(500.0, 700.0, 40)


def journal(tmp_path, name, values, *, version="1"):
    rows = {f"r{i}": {METRIC: float(v), LATENCY: float(t)} for i, (v, t) in enumerate(zip(values, LATENCIES))}
    header = {m: {**h, "metric_version": version} for m, h in HEADER.items()}
    return str(write_journal(tmp_path / f"{name}.jsonl", rows, metrics=header))


def report(tmp_path, name, values):
    """A JSON report as ``evaluate -o`` writes it: aggregates with intervals and its journal's name."""
    journal(tmp_path, name, values)
    metrics = {}
    for metric, data in ((METRIC, values), (LATENCY, LATENCIES)):
        data = np.asarray(data, dtype=float)
        metrics[metric] = {**HEADER[metric], "id": metric, "value": float(data.mean()), "n": len(data),
                           "ci": [float(np.quantile(data, 0.1)), float(np.quantile(data, 0.9))]}
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps({"metrics": metrics, "samples_file": f"{name}.jsonl"}))
    return str(path)


def test_assert_metric_message_shows_value_interval_bound_and_worst_records(tmp_path):
    result = report(tmp_path, "new", BASE)
    assert_metric(result, METRIC, at_least=0.1)
    assert_metric(result, LATENCY, at_most=800)
    with pytest.raises(AssertionError) as failed:
        assert_metric(result, METRIC, at_least=0.95)
    message = str(failed.value)
    assert f"{METRIC} = {BASE.mean():.4f} [" in message and ">= 0.95 (below the minimum)" in message
    lowest = np.argsort(BASE)[:5]
    assert message.splitlines()[1] == "worst records: " + ", ".join(f"r{i} = {BASE[i]:.4f}" for i in lowest)
    with pytest.raises(AssertionError, match="worst records: r"):
        assert_metric(result, LATENCY, at_most=100)
    with pytest.raises(evalcore.InputError, match="toy/absent"):
        assert_metric(result, "toy/absent", at_least=0)


def test_assert_no_regression_passes_noise_and_names_the_records_that_lost_most(tmp_path):
    base = journal(tmp_path, "base", BASE)
    assert_no_regression(journal(tmp_path, "noisy", NOISY), base, METRIC)
    with pytest.raises(AssertionError) as failed:
        assert_no_regression(journal(tmp_path, "dropped", DROPPED), base, METRIC, alpha=0.01)
    message = str(failed.value)
    assert "significantly worse" in message and f"no worse than base = {BASE.mean():.4f}" in message
    loss = BASE - DROPPED
    ids = [f"r{i}" for i in np.argsort(-loss)[:5]]
    assert [item.split(" = ")[0] for item in message.splitlines()[1].removeprefix("worst records: ").split(", ")] \
        == ids
    with pytest.raises(evalcore.InputError, match="version"):
        assert_no_regression(journal(tmp_path, "v2", NOISY, version="2"), base, METRIC)


# -- the pytest plugin: a real pytest run -----------------------------------------------------


RECORDS = [
    {"id": f"q{i}", "example": {"reference_answer": answer}, "prediction": {"response": response}}
    for i, (answer, response) in enumerate([
        ("Paris", "Paris"), ("the red fox", "a red fox"), ("42", "forty two"), ("blue whale", "the blue whale"),
        ("Ada Lovelace", "Ada Lovelace"), ("water", "water"), ("1969", "in 1969"), ("oxygen", "carbon"),
    ])
]


def test_the_fixture_evaluates_once_per_session_and_the_assertions_report(pytester, tmp_path):
    data = write_records(tmp_path / "rag.jsonl", RECORDS)
    worse = write_records(tmp_path / "worse.jsonl", [
        {**r, "prediction": {"response": "nothing"}} for r in RECORDS])
    pytester.makepyfile(f"""
        import evalcore
        import pytest
        from evalcore.testing import assert_metric, assert_no_regression

        DATA, WORSE = {str(data)!r}, {str(worse)!r}

        @pytest.fixture(scope="session", autouse=True)
        def calls():
            counted = []
            evaluate = evalcore.evaluate

            def counting(*args, **kwargs):
                counted.append(args)
                return evaluate(*args, **kwargs)

            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(evalcore, "evaluate", counting)
                yield counted

        def test_quality(evalcore_run):
            result = evalcore_run(DATA, ["overlap/token_f1"], seed=0)
            assert_metric(result, "overlap/token_f1", at_least=0.5)

        def test_same_result(evalcore_run, calls):
            assert evalcore_run(DATA, ["overlap/token_f1"], seed=0) is evalcore_run(DATA, ["overlap/token_f1"], seed=0)
            assert len(calls) == 1

        def test_too_strict(evalcore_run):
            assert_metric(evalcore_run(DATA, ["overlap/token_f1"], seed=0), "overlap/token_f1", at_least=0.99)

        def test_regression(evalcore_run):
            baseline = evalcore_run(DATA, ["overlap/token_f1"], seed=0)
            assert_no_regression(evalcore_run(WORSE, ["overlap/token_f1"], seed=0), baseline, "overlap/token_f1")
    """)
    outcome = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:asyncio", "-p", "no:deepeval")
    outcome.assert_outcomes(passed=2, failed=2)
    outcome.stdout.fnmatch_lines([
        "*AssertionError: FAIL  overlap/token_f1 = 0.* [[]0.*, *[]]  >= 0.99 (below the minimum)",
        "*worst records: q2 = 0.0000, q7 = 0.0000, *",
        "*AssertionError: FAIL  overlap/token_f1 = 0.0000*no worse than baseline = 0.*significantly worse*",
        "*worst records: q0 = 1.0000 -> 0.0000, *",
    ])
