"""Prediction-powered estimates where users reach them: ``evaluate --labels``, ``evaluate(labels=...)``,
``compare --labels`` and the HTML report's line per metric, against ppi_py on generated judged runs.

``overlap/token_f1`` plays the judge: it scores every generated record; the labels are its scores on
some records, shifted and with noise (a judge that is off by a known amount). The expected numbers
come from ppi_py (``ppi_mean_pointestimate``, ``ppi_mean_ci`` with PPI++'s tuned ``lam``, and
``classical_mean_ci`` for the labelled-only mean) fed the judge's scores read back from the run's rows.
"""

from __future__ import annotations

import asyncio
import json
from statistics import NormalDist

import evalcore
import numpy as np
import pytest
from evalcore._engine.saved import read_journal
from evalcore.testing import run_evalcore, write_records

ppi_py = pytest.importorskip("ppi_py")
baselines = pytest.importorskip("ppi_py.baselines")

METRIC = "overlap/token_f1"
WORDS = [f"w{i}" for i in range(10)]


def records(seed: int, n: int = 240) -> list[dict]:
    """Answers sharing a random number of the reference's ten words, padded with other words."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        shared = int(rng.integers(0, 11))
        response = WORDS[:shared] + [f"x{j}" for j in range(int(rng.integers(0, 6)))]
        out.append({"id": f"r{i}", "example": {"query": "q", "reference_answer": " ".join(WORDS)},
                    "prediction": {"response": " ".join(response) or "none"}})
    return out


def judge_scores(journal) -> dict[str, float]:
    _, rows = read_journal(str(journal))
    return {key: float(row["scores"][METRIC]["value"]) for key, row in rows.items()}


def make_labels(scores: dict[str, float], seed: int, n: int = 80, shift: float = -0.1) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    chosen = rng.choice(sorted(scores), size=n, replace=False)
    return {key: float(np.clip(scores[key] + shift + rng.normal(0, 0.1), 0, 1)) for key in chosen}


def write_labels(path, labels: dict[str, float]):
    path.write_text("".join(json.dumps({"id": k, "label": v}) + "\n" for k, v in labels.items()))
    return str(path)


def reference(scores: dict[str, float], labels: dict[str, float], alpha: float = 0.05) -> dict:
    """ppi_py's numbers for the judge's scores and the labels."""
    ids = [key for key in scores if key in labels]
    y = np.array([labels[k] for k in ids])
    yhat = np.array([scores[k] for k in ids])
    unlabelled = np.array([v for k, v in scores.items() if k not in labels])
    low, high = ppi_py.ppi_mean_ci(y, yhat, unlabelled, alpha=alpha)
    c_low, c_high = baselines.classical_mean_ci(y, alpha=alpha)
    return {"judge": float(np.mean(list(scores.values()))), "n": len(ids),
            "ppi": float(np.ravel(ppi_py.ppi_mean_pointestimate(y, yhat, unlabelled))[0]),
            "ci": (float(np.ravel(low)[0]), float(np.ravel(high)[0])),
            "labelled": float(y.mean()), "labelled_ci": (float(np.ravel(c_low)[0]), float(np.ravel(c_high)[0]))}


def check_entry(entry: dict, expected: dict) -> None:
    assert entry["metric"] == METRIC and entry["n_labelled"] == expected["n"]
    assert entry["judge_mean"] == pytest.approx(expected["judge"], rel=1e-12)
    assert entry["ppi"]["value"] == pytest.approx(expected["ppi"], rel=1e-9)
    assert entry["ppi"]["ci"] == pytest.approx(list(expected["ci"]), rel=1e-9)
    assert entry["labelled"]["value"] == pytest.approx(expected["labelled"], rel=1e-12)
    assert entry["labelled"]["ci"] == pytest.approx(list(expected["labelled_ci"]), rel=1e-9)


@pytest.fixture(scope="module")
def judged(tmp_path_factory):
    """One judged run through the command line, with labels on 80 of its 240 records."""
    folder = tmp_path_factory.mktemp("ppi")
    data = write_records(folder / "a.jsonl", records(1))
    proc = run_evalcore("evaluate", str(data), "-m", METRIC, "-o", str(folder / "plain.json"))
    scores = judge_scores(folder / "plain.rows.jsonl")
    labels = make_labels(scores, 2)
    return folder, data, scores, labels, write_labels(folder / "labels.jsonl", labels), proc


def test_evaluate_labels_prints_and_writes_the_estimates_ppi_py_gives(judged):
    folder, data, scores, labels, labels_path, _ = judged
    proc = run_evalcore("evaluate", str(data), "-m", METRIC, "--labels", labels_path, "-o", str(folder / "r.json"))
    expected = reference(scores, labels)
    report = json.loads((folder / "r.json").read_text())
    check_entry(report["ppi"]["entries"][0], expected)
    assert report["samples_file"] == "r.rows.jsonl" and report["metrics"][METRIC]["n"] == 240
    table, _, estimates = proc.stdout.partition("prediction-powered inference (r; 95 % intervals)")
    assert METRIC in table and f"PPI             {expected['ppi']:.4f}" in estimates
    assert f"[{expected['ci'][0]:.4f}, {expected['ci'][1]:.4f}]" in estimates
    # the labels were made 0.1 below the judge's scores: the estimate moves down by about that
    assert expected["ppi"] - expected["judge"] == pytest.approx(-0.1, abs=0.03)
    as_json = json.loads(run_evalcore("evaluate", str(data), "-m", METRIC, "--labels", labels_path, "--json").stdout)
    check_entry(as_json["ppi"]["entries"][0], expected)


def test_a_bad_labels_file_costs_no_evaluation(tmp_path):
    data = write_records(tmp_path / "a.jsonl", records(3, 10))
    bad = tmp_path / "labels.jsonl"
    bad.write_text('{"id": "r1", "label": "good"}\n')
    proc = run_evalcore("evaluate", str(data), "-m", METRIC, "--labels", str(bad), "-o", str(tmp_path / "r.json"),
                        check=False)
    assert proc.returncode != 0 and "labels.jsonl:1" in proc.stderr and "finite number" in proc.stderr
    assert not (tmp_path / "r.json").exists() and not (tmp_path / "r.rows.jsonl").exists()


def test_python_evaluate_with_labels(judged, tmp_path):
    _, data, scores, labels, _, _ = judged
    result = evalcore.evaluate(str(data), [METRIC], labels=labels, output=str(tmp_path / "r.json"))
    expected = reference(scores, labels)
    entry = result.ppi.entry(METRIC)
    check_entry(entry.to_dict(), expected)
    assert result.to_dict()["ppi"] == json.loads((tmp_path / "r.json").read_text())["ppi"]
    assert evalcore.evaluate(str(data), [METRIC], output=str(tmp_path / "p.json")).ppi is None
    assert "ppi" not in json.loads((tmp_path / "p.json").read_text())
    awaited = asyncio.run(evalcore.aevaluate(str(data), [METRIC], labels=labels))
    assert awaited.ppi.entry(METRIC).ppi == entry.ppi


def test_compare_labels_gives_the_difference_of_the_two_estimates(judged):
    folder, _, scores_a, labels_a, labels_path_a, _ = judged
    data_b = write_records(folder / "b.jsonl", records(5))
    run_evalcore("evaluate", str(data_b), "-m", METRIC, "-o", str(folder / "b.json"))
    scores_b = judge_scores(folder / "b.rows.jsonl")
    labels_b = make_labels(scores_b, 6, shift=0.05)
    labels_path_b = write_labels(folder / "labels_b.jsonl", labels_b)
    a, b = reference(scores_a, labels_a), reference(scores_b, labels_b)
    # each run's standard error from ppi_py's interval (value -/+ z se); the two are independent samples
    z = NormalDist().inv_cdf(0.975)
    se = np.hypot(*((r["ci"][1] - r["ci"][0]) / (2 * z) for r in (a, b)))
    difference = b["ppi"] - a["ppi"]
    args = ("compare", str(folder / "plain.json"), str(folder / "b.json"), "--labels", labels_path_a,
            "--labels", labels_path_b)
    found = json.loads(run_evalcore(*args, "--json").stdout)["ppi"]
    assert found[0]["runs"] == ["plain", "b"]
    entry = found[0]["entries"][0]
    assert entry["judge_mean"] == pytest.approx(b["judge"] - a["judge"], rel=1e-12)
    assert entry["ppi"]["value"] == pytest.approx(difference, rel=1e-9)
    assert entry["ppi"]["ci"] == pytest.approx([difference - z * se, difference + z * se], rel=1e-9)
    text = run_evalcore(*args).stdout
    assert "prediction-powered inference (b - plain; 95 % intervals)" in text
    assert f"PPI             {difference:.4f}" in text
    one_file = run_evalcore("compare", str(folder / "plain.json"), str(folder / "b.json"), "--labels",
                            labels_path_a, "--json")
    assert json.loads(one_file.stdout)["ppi"][0]["entries"][0]["n_labelled"] == 80 + sum(
        key in scores_b for key in labels_a)


def test_report_says_per_metric_what_the_labels_corrected(judged):
    folder, _, scores, labels, labels_path, _ = judged
    expected = reference(scores, labels)
    page = folder / "page.html"
    run_evalcore("report", str(folder / "plain.json"), "--labels", labels_path, "-o", str(page))
    line = (f"{METRIC}: judge mean {expected['judge']:.4f} → prediction-powered {expected['ppi']:.4f} "
            f"[{expected['ci'][0]:.4f}, {expected['ci'][1]:.4f}] from 80 labels (labelled-only mean "
            f"{expected['labelled']:.4f} [{expected['labelled_ci'][0]:.4f}, {expected['labelled_ci'][1]:.4f}])")
    html = page.read_text(encoding="utf-8")
    assert '<section id="ppi">' in html and line in html
