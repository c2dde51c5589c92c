"""Function-style metrics (seed 004) and DSPy-style calling (seed 001)."""

import evalcore
import pytest
from evalcore import MetricConflictError, SkipSample


def accuracy_score(run, context):
    """Exact match of the output and the expected output."""
    return {"accuracy": float(run["output"] == context["expected_output"]), "mode": "exact"}


def test_register_get_list_an_engine_style_function():
    evalcore.register_metric("accuracy_score", accuracy_score)
    assert "local/accuracy_score" in evalcore.metric_keys()
    metric = evalcore.get_metric("local/accuracy_score")
    score = metric.score_one({"expected_output": "x"}, {"output": "x"})
    assert score.value == 1.0 and score.details == {"accuracy": 1.0, "mode": "exact"}
    assert evalcore.describe("local/accuracy_score").spec.summary == \
        "Exact match of the output and the expected output."


def test_registering_the_same_function_twice_is_a_no_op_but_another_one_conflicts():
    evalcore.register_metric("accuracy_score", accuracy_score)
    evalcore.register_metric("accuracy_score", accuracy_score)

    def other(run, context):
        return {"score": 0.0}

    with pytest.raises(MetricConflictError):
        evalcore.register_metric("accuracy_score", other)
    evalcore.register_metric("accuracy_score", other, replace=True)
    assert evalcore.get_metric("local/accuracy_score").score_one({}, {}).value == 0.0


def test_engine_output_without_a_clear_score_is_an_error_naming_value_key():
    evalcore.register_metric("two_numbers", lambda run, context: {"a": 1, "b": 2})
    score = evalcore.get_metric("two_numbers").score_one({}, {})
    assert score.status.value == "error" and "value_key" in score.error_message
    evalcore.register_metric("two_numbers_b", lambda run, context: {"a": 1, "b": 2}, value_key="b")
    assert evalcore.get_metric("two_numbers_b").score_one({}, {}).value == 2.0


def test_engine_output_reporting_unsupported_is_skipped_with_its_reason():
    evalcore.register_metric(
        "cost_efficiency_fn",
        lambda run, context: {"supported": False, "efficiency": None, "reason": "missing_usage"},
        value_key="efficiency",
    )
    score = evalcore.get_metric("cost_efficiency_fn").score_one({}, {})
    assert score.status.value == "skipped" and score.reason == "missing_usage"


@pytest.mark.parametrize(("returned", "value", "feedback"), [
    (True, 1.0, None), (False, 0.0, None), (0.25, 0.25, None), (1, 1.0, None),
    ((0.5, "half right"), 0.5, "half right"),
    ({"score": 0.75, "feedback": "close"}, 0.75, "close"),
])
def test_dspy_style_returns(returned, value, feedback):
    def metric(gold, pred, trace=None):
        assert gold.answer == "Paris" and pred.answer == "paris"  # DSPy field names work
        return returned

    evalcore.register_metric("dspy_metric", metric)
    score = evalcore.get_metric("dspy_metric").score_one({"reference_answer": "Paris"}, {"response": "paris"})
    assert (score.value, score.feedback) == (value, feedback)


def test_prediction_objects_with_score_and_feedback_are_accepted():
    class Prediction:
        def __init__(self, score, feedback):
            self.score, self.feedback = score, feedback

    evalcore.register_metric("object_metric", lambda gold, pred, trace=None: Prediction(0.4, "why"))
    score = evalcore.get_metric("object_metric").score_one({}, {})
    assert (score.value, score.feedback) == (0.4, "why")


@pytest.mark.parametrize("bad", [None, float("nan"), "0.5", [1]])
def test_a_callable_returning_no_number_is_an_error(bad):
    evalcore.register_metric("bad_metric", lambda gold, pred: bad)
    assert evalcore.get_metric("bad_metric").score_one({}, {}).status.value == "error"


def test_any_metric_is_callable_dspy_style():
    evalcore.register_metric("half", lambda gold, pred: 0.5, pass_threshold=0.5)
    metric = evalcore.get_metric("half")

    class Example:  # attribute-style objects, like dspy.Example
        def __init__(self, **fields):
            self.__dict__.update(fields)

    assert metric(Example(answer="a"), Example(answer="b")) == 0.5
    assert metric(Example(answer="a"), Example(answer="b"), trace=[]) is True
    evalcore.register_metric("low", lambda gold, pred: 0.4, pass_threshold=0.5)
    assert evalcore.get_metric("low")({}, {}, trace=[]) is False


def test_dspy_call_raises_for_errors_and_skips():
    def needs_reference(gold, pred):
        if "reference_answer" not in gold:
            raise SkipSample("no reference")
        raise ValueError("broken")

    evalcore.register_metric("picky", needs_reference)
    metric = evalcore.get_metric("picky")
    with pytest.raises(SkipSample, match="no reference"):
        metric({}, {})
    with pytest.raises(RuntimeError, match="ValueError: broken"):
        metric({"reference_answer": "x"}, {})


def test_feedback_is_available_to_optimizers():
    evalcore.register_metric("explains", lambda gold, pred: (0.0, "missing the city"))
    result = evalcore.get_metric("explains").feedback({"answer": "Paris"}, {"answer": "France"})
    assert (result.score, result.feedback) == (0.0, "missing the city")
