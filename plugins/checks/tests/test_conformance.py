"""The evalcore conformance kit applied to every checks metric."""

from evalcore.testkit import PluginConformance

EXAMPLE = {
    "reference_answer": "def f():\n    return 1", "expected_output": {"answer": 42},
    "required_keywords": ["return"], "forbidden_keywords": ["TODO"], "keywords": ["return", "def"],
    "required_fields": ["answer", "source"], "schema": {"type": "object", "required": ["answer"]},
    "expression": "duration_ms < 1500",
}


class TestConformance(PluginConformance):
    namespace = "checks"
    package = "evalcore_checks"
    heavy = ("numpy", "jsonschema")
    examples = [
        {"example": EXAMPLE, "prediction": {"response": "def f():\n    return 1", "duration_ms": 1200,
                                            "policy_violations": 0}},
        {"example": EXAMPLE, "prediction": {"response": '{"answer": 42, "source": "x"}', "duration_ms": 2000,
                                            "policy_violations": ["shouting"]}},
    ]
    params = {"checks/length": {"min_chars": 5, "max_chars": 40}}
    examples_by_metric = {"checks/diff": [
        {"example": {"expected_output": "def f():\n    return 1"},
         "prediction": {"response": "def f():  \n  return 1"}},
        {"example": {"expected_output": "x = 1"}, "prediction": {"response": "x = 2"}},
    ]}
    bad_inputs = [{"example": {"schema": 5, "required_fields": "answer", "expression": "import os"},
                   "prediction": {"response": None, "policy_violations": "many"}}]
    accepts_bad_inputs = {
        "checks/format": "an empty output scores 0 ('output is empty'), as the dsrs reference tests ask",
        "checks/length": "no output has length 0, scored against the bounds",
        "checks/syntax": "no output is scored as empty code",
    }
