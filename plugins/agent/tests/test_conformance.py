"""The evalcore conformance kit applied to every agent metric."""

from evalcore.testkit import PluginConformance

EXPECTED = [{"name": "search", "arguments": {"q": "paris", "page": 2}}, {"name": "fetch", "arguments": {"url": "a"}}]


class TestConformance(PluginConformance):
    namespace = "agent"
    package = "evalcore_agent"
    examples = [
        {"example": {"expected_tool_calls": EXPECTED},
         "prediction": {"tool_calls": [{"name": "search", "arguments": {"q": "paris", "page": 2}},
                                       {"name": "fetch", "arguments": {"url": "a"}, "result": "ok"}]}},
        {"example": {"expected_tool_calls": EXPECTED},
         "prediction": {"turns": [{"role": "user", "content": "find it"},
                                  {"role": "assistant", "content": "", "tool_calls": [
                                      {"name": "fetch", "arguments": {"url": "b"}},
                                      {"name": "search", "arguments": {"q": "paris"}}]},
                                  {"role": "tool", "content": "..."},
                                  {"role": "assistant", "content": "done"}]}},
        {"example": {"expected_tool_calls": []}, "prediction": {"response": "no tool needed"}},
    ]
    bad_inputs = [
        {"example": {}, "prediction": {"tool_calls": []}},
        {"example": {"expected_tool_calls": EXPECTED}, "prediction": {"tool_calls": "search"}},
        {"example": {"expected_tool_calls": EXPECTED}, "prediction": {"tool_calls": [{"arguments": {}}]}},
        {"example": {"expected_tool_calls": EXPECTED}, "prediction": {"tool_calls": [{"name": "search",
                                                                                      "arguments": "q=paris"}]}},
        {"example": {"expected_tool_calls": EXPECTED}, "prediction": {"turns": [{"role": "assistant",
                                                                                 "tool_calls": {"name": "x"}}]}},
        {"example": {"expected_tool_calls": {"name": "search"}}, "prediction": {"tool_calls": []}},
    ]
    accepts_bad_inputs = {"agent/no_loop": "needs no expected calls, so the first bad input is a good one for it; "
                                           "its bad inputs are in test_strict_and_loops.py"}
