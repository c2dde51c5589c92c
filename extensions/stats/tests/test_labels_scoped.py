"""Labels are scoped and checked where users give them (``evaluate --labels``, ``evaluate(labels=...)``,
``evalcore ppi``, ``compare --labels``): they apply only to the metric they name, a label off the
metric's scale or an estimate that overflows is one line naming it, intervals stay on the scale,
special files are refused, and every output says what a prediction-powered estimate is.

Expected estimates come from ppi_py (``ppi_mean_pointestimate``, ``ppi_mean_ci``) fed the run's rows.
"""

from __future__ import annotations

import json
import os

import evalcore
import numpy as np
import pytest
from click.testing import CliRunner
from evalcore._cli.main import main
from evalcore._engine.saved import read_journal
from evalcore.testing import run_evalcore, write_records

ppi_py = pytest.importorskip("ppi_py")

F1, EM = "overlap/token_f1", "overlap/exact_match"


def _records(n: int = 30) -> list[dict]:
    rng = np.random.default_rng(7)
    words = [f"w{i}" for i in range(6)]
    out = []
    for i in range(n):
        shared = int(rng.integers(0, 7))
        out.append({"id": f"r{i}", "example": {"query": "q", "reference_answer": " ".join(words)},
                    "prediction": {"response": " ".join(words[:shared] + ["x"] * int(rng.integers(0, 3))) or "x"}})
    return out


def cli(*args: str):
    """The command in this process (click's runner), as a user runs it: exit code, stdout, stderr."""
    result = CliRunner().invoke(main, [*args, *(["--no-progress"] if args[0] == "evaluate" else [])])
    result.returncode = result.exit_code
    return result


def _labels_file(path, labels: dict[str, float], metric: str | None = None) -> str:
    extra = {} if metric is None else {"metric": metric}
    path.write_text("".join(json.dumps({"id": k, "label": v, **extra}) + "\n" for k, v in labels.items()))
    return str(path)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A run of two per-record metrics, its token F1 scores, and labels on ten records."""
    folder = tmp_path_factory.mktemp("scoped")
    data = write_records(folder / "a.jsonl", _records())
    run_evalcore("evaluate", str(data), "-m", F1, "-m", EM, "-o", str(folder / "run.json"))
    _, rows = read_journal(str(folder / "run.rows.jsonl"))
    scores = {key: float(row["scores"][F1]["value"]) for key, row in rows.items()}
    labels = {f"r{i}": float(np.clip(scores[f"r{i}"] - 0.2 + 0.05 * (i % 3), 0, 1)) for i in range(10)}
    return folder, data, scores, labels


def _ppi_py(scores: dict[str, float], labels: dict[str, float]) -> tuple[float, tuple[float, float]]:
    y = np.array([labels[k] for k in scores if k in labels])
    yhat = np.array([scores[k] for k in scores if k in labels])
    rest = np.array([v for k, v in scores.items() if k not in labels])
    low, high = ppi_py.ppi_mean_ci(y, yhat, rest, alpha=0.05)
    return float(np.ravel(ppi_py.ppi_mean_pointestimate(y, yhat, rest))[0]), (float(low[0]), float(high[0]))


def test_unnamed_labels_on_a_run_of_several_metrics_are_refused(run, tmp_path):
    folder, data, _, labels = run
    path = _labels_file(tmp_path / "l.jsonl", labels)
    proc = cli("evaluate", str(data), "-m", F1, "-m", EM, "--labels", path, "-o", str(tmp_path / "r.json"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    [line] = proc.stderr.strip().splitlines()
    assert "name no metric" in line and "--labels-metric" in line and F1 in line and EM in line
    assert line.endswith(f"the run's rows are kept in {tmp_path / 'r.rows.jsonl'}")
    proc = cli("ppi", str(folder / "run.json"), "--labels", path)
    assert proc.returncode == 2 and "name no metric" in proc.stderr


@pytest.mark.parametrize("how", ["option", "field"])
def test_labels_apply_only_to_the_metric_they_name(run, tmp_path, how):
    _, data, scores, labels = run
    named = _labels_file(tmp_path / "l.jsonl", labels, F1 if how == "field" else None)
    extra = ["--labels-metric", F1] if how == "option" else []
    proc = cli("evaluate", str(data), "-m", F1, "-m", EM, "--labels", named, *extra, "-o", str(tmp_path / "r.json"))
    assert proc.returncode == 0, proc.output
    report = json.loads((tmp_path / "r.json").read_text())
    [entry] = report["ppi"]["entries"]  # exact match, which the labels are not for, is left alone
    value, ci = _ppi_py(scores, labels)
    assert entry["metric"] == F1 and entry["n_labelled"] == 10
    assert entry["ppi"]["value"] == pytest.approx(value, rel=1e-9)
    assert entry["ppi"]["ci"] == pytest.approx([max(ci[0], 0.0), min(ci[1], 1.0)], rel=1e-9)
    assert "lam is the weight" in report["ppi"]["explanation"]
    assert "Prediction-powered inference (PPI) estimates" in proc.stdout and "lam is the weight" in proc.stdout


def test_python_labels_metric(run):
    _, data, scores, labels = run
    result = evalcore.evaluate(str(data), [F1, EM], labels=labels, labels_metric="token_f1")
    assert [e.metric for e in result.ppi.entries] == [F1]
    assert result.ppi.entries[0].ppi.value == pytest.approx(_ppi_py(scores, labels)[0], rel=1e-9)


def test_a_label_off_the_metric_scale_names_the_record_and_value(run, tmp_path):
    folder, data, _, labels = run
    path = _labels_file(tmp_path / "l.jsonl", {**labels, "r4": -5})
    for args in (["evaluate", str(data), "-m", F1, "--labels", path, "-o", str(tmp_path / "r.json")],
                 ["ppi", str(folder / "run.json"), "--labels", path, "--labels-metric", F1]):
        proc = cli(*args)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr
        [line] = proc.stderr.strip().splitlines()
        assert "'r4'" in line and "-5" in line and F1 in line and "0–1" in line


def test_intervals_are_clipped_to_the_scale_with_a_note(run, tmp_path):
    folder, _, scores, _ = run
    labels = {"r0": 1.0, "r1": 1.0, "r2": 0.0}  # three labels: the classic interval runs past 0 and 1
    path = _labels_file(tmp_path / "l.jsonl", labels, F1)
    out = json.loads(cli("ppi", str(folder / "run.json"), "--labels", path, "--lam", "1", "--json").stdout)
    [entry] = out["entries"]
    y = np.array(list(labels.values()))
    yhat = np.array([scores[k] for k in labels])
    rest = np.array([v for k, v in scores.items() if k not in labels])
    low, high = ppi_py.ppi_mean_ci(y, yhat, rest, alpha=0.05, lam=1.0)
    assert low[0] < 0.0 or high[0] > 1.0  # the case this test is about
    assert entry["ppi"]["ci"] == pytest.approx([max(float(low[0]), 0.0), min(float(high[0]), 1.0)], rel=1e-9)
    assert entry["range_note"] == "intervals clipped to the metric's range (0 to 1)"
    table = cli("ppi", str(folder / "run.json"), "--labels", path, "--lam", "1").stdout
    assert "intervals clipped to the metric's range (0 to 1)" in table and "lam is the weight" in table


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")  # the run's own summary overflows too
def test_an_estimate_that_overflows_is_an_error(tmp_path):
    data = [{"id": f"r{i}", "example": {"query": "q"}, "prediction": {"response": "x" * (i + 1)}} for i in range(8)]

    def huge(gold, pred, trace=None):
        return 1e300 * len(pred["response"])

    with pytest.raises(evalcore.InputError, match=r"overflows .*lam nan"):
        evalcore.evaluate(data, [huge], labels={f"r{i}": 1e300 * (i + 2) for i in range(4)},
                          output=str(tmp_path / "r.json"))


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_an_endless_labels_file_is_refused(run, tmp_path, kind):
    _, data, _, _ = run
    path = "/dev/zero" if kind == "device" else str(tmp_path / "labels.fifo")
    if kind == "fifo":
        os.mkfifo(path)  # opening it to read would wait for a writer for ever
    proc = run_evalcore("evaluate", str(data), "-m", F1, "--labels", path, "-o", str(tmp_path / "r.json"),
                        check=False, timeout=60)
    assert proc.returncode == 2 and "not a regular file" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "r.json").exists()


def test_an_oversized_labels_file_is_refused(run, tmp_path, monkeypatch):
    from evalcore_stats import labels as module

    _, _, _, labels = run
    path = _labels_file(tmp_path / "l.jsonl", labels, F1)
    monkeypatch.setattr(module, "MAX_LABELS_BYTES", 100)
    with pytest.raises(evalcore.InputError, match="labels files are read whole"):
        evalcore.read_labels(path)


def test_the_report_explains_ppi_for_the_labelled_metric_only(run, tmp_path):
    pytest.importorskip("evalcore_report")
    folder, _, _, labels = run
    path = _labels_file(tmp_path / "l.jsonl", labels)
    page = tmp_path / "page.html"
    result = cli("report", str(folder / "run.json"), "--labels", path, "--labels-metric", F1, "-o", str(page))
    assert result.exit_code == 0, result.output
    html = page.read_text()
    assert "Prediction-powered inference (PPI) estimates a metric&#x27;s mean" in html
    assert "lam is the weight given to the scores" in html
    section = html[html.index('<section id="ppi">'):]
    section = section[:section.index("</section>")]
    assert f"{F1}: judge mean" in section and f"{EM}: judge mean" not in section


def test_compare_labels_are_scoped_too(run, tmp_path):
    folder, data, _, labels = run
    other = tmp_path / "other.json"
    assert cli("evaluate", str(data), "-m", F1, "-m", EM, "-o", str(other)).exit_code == 0
    path = _labels_file(tmp_path / "l.jsonl", labels)
    refused = cli("compare", str(folder / "run.json"), str(other), "--labels", path)
    assert refused.exit_code == 2 and "name no metric" in refused.stderr
    result = cli("compare", str(folder / "run.json"), str(other), "--labels", path, "--labels-metric", F1, "--json")
    assert result.exit_code == 0, result.output
    [estimate] = json.loads(result.stdout)["ppi"]
    [entry] = estimate["entries"]
    assert entry["metric"] == F1 and entry["ppi"]["value"] == pytest.approx(0.0, abs=1e-12)  # the same run twice
    assert -1.0 <= entry["ppi"]["ci"][0] <= entry["ppi"]["ci"][1] <= 1.0
