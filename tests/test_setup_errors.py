"""A metric that cannot be set up is a one-line ParameterError naming its id and parameter."""

import evalcore
import pytest

CASES = [
    ("checks/length", {}, "min_chars"),
    ("checks/length", {"min_chars": 10, "max_chars": 2}, "min_chars"),
    ("robustness/noise_robustness", {"metric": "overlap/no_such_metric"}, "metric"),
    ("robustness/noise_robustness", {"metric": "noise_robustness"}, "metric"),
    ("robustness/counterfactual_consistency", {"similarity": "nosuch/metric"}, "similarity"),
    ("robustness/counterfactual_consistency", {"similarity": "system/distinct_n"}, "similarity"),
    ("outcome/sandbox", {"command": []}, "command"),
    ("outcome/sandbox", {"command": ["true"], "env": {"A": 1}}, "env"),
    ("outcome/test_pass", {"pass_env": "HOME"}, "pass_env"),
    ("judge/llm_judge", {"judge": "nosuchmod:fn"}, "judge"),
    ("judge/llm_judge", {"judge": "os:no_such_function"}, "judge"),
    ("adjutant/decision_accuracy", {"complexity_iterations": {"low": "two"}}, "complexity_iterations"),
    ("adjutant/rolling_accuracy", {"complexity_iterations": {"high": -1}}, "complexity_iterations"),
    ("adjutant/rolling_accuracy", {"window": 0}, "window"),
]


@pytest.mark.parametrize("metric_id, params, parameter", CASES, ids=[f"{c[0]}-{c[2]}-{i}" for i, c in enumerate(CASES)])
def test_setup_errors_name_metric_and_parameter(metric_id, params, parameter):
    try:
        evalcore.describe(metric_id)
    except evalcore.UnknownMetricError:
        pytest.skip(f"{metric_id} is not installed")
    with pytest.raises(evalcore.ParameterError) as info:
        evalcore.get_metric(metric_id, **params)
    message = str(info.value)
    assert metric_id.split("/")[1] in message and parameter in message and "\n" not in message


def test_other_setup_failures_are_evalcore_errors_naming_the_metric():
    from evalcore.plugin import MetricSpec, SampleMetric

    class Broken(SampleMetric):
        def setup(self):
            raise RuntimeError("no device")

        def score(self, example, prediction):
            return 1.0

    spec = MetricSpec(name="broken", namespace="local", implementation="x:y", summary="s")
    with pytest.raises(evalcore.EvalcoreError, match=r"^local/broken: cannot be set up: RuntimeError: no device$"):
        Broken(spec, {})
