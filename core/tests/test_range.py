"""A value outside a metric's declared range is an error naming the range, whatever the metric kind."""

import asyncio

import pytest
from evalcore import BatchMetric, CorpusMetric, MetricSpec, SampleMetric, Status
from evalcore._contract.metric import aguarded, guarded_call, result_check


class Fixed(SampleMetric):
    def score(self, example, prediction):
        return prediction["value"]


class FixedBatch(BatchMetric):
    def score_batch(self, examples, predictions):
        return [p["value"] for p in predictions]


class Total(CorpusMetric):
    def sample_state(self, example, prediction):
        return prediction["value"]

    def merge(self, states):
        return sum(states)

    def compute(self, state):
        return state


def _spec(value_range=(0.0, 1.0)):
    return MetricSpec(name="m", namespace="t", implementation="x:y", summary="s", value_range=value_range)


@pytest.mark.parametrize("cls", [Fixed, FixedBatch])
def test_sample_and_batch_values_outside_the_range_are_errors(cls):
    metric = cls(_spec())
    ok, low, high = metric.score_many([{}, {}, {}], [{"value": 1.0}, {"value": -0.5}, {"value": 1.5}])
    assert ok.value == 1.0 and ok.status is Status.OK
    for score, value in ((low, -0.5), (high, 1.5)):
        assert score.status is Status.ERROR and score.error_type == "ValueOutOfRange"
        assert score.error_message == f"t/m: value {value} is outside its declared range [0, 1]"


class AsyncFixed(SampleMetric):
    async def ascore(self, example, prediction):
        return prediction["value"]


def test_the_evaluator_paths_check_the_range():
    metric = Fixed(_spec((0.0, None)))
    call = guarded_call(metric.score, result_check(metric.spec))  # what the runners call
    assert call({}, {"value": 1e6}).value == 1e6
    score = call({}, {"value": -1})
    assert score.error_message == "t/m: value -1.0 is outside its declared range [0, inf]"
    asynchronous = AsyncFixed(_spec((0.0, None)))
    assert asyncio.run(aguarded(asynchronous.ascore, {}, {"value": 1e6})).value == 1e6
    score = asyncio.run(aguarded(asynchronous.ascore, {}, {"value": -1}))
    assert score.error_message == "t/m: value -1.0 is outside its declared range [0, inf]"


def test_a_corpus_value_outside_the_range_is_an_error():
    metric = Total(_spec((0.0, 100.0)))
    assert metric.corpus_score([40.0, 60.0]).value == 100.0
    score = metric.corpus_score([60.0, 60.0])
    assert score.status is Status.ERROR and "[0, 100]" in score.error_message


def test_rounding_at_the_bounds_is_not_an_error():
    assert Fixed(_spec()).score_one({}, {"value": 1.0 + 1e-12}).status is Status.OK


@pytest.mark.parametrize("cls", [Fixed, AsyncFixed])
def test_evaluate_checks_every_returned_value_against_the_range(cls):
    from evalcore import evaluate

    values = {"in": 0.5, "edge": 1.0 + 1e-12, "int": 1, "above": 2.0, "below": -0.25, "nan": float("nan")}
    data = [{"id": key, "example": {}, "prediction": {"value": value}} for key, value in values.items()]
    result = evaluate(data, [cls(_spec())], progress=False)
    scores = {row["id"]: row["scores"]["t/m"] for row in result.samples}
    assert scores["in"] == {"value": 0.5, "status": "ok"}
    assert scores["edge"]["status"] == "ok" and scores["int"] == {"value": 1.0, "status": "ok"}
    for key in ("above", "below"):
        assert scores[key]["error"] == {
            "type": "ValueOutOfRange",
            "message": f"t/m: value {values[key]} is outside its declared range [0, 1]"}
    assert scores["nan"]["error"] == {"type": "ValueError", "message": "metric returned NaN"}
    summary = result.metrics["t/m"]
    assert (summary.n, summary.n_errors) == (3, 3)
    assert summary.value == pytest.approx((0.5 + 1.0 + 1e-12 + 1.0) / 3)


@pytest.mark.parametrize("cls", [Fixed, FixedBatch])
def test_a_value_past_the_range_by_rounding_only_is_clipped_and_noted(cls):
    metric = cls(_spec())
    # BERTScore of identical texts on one thread: 1.00000016; a tiny negative zero from a subtraction
    rounded_up, rounded_down, beyond = metric.score_many(
        [{}, {}, {}], [{"value": 1.00000016}, {"value": -4e-7}, {"value": 1.0000011}])
    assert (rounded_up.status, rounded_up.value, rounded_up.details["clipped_from"]) == (Status.OK, 1.0, 1.00000016)
    assert (rounded_down.status, rounded_down.value, rounded_down.details["clipped_from"]) == (Status.OK, 0.0, -4e-7)
    assert beyond.status is Status.ERROR and beyond.error_type == "ValueOutOfRange"


def test_the_last_bits_of_a_sum_are_kept_as_the_reference_computes_them():
    metric = Fixed(_spec((0.0, 100.0)))  # sacrebleu's BLEU of identical texts
    [score] = metric.score_many([{}], [{"value": 100.00000000000004}])
    assert score.value == 100.00000000000004 and "clipped_from" not in score.details


def test_the_rounding_tolerance_is_relative_to_a_large_bound():
    metric = Fixed(_spec((0.0, 100.0)))  # BLEU's scale
    near, far = metric.score_many([{}, {}], [{"value": 100.00005}, {"value": 100.0002}])
    assert near.value == 100.0 and near.details["clipped_from"] == 100.00005
    assert far.status is Status.ERROR


def test_a_clipped_value_is_noted_in_the_journal_row(tmp_path):
    import json

    import evalcore

    rows = [{"id": 1, "example": {}, "prediction": {"value": 1.00000016}}]
    result = evalcore.evaluate(rows, [Fixed(_spec())], samples=tmp_path / "rows.jsonl")
    assert result.metrics["t/m"].value == 1.0 and result.metrics["t/m"].n_errors == 0
    [row] = [json.loads(line) for line in (tmp_path / "rows.jsonl").read_text().splitlines()[1:] if '"id"' in line]
    assert row["scores"]["t/m"]["details"]["clipped_from"] == 1.00000016
