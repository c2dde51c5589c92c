"""The evalcore conformance kit applied to every system metric."""

from evalcore.testkit import PluginConformance


class TestConformance(PluginConformance):
    namespace = "system"
    package = "evalcore_system"
    examples = [
        {"example": {}, "prediction": {"response": "the cat sat on the mat", "timings": {"end_to_end": 120.0},
                                       "usage": {"prompt_tokens": 10, "completion_tokens": 4}, "status": "ok",
                                       "retrieved": [{"doc_id": "a", "metadata": {"embedding": [1.0, 0.0]}},
                                                     {"doc_id": "b", "metadata": {"embedding": [0.6, 0.8]}}]}},
        {"example": {}, "prediction": {"response": "a dog ran in the park", "duration_ms": 340.0,
                                       "usage": {"prompt_tokens": 3, "completion_tokens": 5},
                                       "retrieved": [{"doc_id": "a", "metadata": {"embedding": [0.0, 1.0]}},
                                                     {"doc_id": "c", "metadata": {"embedding": [1.0, 1.0]}}]}},
        {"example": {}, "prediction": {"response": "the cat ran", "duration_ms": 90.0,
                                       "usage": {"prompt_tokens": 2, "completion_tokens": 2}}},
    ]
    params = {"system/cost_efficiency": {"score_value": 1.0}}
    bad_inputs = [{"example": {}, "prediction": {"duration_ms": "fast", "retrieved": "a", "response": 3,
                                                 "usage": "many"}}]
