"""The evalcore conformance kit applied to every outcome metric."""

import sys

from evalcore.testkit import PluginConformance

PASSING = [sys.executable, "-c", "print('test result: ok. 2 passed; 0 failed')"]
FAILING = [sys.executable, "-c", "raise SystemExit(1)"]
LABELS = {"step_utility": 0.5, "was_repeated": False, "verification_delta": 1, "params_valid": True,
          "cost_tokens": 2000}
CALL = {"tool": "bash", "params": {"command": "ls"}}
EXAMPLE = {"tests_passing": 1, "tool_schemas": {"bash": {"type": "object", "required": ["command"]}},
           "execution_history": [{"tool": "read", "params": {"path": "a.py"}}]}


class TestConformance(PluginConformance):
    namespace = "outcome"
    package = "evalcore_outcome"
    heavy = ("numpy", "jsonschema")
    examples = [
        {"example": EXAMPLE, "prediction": {**LABELS, **CALL}},
        {"example": EXAMPLE, "prediction": {**LABELS, "was_repeated": True, "verification_delta": -1,
                                            "tool": "read", "params": {"path": "a.py"}}},
    ]
    params = {"outcome/sandbox": {"command": PASSING}, "outcome/test_pass": {"command": PASSING},
              "outcome/verification_delta": {"command": PASSING}}
    examples_by_metric = {
        "outcome/sandbox": [{"example": {}, "prediction": {}}],
        "outcome/test_pass": [{"example": {}, "prediction": {}}],
        "outcome/verification_delta": [{"example": EXAMPLE, "prediction": {}}],
    }
    bad_inputs = [{"example": {"tool_schemas": "none", "execution_history": "none", "tests_passing": "many"},
                   "prediction": {"step_utility": "high", "tool": 3, "params": "x", "workdir": 5}}]

    accepts_bad_inputs = {
        "outcome/sandbox": "runs its command whatever the record holds",
        "outcome/test_pass": "runs its command whatever the record holds",
        "outcome/was_repeated": "reads a malformed history as empty, as the dsrs unwrap_or default does",
    }
