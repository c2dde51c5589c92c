"""The evalcore conformance kit applied to every robustness metric."""

from evalcore.testkit import PluginConformance


def _pair(id_, response, scenario="base", variant_of=None, **example):
    labels = {"scenario": scenario, **({"variant_of": variant_of} if variant_of else {})}
    return {"example": {"id": id_, "reference_answer": "Paris", "labels": labels, **example},
            "prediction": {"response": response}}


class TestConformance(PluginConformance):
    namespace = "robustness"
    package = "evalcore_robustness"
    examples = [
        _pair("q1", "Paris", expected_signal="Paris"),
        _pair("q1n", "It is Paris", scenario="paraphrase", variant_of="q1", expected_signal="Paris"),
        _pair("q1c", "Paris, I think", scenario="counterfactual", variant_of="q1", expected_signal="Paris"),
        _pair("q2", "I don't know", scenario="unanswerable", expected_signal="know"),
        _pair("q3", "Lyon", expected_signal="Paris"),
        _pair("q3n", "Paris", scenario="typo", variant_of="q3", expected_signal="Paris"),
    ]
    params = {"robustness/noise_robustness": {"metric": "overlap/token_f1"}}
    bad_inputs = [{"example": {"labels": {"scenario": "unanswerable"}}, "prediction": {"response": 42}}]
    accepts_bad_inputs = {
        "robustness/noise_robustness": "a corpus ratio: a malformed sample leaves no mark on the sample rows",
    }
