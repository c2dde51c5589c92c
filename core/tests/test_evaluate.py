"""The evaluator: aggregates, failures, early stop, streaming, tiers, budget, rollouts."""

import asyncio
import json
import threading
import time

import evalcore
import numpy as np
import pytest
from evalcore import BatchMetric, CorpusMetric, EvalcoreError, MetricSpec, SampleMetric, Score, SkipSample


def build(cls, name, *, tier="proxy", cost_msats=0, **fields):
    spec = MetricSpec(name=name, namespace="t", implementation="tests:x", summary=name, tier=tier,
                      cost_msats=cost_msats, **fields)
    return cls(spec)


class Length(SampleMetric):
    """Value = prediction["value"]; skips when absent, fails when negative."""

    def score(self, example, prediction):
        if "value" not in prediction:
            raise SkipSample("no value")
        if prediction["value"] < 0:
            raise ValueError("negative value")
        return prediction["value"]


def records(values):
    return [{"id": f"r{i}", "example": {}, "prediction": {} if v is None else {"value": v}}
            for i, v in enumerate(values)]


def test_aggregate_counts_standard_error_and_bootstrap():
    values = [0.1, 0.4, 0.9, 0.3, None, -1, 0.8]
    result = evalcore.evaluate(records(values), [build(Length, "v")], seed=7)
    summary = result.metrics["t/v"]
    ok = np.array([0.1, 0.4, 0.9, 0.3, 0.8])
    assert (summary.n, summary.n_skipped, summary.n_errors) == (5, 1, 1)
    assert summary.value == pytest.approx(ok.mean())
    assert summary.stderr == pytest.approx(ok.std(ddof=1) / np.sqrt(5))
    low, high = summary.ci
    assert low <= summary.value <= high and ok.min() <= low and high <= ok.max()
    again = evalcore.evaluate(records(values), [build(Length, "v")], seed=7).metrics["t/v"]
    assert again.ci == summary.ci  # seeded: reproducible
    rows = {row["id"]: row["scores"]["t/v"] for row in result.samples}
    assert rows["r4"] == {"value": None, "status": "skipped", "reason": "no value"}
    assert rows["r5"]["status"] == "error" and rows["r5"]["error"] == {"type": "ValueError",
                                                                      "message": "negative value"}


def test_failure_score_counts_errors_with_that_value():
    result = evalcore.evaluate(records([1.0, -1, 0.5]), [build(Length, "v")], failure_score=0.0)
    summary = result.metrics["t/v"]
    assert (summary.n, summary.n_errors, summary.value) == (3, 1, pytest.approx(0.5))


def test_no_scorable_sample_gives_null_never_zero(tmp_path):
    result = evalcore.evaluate(records([None, None]), [build(Length, "v")], output=tmp_path / "r.json")
    summary = result.metrics["t/v"]
    assert (summary.value, summary.n, summary.n_skipped, summary.ci) == (None, 0, 2, None)
    assert json.loads((tmp_path / "r.json").read_text())["metrics"]["t/v"]["value"] is None
    assert "—" in result.table().splitlines()[2]


def test_max_errors_stops_and_keeps_what_finished(tmp_path):
    values = [0.5] * 5 + [-1] * 10 + [0.5] * 20
    samples = tmp_path / "rows.jsonl"
    output = tmp_path / "result.json"
    result = evalcore.evaluate(records(values), [build(Length, "v")], max_errors=3, concurrency=1,
                               samples=samples, output=output)
    assert result.stopped and "max_errors=3" in result.stopped
    finished = [row["id"] for row in result.samples]
    assert finished[:5] == ["r0", "r1", "r2", "r3", "r4"] and len(finished) < len(values)
    journal = [json.loads(line) for line in samples.read_text().splitlines()]
    assert [row["id"] for row in journal if "id" in row] == finished
    saved = json.loads(output.read_text())
    assert saved["stopped"] == result.stopped and saved["samples_file"] == "rows.jsonl"  # beside the report
    assert result.metrics["t/v"].n_errors == 4  # the fourth error crosses max_errors=3


def test_max_errors_as_a_fraction_of_records():
    result = evalcore.evaluate(records([-1] * 3 + [0.5] * 7), [build(Length, "v")], max_errors=0.2,
                               concurrency=1)
    assert result.stopped  # 0.2 * 10 = 2 errors allowed, the third stops the run


def test_rows_stream_to_jsonl_as_records_finish(tmp_path):
    samples = tmp_path / "rows.jsonl"
    seen_while_running = []

    class Slow(SampleMetric):
        def score(self, example, prediction):
            if example["id"] == "r3" and samples.exists():
                seen_while_running.append(len(samples.read_text().splitlines()))
            return 1.0

    evalcore.evaluate(records([1] * 4), [build(Slow, "slow")], samples=samples, concurrency=1, chunk_size=1)
    # two chunks are scored at a time, so when r3 is scored at least two earlier rows (each with its
    # chunk checkpoint) follow the header on disk, and r3's row is not there yet
    assert len(seen_while_running) == 1 and 1 + 2 * 2 <= seen_while_running[0] <= 1 + 3 * 2


def test_later_metrics_see_earlier_values():
    class Reads(SampleMetric):
        def score(self, example, prediction):
            return prediction["metrics"]["v"] * 2 + prediction["metrics"]["t/v"]

    result = evalcore.evaluate(records([0.25]), [build(Length, "v"), build(Reads, "reads")])
    assert result.samples[0]["scores"]["t/reads"]["value"] == 0.75


def test_io_bound_sync_metrics_run_concurrently_in_threads():
    active, peak, lock = [0], [0], threading.Lock()

    class Busy(SampleMetric):
        io_bound = True

        def score(self, example, prediction):
            with lock:
                active[0] += 1
                peak[0] = max(peak[0], active[0])
            time.sleep(0.2)  # long enough for every worker to start under load
            with lock:
                active[0] -= 1
            return 1.0

    evalcore.evaluate(records([1] * 8), [build(Busy, "busy")], concurrency=4)
    assert peak[0] == 4


def test_computing_sync_metrics_run_on_the_engines_thread_unless_time_limited():
    threads = []

    class Compute(SampleMetric):
        def score(self, example, prediction):
            threads.append(threading.current_thread())
            return 1.0

    evalcore.evaluate(records([1] * 3), [build(Compute, "compute")], concurrency=4)
    assert threads == [threading.main_thread()] * 3
    threads.clear()
    evalcore.evaluate(records([1] * 3), [build(Compute, "compute")], concurrency=4, timeout_s=5)
    assert len(threads) == 3 and threading.main_thread() not in threads


def test_async_metrics_run_on_the_event_loop_concurrently():
    active, peak = [0], [0]

    class Remote(SampleMetric):
        async def ascore(self, example, prediction):
            active[0] += 1
            peak[0] = max(peak[0], active[0])
            await asyncio.sleep(0.02)
            active[0] -= 1
            return 0.5

    result = evalcore.evaluate(records([1] * 6), [build(Remote, "remote")], concurrency=3)
    assert peak[0] == 3 and result.metrics["t/remote"].value == 0.5


class Doubles(BatchMetric):
    calls = 0

    def score_batch(self, examples, predictions):
        Doubles.calls += 1
        return [p["value"] * 2 if p.get("value", -1) >= 0 else Score.error("ValueError", "bad") for p in predictions]


def test_batch_metrics_score_all_records_in_one_call():
    Doubles.calls = 0
    result = evalcore.evaluate(records([0.1, 0.2, -1]), [build(Doubles, "double")])
    assert Doubles.calls == 1
    assert [r["scores"]["t/double"]["status"] for r in result.samples] == ["ok", "ok", "error"]
    assert result.metrics["t/double"].value == pytest.approx(0.3)


class WordRatio(CorpusMetric):
    """Total hits / total words across the corpus (a ratio of sums, not a mean)."""

    def sample_state(self, example, prediction):
        if "value" not in prediction:
            raise SkipSample("no value")
        return np.array([prediction["value"], 1.0])

    def merge(self, states):
        return np.sum(states, axis=0) if states else np.zeros(2)

    def compute(self, state):
        return state[0] / state[1]


def test_corpus_metrics_merge_states_and_shards_agree():
    values = [0.2, 0.4, None, 0.9, 0.1]
    metric = build(WordRatio, "ratio", granularity="corpus")
    whole = evalcore.evaluate(records(values), [metric]).metrics["t/ratio"]
    assert whole.value == pytest.approx(np.mean([0.2, 0.4, 0.9, 0.1])) and whole.n_skipped == 1
    states = [s for _, s in metric.states([{}] * 4, [{"value": v} for v in (0.2, 0.4, 0.9, 0.1)])]
    shards = metric.merge([metric.merge(states[:2]), metric.merge(states[2:])])
    assert metric.compute(shards) == pytest.approx(whole.value)
    assert whole.ci is not None and whole.stderr is not None


def test_threshold_gates_truth_metrics_and_keeps_the_proxy_score():
    truth_calls = []

    class Judge(SampleMetric):
        def score(self, example, prediction):
            truth_calls.append(example["id"])
            return 1.0

    metrics = [build(Judge, "judge", tier="truth"), build(Length, "v")]  # order fixed to proxy first
    result = evalcore.evaluate(records([0.9, 0.2, 0.6]), metrics, threshold=0.5)
    assert sorted(truth_calls) == ["r0", "r2"]
    rows = {r["id"]: r for r in result.samples}
    assert rows["r1"]["scores"]["t/judge"]["status"] == "skipped"
    assert "below the threshold 0.5" in rows["r1"]["scores"]["t/judge"]["reason"]
    assert rows["r1"]["gate"] == {"proxy_score": 0.2, "passed": False, "final": 0.2}
    assert rows["r0"]["gate"] == {"proxy_score": 0.9, "passed": True, "final": 1.0}


def test_budget_is_never_exceeded_and_skips_are_counted():
    class Paid(SampleMetric):
        def estimate(self, example, prediction):
            return {"calls": 1, "cost_msats": 300}

        def score(self, example, prediction):
            return Score(1.0, cost_msats=250)

    result = evalcore.evaluate(records([1] * 10), [build(Paid, "paid", tier="truth", cost_msats=300)],
                               budget_msats=1000, concurrency=1)
    summary = result.metrics["t/paid"]
    spent = result.provenance["budget"]["spent_msats"]
    assert spent <= 1000 and summary.cost_msats == spent
    # by hand: each call reserves 300 and spends 250; a call starts only while spent + 300 <= 1000:
    # spent 0 -> 250 -> 500 -> 750, then 750 + 300 > 1000 refuses every later record.
    assert (summary.n, summary.n_budget_skipped, spent) == (3, 7, 750)


def test_program_rollouts_are_aggregated_with_their_spread():
    from scipy.stats import trim_mean

    outputs = iter([0.1, 0.5, 0.9, 0.2, 1.0] * 2)
    lock = threading.Lock()

    def program(example):
        with lock:
            return {"value": next(outputs)}

    result = evalcore.evaluate(examples=[{"id": "a"}, {"id": "b"}], program=program, metrics=[build(Length, "v")],
                               rollouts=5, aggregate_by="trimmed_mean", trim=0.2, concurrency=1)
    for row in result.samples:
        rollouts = [r["value"] for r in row["scores"]["t/v"]["details"]["rollouts"]]
        assert row["scores"]["t/v"]["value"] == pytest.approx(trim_mean(rollouts, 0.2))
        assert row["scores"]["t/v"]["details"]["spread"]["max"] == max(rollouts)


def test_a_failing_program_is_that_records_error():
    def program(example):
        if example.id == "bad":
            raise RuntimeError("model crashed")
        return {"value": 1.0}

    result = evalcore.evaluate(examples=[{"id": "ok"}, {"id": "bad"}], program=program, metrics=[build(Length, "v")])
    bad = next(r for r in result.samples if r["id"] == "bad")["scores"]["t/v"]
    assert bad["status"] == "error" and "program failed: model crashed" in bad["error"]["message"]
    assert result.metrics["t/v"].n == 1


def test_plain_callables_and_examples_with_predictions():
    def exact(gold, pred, trace=None):
        return gold.answer == pred.answer

    result = evalcore.evaluate(examples=[{"answer": "a"}, {"answer": "b"}],
                               predictions=[{"answer": "a"}, {"answer": "c"}], metrics=[exact])
    assert result.metrics["local/exact"].value == 0.5


def test_outputs_json_and_csv(tmp_path):
    (tmp_path / "rows").mkdir()
    result = evalcore.evaluate(records([0.5, None]), [build(Length, "v")], output=tmp_path / "r.json",
                               csv=tmp_path / "r.csv", samples=tmp_path / "rows" / "r.jsonl")
    saved = json.loads((tmp_path / "r.json").read_text())
    assert saved["metrics"]["t/v"]["value"] == 0.5 and saved["metrics"]["t/v"]["n"] == 1
    assert saved["samples_file"] == "rows/r.jsonl"  # relative to the report's folder
    journal = [json.loads(line) for line in open(tmp_path / saved["samples_file"]) if line.startswith('{"id"')]
    assert journal == list(result.samples)
    assert set(saved["provenance"]["metrics"]["t/v"]) >= {"metric_version", "distribution", "distribution_version"}
    assert (tmp_path / "r.csv").read_text().splitlines() == ["id,t/v,t/v:status", "r0,0.5,ok", "r1,,skipped"]


def test_bad_records_are_rejected_and_the_others_evaluated():
    data = records([0.5, 0.7]) + [{"id": "x", "example": {}}]
    result = evalcore.evaluate(data, [build(Length, "v")])
    assert result.metrics["t/v"].n == 2
    assert len(result.rejected) == 1 and "missing field 'prediction'" in str(result.rejected[0])


@pytest.mark.parametrize(("options", "message"), [
    ({"metrics": []}, "no metrics"),
    ({"rollouts": 3}, "needs a program"),
    ({"aggregate_by": "mode"}, "unknown aggregation"),
])
def test_bad_options_are_clear_errors(options, message):
    kwargs = {"metrics": [build(Length, "v")], **options}
    with pytest.raises(EvalcoreError, match=message):
        evalcore.evaluate(records([0.5]), **kwargs)


def test_corpus_metrics_can_opt_out_of_the_bootstrap():
    class Distinct(WordRatio):
        bootstrap = False

    summary = evalcore.evaluate(records([0.2, 0.4, 0.9]), [build(Distinct, "distinct", granularity="corpus")])
    assert summary.metrics["t/distinct"].ci is None and summary.metrics["t/distinct"].stderr is None
    assert summary.metrics["t/distinct"].value == pytest.approx(0.5)


@pytest.mark.parametrize("chunk_size", [1, 2, 1000])
def test_a_repeated_id_is_rejected_and_its_first_record_kept(tmp_path, chunk_size):
    lines = [("r0", 0.1), ("r1", 0.2), ("r0", 0.3), ("r2", 0.4), ("r1", 0.5), ("r3", 0.6)]
    path = tmp_path / "data.jsonl"
    path.write_text("".join(json.dumps({"id": i, "example": {}, "prediction": {"value": v}}) + "\n"
                            for i, v in lines))
    result = evalcore.evaluate(path, [build(Length, "v")], chunk_size=chunk_size, progress=False)
    assert {row["id"]: row["scores"]["t/v"]["value"] for row in result.samples} == {
        "r0": 0.1, "r1": 0.2, "r2": 0.4, "r3": 0.6}
    assert len(result.samples) == 4 and result.provenance["n_records"] == 6
    assert [(e.source, e.field, e.reason) for e in result.rejected] == [
        (f"{path}:3 (record 'r0')", "id", "duplicate record id 'r0'"),
        (f"{path}:5 (record 'r1')", "id", "duplicate record id 'r1'")]


def test_bootstrap_in_many_blocks_through_evaluate_matches_resampling_by_definition(monkeypatch):
    """Blocks drawn on one thread and summed on another: the interval of index draws made in turn."""
    values = np.random.default_rng(3).random(300)
    monkeypatch.setattr("evalcore._engine.stats._BOOTSTRAP_BLOCK", 7 * 300)
    summary = evalcore.evaluate(records(values.tolist()), [build(Length, "v")], seed=5).metrics["t/v"]
    rng = np.random.default_rng(5)
    means = np.concatenate([values[rng.integers(0, 300, size=(min(7, 1000 - start), 300))].mean(axis=1)
                            for start in range(0, 1000, 7)])
    assert summary.ci == tuple(np.quantile(means, [0.025, 0.975]).tolist())
