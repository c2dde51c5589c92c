"""Anytime-valid confidence sequences and runs that stop when the answer is known."""

from __future__ import annotations

import json
import math

import evalcore
import numpy as np
import pytest
from evalcore._engine.options import OptionError
from evalcore._engine.sequential import mean_sequence, unit_sequence
from evalcore.testing import run_evalcore

RUNS = 1000
RECORDS = 1000
NOMINAL = 0.95
# three binomial standard errors below the nominal level over RUNS simulated runs
MARGIN = 3 * math.sqrt(NOMINAL * (1 - NOMINAL) / RUNS)


def _by_the_formulas(x: list[float], confidence: float, population: int | None) -> tuple[list[float], list[float]]:
    """The PrPl-EB sequence (Waudby-Smith & Ramdas 2023, with the without-replacement terms of
    their 2020 paper) one value at a time, as the papers write it, without running intersection."""
    log_term = math.log(2 / (1 - confidence))
    mu_prev, s2_prev, sums, sq = 0.5, 0.25, 0.0, 0.0
    weight = num = psi_sum = 0.0
    lows, highs = [], []
    for t, value in enumerate(x, start=1):
        lam = min(0.5, math.sqrt(2 * log_term / (s2_prev * t * math.log(1 + t))))
        z = sums / (population - t + 1) if population else 0.0
        w = (t - 1) / (population - t + 1) if population else 0.0
        psi_sum += (value - mu_prev) ** 2 * (-math.log(1 - lam) - lam)
        weight += lam * (1 + w)
        num += lam * (value + z)
        sums += value
        mu = (0.5 + sums) / (t + 1)
        sq += (value - mu) ** 2
        mu_prev, s2_prev = mu, (0.25 + sq) / (t + 1)
        margin = (log_term + psi_sum) / weight
        lows.append(max(0.0, num / weight - margin))
        highs.append(min(1.0, num / weight + margin))
    return lows, highs


@pytest.mark.parametrize("population", [None, 60])
def test_sequence_follows_the_papers_formulas(population: int | None) -> None:
    x = np.random.default_rng(3).beta(2, 3, 50)
    _, low, high = unit_sequence(x, confidence=0.9, population=population)
    lows, highs = _by_the_formulas(list(x), 0.9, population)
    np.testing.assert_allclose(low, np.maximum.accumulate(lows), rtol=1e-12)
    np.testing.assert_allclose(high, np.minimum.accumulate(highs), rtol=1e-12)


def test_value_range_maps_to_the_unit_interval() -> None:
    x = np.random.default_rng(4).beta(2, 2, 40)
    _, low, high = unit_sequence(x)
    _, low5, high5 = mean_sequence(1 + 4 * x, 1.0, 5.0)  # the same values on a 1..5 scale
    np.testing.assert_allclose(low5, 1 + 4 * low)
    np.testing.assert_allclose(high5, 1 + 4 * high)
    with pytest.raises(ValueError, match="bounded value range"):
        mean_sequence(x, 0.0, math.inf)


def _stopped_coverage(values: np.ndarray, width: float) -> tuple[float, float]:
    """Stop each run at the first record where the sequence is narrower than ``width`` (or at the
    end): the share of runs whose interval then covers the run's own mean, and the median records used."""
    truth = values.mean(axis=1)
    _, low, high = mean_sequence(values, 0.0, 1.0, confidence=NOMINAL, population=values.shape[1])
    narrow = (high - low) < width
    stop = np.where(narrow.any(axis=1), narrow.argmax(axis=1), values.shape[1] - 1)
    rows = np.arange(len(values))
    covered = (low[rows, stop] <= truth) & (truth <= high[rows, stop])
    return float(covered.mean()), float(np.median(stop + 1))


@pytest.mark.parametrize("kind", ["bernoulli", "beta"])
def test_stopped_interval_covers_the_mean(kind: str, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(21)
    if kind == "bernoulli":
        values = (rng.random((RUNS, RECORDS)) < rng.uniform(0.05, 0.95, (RUNS, 1))).astype(float)
    else:
        values = rng.beta(2, 5, (RUNS, RECORDS))
    coverage, median_used = _stopped_coverage(values, width=0.1)
    with capsys.disabled():
        print(f"\n{kind}: coverage {coverage:.3f} at the stop, median {median_used:.0f} of {RECORDS} records")
    assert coverage >= NOMINAL - MARGIN
    assert median_used < RECORDS  # the rule saved records


def test_retesting_a_fixed_sample_interval_does_not_cover() -> None:
    """Why a sequence: the fixed-sample (normal-approximation) 95 % interval, looked at after every
    record (peeking), misses the run's mean at some point in far more than 5 % of runs; the
    sequence misses it at any point in at most 5 %."""
    rng = np.random.default_rng(5)
    values = (rng.random((RUNS, RECORDS)) < 0.5).astype(float)
    t = np.arange(1, RECORDS + 1)
    mean = np.cumsum(values, axis=1) / t
    half = 1.96 * np.sqrt(np.maximum(mean * (1 - mean), 1e-12) / t)
    truth = values.mean(axis=1)[:, None]
    ever_missed = ((mean - half > truth) | (mean + half < truth))[:, 10:].any(axis=1)
    _, low, high = mean_sequence(values, 0.0, 1.0, population=RECORDS)
    sequence_missed = ((low > truth) | (high < truth)).any(axis=1)
    assert ever_missed.mean() > 2 * (1 - NOMINAL)
    assert sequence_missed.mean() <= (1 - NOMINAL) + MARGIN


def _records(path, n: int = 2000) -> None:
    rng = np.random.default_rng(1)
    with open(path, "w") as handle:
        for i, hit in enumerate(rng.random(n) < 0.7):
            handle.write(json.dumps({"id": f"r{i}", "example": {"reference_answer": "yes"},
                                     "prediction": {"response": "yes" if hit else "no"}}) + "\n")


def test_cli_run_stops_early_and_resume_keeps_the_rule(tmp_path) -> None:
    data, report = tmp_path / "data.jsonl", tmp_path / "result.json"
    _records(data)
    args = ("evaluate", str(data), "-m", "overlap/exact_match", "--target-ci-width", "0.15", "--seed", "7",
            "-o", str(report))
    proc = run_evalcore(*args)
    assert "verdict: target CI width 0.15 reached after" in proc.stdout
    first = json.loads(report.read_text())
    rule = first["provenance"]["stopping"]
    assert first["stopped"].startswith("target CI width 0.15 reached after")
    assert rule["n_records"] == 2000 and rule["n_used"] < 2000
    interval = rule["intervals"]["overlap/exact_match"]
    assert interval["high"] - interval["low"] < 0.15
    scored = first["provenance"]["n_finished"]
    assert scored < 2000
    journal = (tmp_path / "result.rows.jsonl").read_text().splitlines()
    assert json.loads(journal[0])["stopping"]["width"] == 0.15  # the header records the rule

    # resuming a run that met its rule scores nothing more and says why again
    run_evalcore(*args, "--resume")
    again = json.loads(report.read_text())
    assert again["provenance"]["n_finished"] == scored
    assert again["stopped"].startswith("target CI width 0.15 reached after")
    # another rule is another run: resume refuses to mix them
    refused = run_evalcore(*args[:-4], "--target-ci-width", "0.05", "-o", str(report), "--seed", "7", "--resume",
                           check=False)
    assert refused.returncode != 0 and "target_ci_width" in refused.stderr


def test_python_run_stops_at_a_reproducible_place(tmp_path) -> None:
    data = tmp_path / "data.jsonl"
    _records(data)
    result = evalcore.evaluate(str(data), ["overlap/exact_match"], target_ci_width=0.15, seed=7)
    assert result.stopped is not None and result.stopped.startswith("target CI width 0.15")
    other = evalcore.evaluate(str(data), ["overlap/exact_match"], target_ci_width=0.15, seed=7)
    assert other.stopped == result.stopped  # the seeded order makes the stop reproducible
    with pytest.raises(OptionError, match="target_ci_width must be > 0"):
        evalcore.evaluate(str(data), ["overlap/exact_match"], target_ci_width=0)
    with pytest.raises(OptionError, match="overlap/bleu has corpus granularity"):
        evalcore.evaluate(str(data), ["overlap/bleu"], target_ci_width=5)
    with pytest.raises(OptionError, match="failure_score -1 is outside the value range"):
        evalcore.evaluate(str(data), ["overlap/exact_match"], target_ci_width=0.1, failure_score=-1)


def _two_systems(folder, n: int = 2000) -> float:
    """Two systems' pass/fail verdicts on the same records (0.80 against 0.70, agreeing where they
    can); their mean difference."""
    rng = np.random.default_rng(2)
    u = rng.random(n)
    verdicts = {"new": u < 0.80, "base": u < 0.70}
    for name, hits in verdicts.items():
        with open(folder / f"{name}.jsonl", "w") as handle:
            for i, hit in enumerate(hits):
                handle.write(json.dumps({"id": f"r{i}", "example": {"reference_answer": "yes"},
                                         "prediction": {"response": "yes" if hit else "no"}}) + "\n")
    return float(verdicts["new"].mean() - verdicts["base"].mean())


def test_cli_until_decided_against_a_baseline(tmp_path) -> None:
    difference = _two_systems(tmp_path)
    run_evalcore("evaluate", str(tmp_path / "base.jsonl"), "-m", "overlap/exact_match",
                 "-o", str(tmp_path / "base.json"))
    args = ("evaluate", str(tmp_path / "new.jsonl"), "-m", "overlap/exact_match", "--baseline",
            str(tmp_path / "base.json"), "--until-decided", "-o", str(tmp_path / "new.json"))
    proc = run_evalcore(*args)
    assert "verdict: decided after" in proc.stdout
    report = json.loads((tmp_path / "new.json").read_text())
    rule = report["provenance"]["stopping"]
    assert rule["rule"] == "until_decided" and report["stopped"] == rule["reason"]
    interval = rule["intervals"]["overlap/exact_match"]
    assert 0 < interval["low"] <= difference <= interval["high"]  # decided, and the right way
    assert report["provenance"]["n_finished"] < 2000
    run_evalcore(*args, "--resume")  # already decided: nothing more is scored
    assert json.loads((tmp_path / "new.json").read_text())["provenance"]["n_finished"] == \
        report["provenance"]["n_finished"]

    # compare --sequential: the sequence beside the bootstrap interval, over every shared record
    run_evalcore("evaluate", str(tmp_path / "new.jsonl"), "-m", "overlap/exact_match", "-o", str(tmp_path / "all.json"))
    shown = run_evalcore("compare", str(tmp_path / "base.json"), str(tmp_path / "all.json"), "--sequential",
                         "--test", "bootstrap").stdout
    assert "anytime-valid 95% confidence sequences of the difference" in shown
    found = json.loads(run_evalcore("compare", str(tmp_path / "base.json"), str(tmp_path / "all.json"),
                                    "--sequential", "--test", "bootstrap", "--json").stdout)["sequential"]
    (entry,) = found
    assert entry["n"] == 2000 and entry["decided"] and entry["low"] <= difference <= entry["high"]


def test_python_until_decided_takes_a_result(tmp_path) -> None:
    difference = _two_systems(tmp_path)
    base = evalcore.evaluate(str(tmp_path / "base.jsonl"), ["overlap/exact_match"])
    new = evalcore.evaluate(str(tmp_path / "new.jsonl"), ["overlap/exact_match"], baseline=base, until_decided=True)
    assert new.stopped is not None and new.stopped.startswith("decided after")
    interval = new.provenance["stopping"]["intervals"]["overlap/exact_match"]
    assert 0 < interval["low"] <= difference <= interval["high"]
    with pytest.raises(OptionError, match="until_decided and baseline go together"):
        evalcore.evaluate(str(tmp_path / "new.jsonl"), ["overlap/exact_match"], until_decided=True)
    with pytest.raises(OptionError, match="no values of overlap/token_f1"):
        evalcore.evaluate(str(tmp_path / "new.jsonl"), ["overlap/token_f1"], baseline=base, until_decided=True)
