"""Prediction-powered inference against ppi_py, sample-size planning against statsmodels, both commands."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner
from evalcore import EvalcoreError, plan_sample_size, ppi
from evalcore._cli.main import main
from evalcore.testing import write_journal
from evalcore_stats.power import detectable_effect, records_needed, ttest_power
from evalcore_stats.ppi import classical_mean, ppi_mean
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ppi_py = pytest.importorskip("ppi_py")
baselines = pytest.importorskip("ppi_py.baselines")
power_module = pytest.importorskip("statsmodels.stats.power")

METRIC = "judge/quality"
HEADER = {METRIC: {"granularity": "sample", "direction": "higher", "metric_version": "1"}}


def correlated(seed: int, n: int, big_n: int, rho: float, discrete: bool = False):
    rng = np.random.default_rng(seed)
    truth = rng.normal(size=n + big_n)
    judge = rho * truth + math.sqrt(max(1 - rho**2, 0.0)) * rng.normal(size=n + big_n) + 0.3
    if discrete:
        truth, judge = (truth > 0).astype(float), (judge > 0.3).astype(float)
    return truth[:n], judge[:n], judge[n:]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 300), big_n=st.integers(1, 2000),
       rho=st.floats(-0.9, 0.99), alpha=st.sampled_from([0.01, 0.05, 0.1, 0.2, 0.5]),
       lam=st.one_of(st.none(), st.just(1.0), st.just(0.0), st.floats(0.0, 1.5)),
       alternative=st.sampled_from(["two-sided", "larger", "smaller"]), discrete=st.booleans())
def test_ppi_mean_equals_ppi_py(seed, n, big_n, rho, alpha, lam, alternative, discrete):
    y, yhat, unlabelled = correlated(seed, n, big_n, rho, discrete)
    if lam is None and np.var(np.concatenate([yhat, unlabelled])) == 0:
        return  # ppi_py answers NaN for a constant judge; evalcore gives it lam = 0
    ours = ppi_mean(y, yhat, unlabelled, alpha=alpha, lam=lam, alternative=alternative)
    point = ppi_py.ppi_mean_pointestimate(y, yhat, unlabelled, lam=lam)
    # ppi_py's tuned interval drops ``alternative`` when it calls itself with the tuned lam (always
    # two-sided); one-sided tuned intervals are compared at the lam both tune to (checked below)
    fixed = lam if lam is not None or alternative == "two-sided" else ours.lam
    low, high = ppi_py.ppi_mean_ci(y, yhat, unlabelled, alpha=alpha, lam=fixed, alternative=alternative)
    assert ours.value == pytest.approx(float(np.ravel(point)[0]), rel=1e-9, abs=1e-12)
    for mine, theirs in zip(ours.ci, (np.ravel(low)[0], np.ravel(high)[0])):
        assert mine == pytest.approx(float(theirs), rel=1e-9, abs=1e-12)
    if lam is None:
        from ppi_py.ppi import _calc_lam_glm

        grads = y - ours.value
        expected = _calc_lam_glm(grads, yhat - ours.value, unlabelled - ours.value, np.eye(1), clip=True)
        assert ours.lam == pytest.approx(expected, rel=1e-9, abs=1e-12)
    classical = classical_mean(y, alpha=alpha, alternative=alternative)
    for mine, theirs in zip(classical.ci, baselines.classical_mean_ci(y, alpha=alpha, alternative=alternative)):
        assert mine == pytest.approx(float(theirs), rel=1e-9, abs=1e-12)


def test_lam_zero_is_the_labels_alone_and_a_constant_judge_gets_lam_zero():
    y, yhat, unlabelled = correlated(1, 50, 400, 0.8)
    assert ppi_mean(y, yhat, unlabelled, lam=0.0).ci == pytest.approx(classical_mean(y).ci)
    constant = ppi_mean(y, np.ones(50), np.ones(400))
    assert constant.lam == 0.0 and constant.value == pytest.approx(y.mean())


# ---- the run-level API and the command --------------------------------------------------------------

def judged_run(tmp_path, name, judge, labels_at=(), truth=None, extra=None):
    rows = {f"r{i}": {METRIC: float(v), **(extra or {})} for i, v in enumerate(judge)}
    path = write_journal(tmp_path / f"{name}.jsonl", rows, metrics=HEADER)
    labels = tmp_path / f"{name}.labels.jsonl"
    labels.write_text("".join(json.dumps({"id": f"r{i}", "label": float(truth[i])}) + "\n" for i in labels_at))
    return str(path), str(labels)


def synthetic(seed=0, records=2000, labelled=300, agreement=0.8, rate=0.6):
    rng = np.random.default_rng(seed)
    truth = (rng.random(records) < rate).astype(float)
    judge = np.where(rng.random(records) < agreement, truth, 1 - truth)
    return truth, judge, rng.choice(records, labelled, replace=False)


def test_ppi_of_a_run_equals_ppi_py_on_the_same_split(tmp_path):
    truth, judge, at = synthetic()
    run, labels = judged_run(tmp_path, "a", judge, at, truth)
    result = ppi(run, labels)
    entry = result.entry(METRIC)
    mask = np.zeros(len(judge), bool)
    mask[at] = True
    low, high = ppi_py.ppi_mean_ci(truth[mask], judge[mask], judge[~mask], alpha=0.05)
    assert entry.ppi.ci == pytest.approx((float(np.ravel(low)[0]), float(np.ravel(high)[0])), rel=1e-9)
    assert entry.judge_mean == pytest.approx(judge.mean())
    assert entry.labelled.value == pytest.approx(truth[mask].mean())
    assert entry.n_judged == 2000 and entry.n_labelled == 300
    assert entry.correction == pytest.approx(entry.ppi.value - judge.mean())
    assert 0 < entry.narrower < 1
    assert "narrower than the 300 labels alone" in entry.sentence()
    assert ("overstates" if entry.correction < 0 else "understates") in entry.sentence()


def test_difference_of_two_systems_is_independent_sample_ppi(tmp_path):
    truth_a, judge_a, at_a = synthetic(1)
    truth_b, judge_b, at_b = synthetic(2, rate=0.7)
    a, labels_a = judged_run(tmp_path, "a", judge_a, at_a, truth_a)
    b, labels_b = judged_run(tmp_path, "b", judge_b, at_b, truth_b)
    one_a, one_b = ppi(a, labels_a).entry(METRIC), ppi(b, labels_b).entry(METRIC)
    diff = ppi(a, labels_a, system=b, system_labels=labels_b).entry(METRIC)
    assert diff.ppi.value == pytest.approx(one_b.ppi.value - one_a.ppi.value)
    se = math.hypot(one_a.ppi.se, one_b.ppi.se)
    assert diff.ppi.ci == pytest.approx((diff.ppi.value - 1.959963984540054 * se,
                                         diff.ppi.value + 1.959963984540054 * se))
    assert diff.judge_mean == pytest.approx(judge_b.mean() - judge_a.mean())
    assert diff.lams == (one_a.lams[0], one_b.lams[0])
    assert "the difference" in diff.sentence()


def test_cli_ppi_table_json_and_errors(tmp_path):
    truth, judge, at = synthetic(3, records=400, labelled=100)
    run, labels = judged_run(tmp_path, "a", judge, at, truth)
    runner = CliRunner()
    table = runner.invoke(main, ["ppi", run, "--labels", labels])
    assert table.exit_code == 0, table.output
    for text in ("judge only", "labelled only", "PPI", "lam=", "labels alone"):
        assert text in table.output
    data = json.loads(runner.invoke(main, ["ppi", run, "--labels", labels, "--json", "--lam", "1"]).output)
    assert data["entries"][0]["lam"] == [1.0] and data["options"]["lam"] == 1.0
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "r1", "label": 1}\n{"id": "r2", "label": "good"}\n')
    out = runner.invoke(main, ["ppi", run, "--labels", str(bad)])
    assert out.exit_code != 0 and out.output.strip().count("\n") == 0
    assert out.output.startswith("error:") and "bad.jsonl:2" in out.output
    two = runner.invoke(main, ["ppi", run, run, "--labels", labels])
    assert two.exit_code != 0 and two.output.startswith("error: ") and "--labels" in two.output
    assert runner.invoke(main, ["ppi", run, "--labels", labels, "-m", "nope/x"]).output.startswith("error: ")


def test_ppi_errors_are_evalcore_errors(tmp_path):
    truth, judge, at = synthetic(4, records=50, labelled=10)
    run, labels = judged_run(tmp_path, "a", judge, at, truth)
    with pytest.raises(EvalcoreError, match="alpha"):
        ppi(run, labels, alpha=1.5)
    with pytest.raises(EvalcoreError, match="own labels"):
        ppi(run, labels, system=run)
    only_one = ppi(run, {"r0": 1.0}).entry(METRIC)
    assert only_one.ppi is None and "at least 2" in only_one.sentence()


# ---- sample-size planning ------------------------------------------------------------------------------

GRID = [(d, alpha, power, alternative)
        for d in (0.05, 0.1, 0.2, 0.35, 0.5, 0.8)
        for alpha in (0.01, 0.05, 0.1)
        for power in (0.7, 0.8, 0.9, 0.95)
        for alternative in ("two-sided", "one-sided")]


@pytest.mark.parametrize(("effect", "alpha", "power", "alternative"), GRID)
def test_records_needed_and_detectable_effect_equal_statsmodels(effect, alpha, power, alternative):
    solver = power_module.TTestPower()
    side = "two-sided" if alternative == "two-sided" else "larger"
    expected = solver.solve_power(effect_size=effect, alpha=alpha, power=power, alternative=side)
    assert records_needed(effect, alpha, power, alternative) == pytest.approx(expected, rel=1e-6)
    plan = plan_sample_size(effect * 0.3, sd=0.3, alpha=alpha, power=power, alternative=alternative)
    assert plan.n_required == math.ceil(expected)
    assert plan.power_at_required == pytest.approx(
        power_module.ttest_power(effect, plan.n_required, alpha, alternative=side), rel=1e-9)
    n = max(3, round(expected))
    # two-sided, statsmodels may land on the negative root of the symmetric power equation
    mde = abs(float(np.ravel(solver.solve_power(nobs=n, alpha=alpha, power=power, alternative=side))[0]))
    # statsmodels' root finder for the effect stops within about 1e-4 of it; evalcore's solves the
    # same power equation to 1e-12, hence the exact power check
    assert detectable_effect(n, alpha, power, alternative) == pytest.approx(mde, rel=1e-4)
    assert ttest_power(detectable_effect(n, alpha, power, alternative), n, alpha, alternative) == pytest.approx(power)


@pytest.mark.parametrize(("effect", "alpha", "power", "alternative"),
                         [(0.3, 0.05, 0.8, "two-sided"), (0.2, 0.05, 0.9, "one-sided"), (0.5, 0.01, 0.8, "two-sided")])
def test_planned_size_reaches_the_stated_power_in_simulation(effect, alpha, power, alternative):
    from scipy import stats

    sd = 0.25
    plan = plan_sample_size(effect * sd, sd=sd, alpha=alpha, power=power, alternative=alternative)
    n, trials = plan.n_required, 2000
    diffs = np.random.default_rng(12345).normal(effect * sd, sd, size=(trials, n))
    t = diffs.mean(1) / (diffs.std(1, ddof=1) / math.sqrt(n))
    if alternative == "two-sided":
        rejected = np.abs(t) > stats.t.isf(alpha / 2, n - 1)
    else:
        rejected = t > stats.t.isf(alpha, n - 1)
    assert abs(rejected.mean() - power) <= 0.03


def test_plan_from_a_pilot_and_the_detectable_difference(tmp_path):
    rng = np.random.default_rng(5)
    base = rng.random(80)
    system = base + 0.05 + rng.normal(0, 0.2, 80)
    a = write_journal(tmp_path / "a.jsonl", {f"r{i}": {METRIC: float(v)} for i, v in enumerate(base)}, metrics=HEADER)
    b = write_journal(tmp_path / "b.jsonl", {f"r{i}": {METRIC: float(v)} for i, v in enumerate(system)},
                      metrics=HEADER)
    plan = plan_sample_size(pilot=[a, b])
    diffs = system - base
    assert plan.sd == pytest.approx(diffs.std(ddof=1)) and plan.n == 80
    assert plan.difference == pytest.approx(diffs.mean())
    expected = power_module.TTestPower().solve_power(effect_size=abs(diffs.mean()) / diffs.std(ddof=1), alpha=0.05,
                                                     power=0.8)
    assert plan.n_required == math.ceil(expected)
    assert plan.detectable == pytest.approx(
        power_module.TTestPower().solve_power(nobs=80, alpha=0.05, power=0.8) * diffs.std(ddof=1), rel=1e-5)

    runner = CliRunner()
    out = runner.invoke(main, ["plan", str(a), str(b), "--difference", "0.03", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["difference"] == 0.03 and data["n"] == 80 and data["n_required"] > 80
    text = runner.invoke(main, ["plan", "--sd", "0.2", "--difference", "0.05", "-n", "500"]).output
    assert "128 records" in text and "with 500 records" in text


@pytest.mark.parametrize("args", [["--difference", "0.1"], ["--sd", "0", "--difference", "0.1"],
                                  ["--sd", "0.2", "--difference", "0.1", "--power", "1.2"],
                                  ["--sd", "0.2"], ["--sd", "0.2", "--difference", "0.1", "-n", "1"]])
def test_cli_plan_bad_input_is_one_error_line(args):
    out = CliRunner().invoke(main, ["plan", *args])
    assert out.exit_code != 0 and out.output.startswith("error: ") and out.output.strip().count("\n") == 0
