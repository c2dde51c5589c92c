"""Argument correctness and tool selection against DeepEval's ArgumentCorrectnessMetric and the
tool selection score of its ToolCorrectnessMetric (``available_tools``).

DeepEval (its own OpenAI model class) and evalcore call one scripted OpenAI-compatible server on
127.0.0.1 that answers the same for the same texts:

* argument verdicts: per call, yes when every string argument value occurs in the input
  (case-folded), no otherwise and for a call without arguments;
* tool selection: the share of calls whose tool's description shares a word with the input,
  rounded to 2 decimals (0 without calls).
"""

from __future__ import annotations

import json
import re

import evalcore
import pytest
from chat_messages import after_last, message_text
from evalcore.testing import Reply, run_evalcore, write_records
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scripted_judge import never_called, oracle_fixture, schema_name

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

USAGE = {"prompt_tokens": 10, "completion_tokens": 5}


def words(text):
    return set(re.findall(r"\w+", text.lower()))


def argument_verdict(task, arguments):
    values = [v for v in arguments.values() if isinstance(v, str)]
    ok = bool(arguments) and all(v.lower() in task.lower() for v in values)
    return {"reason": "" if ok else "not in the input", "verdict": "yes" if ok else "no"}


def selection(task, tools, called):
    if not called:
        return 0.0
    described = {t["name"]: t.get("description") or "" for t in tools}
    return round(sum(bool(words(described.get(name, "")) & words(task)) for name in called) / len(called), 2)


def deepeval_arguments(listed):
    """The input_parameters of each ToolCall(...) DeepEval writes into its prompt."""
    out = []
    for chunk in listed.split("ToolCall(")[1:]:
        start = chunk.find("input_parameters=")
        out.append({} if start < 0 else json.JSONDecoder().raw_decode(chunk, chunk.index("{", start))[0])
    return out


def oracle(request):
    text = "\n".join(message_text(m) for m in request["messages"])
    schema = schema_name(request)
    if "ALL AVAILABLE TOOLS:" in text:  # DeepEval's tool selection
        task = after_last(text, "USER INPUT:\n", "\n\nALL AVAILABLE TOOLS:")
        tools = json.loads(after_last(text, "ALL AVAILABLE TOOLS:\n", "\n\nTOOL CALLS MADE BY AGENT:"))
        listed = after_last(text, "TOOL CALLS MADE BY AGENT:\n", "\n\nJSON:")
        called = [c["name"] for c in json.loads(listed)] if listed.strip() else []
        return Reply.chat(json.dumps({"score": selection(task, tools, called), "reason": "oracle"}), usage=USAGE)
    if schema == "tool_selection":
        task = after_last(text, "User input:\n", "\n\nAll available tools:")
        tools = json.loads(after_last(text, "All available tools:\n", "\n\nTool calls made by the agent:"))
        called = [c["name"] for c in json.loads(after_last(text, "Tool calls made by the agent:\n",
                                                           "\n\nScore the tool selection."))]
        return Reply.chat(json.dumps({"score": selection(task, tools, called), "reason": "oracle"}), usage=USAGE)
    if schema == "argument_verdicts":
        task = after_last(text, "Input:\n", "\n\nTool calls:")
        arguments = [c.get("arguments") or {} for c in json.loads(after_last(text, "Tool calls:\n",
                                                                              "\n\nGive a verdict"))]
    else:  # DeepEval's argument verdicts
        task = after_last(text, "Input:\n", "\n\nTool Calls:")
        arguments = deepeval_arguments(after_last(text, "Tool Calls:\n", "\n\nJSON:"))
    return Reply.chat(json.dumps({"verdicts": [argument_verdict(task, a) for a in arguments]}), usage=USAGE)


oracle_server = oracle_fixture(oracle)


def deepeval_case(query, calls):
    from deepeval.test_case import LLMTestCase, ToolCall

    made = [ToolCall(name=c["name"], input_parameters=c.get("arguments")) for c in calls]
    expected = [ToolCall(name=name) for name in dict.fromkeys(c["name"] for c in calls)]
    return LLMTestCase(input=query, actual_output="done", tools_called=made, expected_tools=expected)


def deepeval_model(server):
    pytest.importorskip("deepeval")
    from deepeval.models import GPTModel

    return GPTModel(model="gpt-4.1", base_url=server.base_url, api_key="scripted")


def deepeval_arguments_score(server, query, calls):
    from deepeval.metrics import ArgumentCorrectnessMetric

    metric = ArgumentCorrectnessMetric(model=deepeval_model(server), include_reason=False, async_mode=False)
    return metric.measure(deepeval_case(query, calls), _show_indicator=False)


def deepeval_selection_score(server, query, calls, tools):
    """DeepEval's ToolCorrectnessMetric with available_tools, the expected tools being the tools
    called, each once (DeepEval pairs a repeated call once): its deterministic score is 1, so its
    score is the tool selection score."""
    from deepeval.metrics import ToolCorrectnessMetric
    from deepeval.test_case import ToolCall

    available = [ToolCall(name=t["name"], description=t.get("description")) for t in tools]
    metric = ToolCorrectnessMetric(model=deepeval_model(server), include_reason=False, async_mode=False,
                                   available_tools=available)
    return metric.measure(deepeval_case(query, calls), _show_indicator=False)


def evalcore_score(server, metric_id, query, calls, tools=None, in_turns=False):
    metric = evalcore.get_metric(metric_id, base_url=server.base_url, model="m", cache_mode="off")
    example = {"query": query, **({"available_tools": tools} if tools is not None else {})}
    if in_turns:
        prediction = {"turns": [{"role": "user", "content": query},
                                {"role": "assistant", "content": "", "tool_calls": calls},
                                {"role": "assistant", "content": "done"}]}
    else:
        prediction = {"tool_calls": calls, "response": "done"}
    return metric.score_one(example, prediction)


TOOLS = [{"name": "weather", "description": "forecast for a city"}, {"name": "movies", "description": "film picks"},
         {"name": "flights", "description": "book a flight to a city"}]
CASES = {
    "all right": ("forecast for Paris", [{"name": "weather", "arguments": {"city": "Paris"}}]),
    "one of two": ("forecast for Paris", [{"name": "weather", "arguments": {"city": "Paris"}},
                                          {"name": "movies", "arguments": {"genre": "comedy"}}]),
    "no arguments": ("book a flight to Oslo", [{"name": "flights", "arguments": {}},
                                               {"name": "flights", "arguments": {"to": "Oslo"}}]),
    "no calls": ("forecast for Paris", []),
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("in_turns", [False, True], ids=["tool_calls", "turns"])
def test_argument_correctness_same_number_as_deepeval(oracle_server, case, in_turns):
    query, calls = CASES[case]
    before = len(oracle_server.requests)
    theirs = deepeval_arguments_score(oracle_server, query, calls)
    their_calls = len(oracle_server.requests) - before
    before = len(oracle_server.requests)
    ours = evalcore_score(oracle_server, "judge/argument_correctness", query, calls, in_turns=in_turns)
    assert ours.status == "ok", ours
    assert ours.value == theirs
    assert len(oracle_server.requests) - before == their_calls == (1 if calls else 0)


@pytest.mark.parametrize("case", list(CASES))
def test_tool_selection_same_number_as_deepeval(oracle_server, case):
    query, calls = CASES[case]
    before = len(oracle_server.requests)
    theirs = deepeval_selection_score(oracle_server, query, calls, TOOLS)
    assert len(oracle_server.requests) - before == 1
    ours = evalcore_score(oracle_server, "judge/tool_selection", query, calls, TOOLS)
    assert ours.status == "ok", ours
    assert ours.value == theirs


def test_hand_worked_values(oracle_server):
    """'one of two': 'Paris' is in the input, 'comedy' is not: 1/2. 'no arguments': the first call
    has none (no), the second's 'Oslo' is in the input: 1/2. Tool selection of 'one of two':
    'forecast for a city' shares 'forecast' and 'for' with the input, 'film picks' nothing: 0.5."""
    assert evalcore_score(oracle_server, "judge/argument_correctness", *CASES["one of two"]).value == 0.5
    score = evalcore_score(oracle_server, "judge/argument_correctness", *CASES["no arguments"])
    assert score.value == 0.5 and score.feedback == "- call 0: not in the input"
    assert evalcore_score(oracle_server, "judge/tool_selection", *CASES["one of two"], TOOLS).value == 0.5


def test_deepevals_tool_correctness_is_the_lower_of_the_two_metrics(oracle_server):
    """Expected tools other than those called: DeepEval reports min(deterministic, selection)."""
    pytest.importorskip("deepeval")
    from deepeval.metrics import ToolCorrectnessMetric
    from deepeval.test_case import LLMTestCase, ToolCall

    query, calls = CASES["all right"]
    expected = [{"name": "weather"}, {"name": "flights"}]
    if "agent/tool_call_correctness" not in evalcore.metric_keys():
        pytest.skip("evalcore-agent is not installed")
    available = [ToolCall(name=t["name"], description=t["description"]) for t in TOOLS]
    metric = ToolCorrectnessMetric(model=deepeval_model(oracle_server), include_reason=False, async_mode=False,
                                   available_tools=available)
    theirs = metric.measure(LLMTestCase(input=query, actual_output="done", tools_called=[
        ToolCall(name=c["name"], input_parameters=c["arguments"]) for c in calls],
        expected_tools=[ToolCall(name=c["name"]) for c in expected]), _show_indicator=False)
    selected = evalcore_score(oracle_server, "judge/tool_selection", query, calls, TOOLS).value
    deterministic = evalcore.get_metric("agent/tool_call_correctness").score_one(
        {"expected_tool_calls": expected}, {"tool_calls": calls}).value
    assert (selected, deterministic) == (1.0, 0.5)
    assert theirs == min(selected, deterministic)


ARG = st.sampled_from(["Paris", "Oslo", "comedy", "x"])


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(["weather", "movies", "flights"]),
                          st.dictionaries(st.sampled_from(["city", "genre"]), ARG, max_size=2)), max_size=3),
       st.sampled_from(["forecast for Paris", "a film", "book a flight to Oslo"]))
def test_generated_cases_same_number_as_deepeval(oracle_server, made, query):
    calls = [{"name": name, "arguments": arguments} for name, arguments in made]
    assert evalcore_score(oracle_server, "judge/argument_correctness", query, calls).value == \
        deepeval_arguments_score(oracle_server, query, calls)
    assert evalcore_score(oracle_server, "judge/tool_selection", query, calls, TOOLS).value == \
        deepeval_selection_score(oracle_server, query, calls, TOOLS)


@pytest.mark.parametrize(("metric_id", "example", "status", "message"), [
    ("judge/argument_correctness", {}, "skipped", "example.query is missing"),
    ("judge/tool_selection", {"query": "q"}, "skipped", "example.available_tools is missing"),
    ("judge/tool_selection", {"query": "q", "available_tools": []}, "error", "example.available_tools"),
    ("judge/tool_selection", {"query": "q", "available_tools": [{"description": "x"}]}, "error",
     "example.available_tools"),
])
def test_inputs_are_read_before_any_call(metric_id, example, status, message):
    score = evalcore.get_metric(metric_id, judge=never_called, cache_mode="off") \
        .score_one(example, {"tool_calls": [{"name": "weather", "arguments": {}}]})
    assert score.status == status
    assert message in (score.reason or score.error_message)


def test_cli_same_number_as_deepeval(oracle_server, tmp_path):
    records = [{"id": case, "example": {"query": query, "available_tools": TOOLS},
                "prediction": {"tool_calls": calls, "response": "done"}} for case, (query, calls) in CASES.items()]
    path = write_records(tmp_path / "records.jsonl", records)
    run_evalcore("evaluate", str(path), "-m", "judge/argument_correctness", "-m", "judge/tool_selection",
                 "--judge-base-url", oracle_server.base_url, "--judge-model", "m", "--cache-dir",
                 str(tmp_path / "cache"), "--json", "--samples", str(tmp_path / "rows.jsonl"))
    rows = {row["id"]: row["scores"] for row in map(json.loads, (tmp_path / "rows.jsonl").read_text().splitlines())
            if "scores" in row}
    for case, (query, calls) in CASES.items():
        assert rows[case]["judge/argument_correctness"]["value"] == \
            deepeval_arguments_score(oracle_server, query, calls)
        assert rows[case]["judge/tool_selection"]["value"] == \
            deepeval_selection_score(oracle_server, query, calls, TOOLS)


def test_without_a_query_the_first_user_turn_is_the_input():
    seen = []

    def judge(prompt, metadata):
        seen.append(prompt if isinstance(prompt, str) else json.dumps(prompt))
        return json.dumps({"verdicts": [{"reason": "", "verdict": "yes"}]})

    turns = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "forecast for Oslo"},
             {"role": "assistant", "content": "", "tool_calls": [{"name": "weather", "arguments": {"city": "Oslo"}}]}]
    score = evalcore.get_metric("judge/argument_correctness", judge=judge, cache_mode="off") \
        .score_one({}, {"turns": turns})
    assert score.value == 1.0
    assert "Input:\nforecast for Oslo\n\nTool calls:\n" in seen[0]
