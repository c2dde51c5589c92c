"""Task completion against DeepEval's TaskCompletionMetric.

DeepEval (its own OpenAI model class, a test case with input, actual_output and tools_called) and
evalcore call one scripted OpenAI-compatible server on 127.0.0.1 that answers the same for the
same texts:

* task and outcome: the task is the input; the outcome the response, then ``[tools: ...]`` with
  the names of the tools called;
* verdict: the share of the task's words found in the outcome, rounded to 2 decimals.
"""

from __future__ import annotations

import json
import re

import evalcore
import pytest
from chat_messages import after_last, message_text
from evalcore.testing import Reply, ScriptedServer, run_evalcore, write_records
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

USAGE = {"prompt_tokens": 10, "completion_tokens": 5}


def words(text):
    return set(re.findall(r"\w+", text.lower()))


def coverage(task, outcome):
    return round(len(words(task) & words(outcome)) / len(words(task)), 2) if words(task) else 1.0


def oracle(request):
    text = "\n".join(message_text(m) for m in request["messages"])
    if "Task:\n" in text and "Actual outcome:\n" in text:
        end = "\n\nJSON:" if text.rstrip().endswith("JSON:") else "\n\nHow well"
        task, outcome = after_last(text, "Task:\n", "\n\nActual outcome:"), after_last(text, "Actual outcome:\n", end)
        return Reply.chat(json.dumps({"reason": "oracle", "verdict": coverage(task, outcome)}), usage=USAGE)
    if text.rstrip().endswith("JSON:"):  # DeepEval's extraction
        query = after_last(text, "input: ", "\ntools called:")
        tools = after_last(text, "tools called:\n", "\nresponse: ")
        response = after_last(text, "response: ", "\n\nJSON:")
    else:
        query = after_last(text, "Input:\n", "\n\nTools called:")
        tools = after_last(text, "Tools called:\n", "\n\nResponse:")
        response = after_last(text, "Response:\n", "\n\nIdentify the task")
    names = re.findall(r'"name": "(\w+)"', tools)
    outcome = f"{response} [tools: {', '.join(names)}]"
    return Reply.chat(json.dumps({"task": query, "outcome": outcome}), usage=USAGE)


@pytest.fixture(scope="module")
def oracle_server():
    with ScriptedServer(oracle, max_requests=100_000) as server:
        yield server


def deepeval_score(server, query, response, calls, task=None):
    pytest.importorskip("deepeval")
    from deepeval.metrics import TaskCompletionMetric
    from deepeval.models import GPTModel
    from deepeval.test_case import LLMTestCase, ToolCall

    model = GPTModel(model="gpt-4.1", base_url=server.base_url, api_key="scripted")
    metric = TaskCompletionMetric(model=model, task=task, include_reason=False, async_mode=False)
    tools = [ToolCall(name=c["name"], input_parameters=c.get("arguments")) for c in calls] or None
    return metric.measure(LLMTestCase(input=query, actual_output=response, tools_called=tools))


def evalcore_score(server, query, response, calls, **params):
    metric = evalcore.get_metric("judge/task_completion", base_url=server.base_url, model="m", cache_mode="off",
                                 **params)
    return metric.score_one({"query": query}, {"response": response, "tool_calls": calls})


CASES = {
    "done with tools": ("book a flight to Oslo", "Booked flight SK1 to Oslo.",
                        [{"name": "flight_search", "arguments": {"to": "Oslo"}}, {"name": "book", "arguments": {}}]),
    "half done": ("find a hotel and a car in Rome", "Found Hotel Roma.", [{"name": "hotel_search", "arguments": {}}]),
    "no tools": ("say hello", "Hello!", []),
    "nothing done": ("translate the memo", "Sorry.", []),
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("task", [None, "book the trip"])
def test_same_number_as_deepeval(oracle_server, case, task):
    query, response, calls = CASES[case]
    before = len(oracle_server.requests)
    theirs = deepeval_score(oracle_server, query, response, calls, task=task)
    assert len(oracle_server.requests) - before == 2
    before = len(oracle_server.requests)
    ours = evalcore_score(oracle_server, query, response, calls, task=task)
    assert len(oracle_server.requests) - before == 2
    assert ours.value == theirs
    assert ours.details["task"] == (task or query)


def test_hand_worked_values(oracle_server):
    """By hand from the oracle's rules: of 'say hello', 'hello' is in 'Hello! [tools: ]': 1/2; 'find a
    hotel and a car in Rome' has 7 distinct words, of which 'hotel' is in the outcome: 1/7 = 0.14."""
    assert evalcore_score(oracle_server, *CASES["no tools"]).value == 0.5
    assert evalcore_score(oracle_server, *CASES["half done"]).value == 0.14


WORD = st.sampled_from(["book", "flight", "hotel", "Oslo", "car", "done"])


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(st.lists(WORD, min_size=1, max_size=4), st.lists(WORD, max_size=4),
       st.lists(st.sampled_from(["flight_search", "book"]), max_size=2))
def test_generated_cases_same_number_as_deepeval(oracle_server, query, response, tools):
    query, response = " ".join(query), " ".join(response) + "."
    calls = [{"name": name, "arguments": {}} for name in tools]
    assert evalcore_score(oracle_server, query, response, calls).value == \
        deepeval_score(oracle_server, query, response, calls)


# -- with a callable judge -----------------------------------------------------------------------------


def scripted_judge(verdict, seen):
    def judge(prompt, metadata):
        seen.append((metadata["role"], prompt if isinstance(prompt, str) else json.dumps(prompt)))
        if metadata["role"] == "task_outcome":
            return json.dumps({"task": "book a flight", "outcome": "a flight was booked"})
        return json.dumps({"reason": "booked", "verdict": verdict})
    return judge


def test_turns_are_the_trace():
    """With turns the judge reads them as the trace, tool calls and tool turns included."""
    seen = []
    turns = [{"role": "user", "content": "Book a flight."},
             {"role": "assistant", "content": "", "tool_calls": [{"name": "book", "arguments": {"to": "Oslo"}}]},
             {"role": "tool", "content": "booked SK1"}, {"role": "assistant", "content": "Booked SK1."}]
    score = evalcore.get_metric("judge/task_completion", judge=scripted_judge(0.9, seen), cache_mode="off") \
        .score_one({}, {"turns": turns})
    assert score.value == 0.9 and score.feedback == "booked"
    assert [role for role, _ in seen] == ["task_outcome", "verdict"]
    assert "booked SK1" in seen[0][1] and '"to": "Oslo"' in seen[0][1]


def never_called(prompt, metadata):
    raise AssertionError("no call expected")


@pytest.mark.parametrize(("example", "prediction", "reason"), [
    ({}, {"response": "x"}, "query"),
    ({"query": "do it"}, {"response": " "}, "no turns, no response and no tool calls"),
    ({"query": "do it"}, {"response": " ", "tool_calls": []}, "no turns, no response and no tool calls"),
])
def test_nothing_to_judge_skips_without_calls(example, prediction, reason):
    score = evalcore.get_metric("judge/task_completion", judge=never_called, cache_mode="off") \
        .score_one(example, prediction)
    assert score.status == "skipped" and reason in score.reason


def test_a_verdict_outside_0_1_is_an_error_not_a_value():
    score = evalcore.get_metric("judge/task_completion", judge=scripted_judge(1.5, []), cache_mode="off") \
        .score_one({"query": "book"}, {"response": "booked"})
    assert score.status == "error" and score.value is None


def test_estimate_is_two_calls():
    metric = evalcore.get_metric("judge/task_completion", judge=never_called, cache_mode="off")
    assert metric.estimate({"query": "book"}, {"response": "booked"})["calls"] == 2


def test_cli_same_number_as_deepeval(oracle_server, tmp_path):
    records = [{"id": case, "example": {"query": query}, "prediction": {"response": response, "tool_calls": calls}}
               for case, (query, response, calls) in CASES.items()]
    path = write_records(tmp_path / "records.jsonl", records)
    run_evalcore("evaluate", str(path), "-m", "judge/task_completion", "--judge-base-url", oracle_server.base_url,
                 "--judge-model", "m", "--cache-dir", str(tmp_path / "cache"), "--json",
                 "--samples", str(tmp_path / "rows.jsonl"))
    rows = {row["id"]: row["scores"] for row in map(json.loads, (tmp_path / "rows.jsonl").read_text().splitlines())
            if "scores" in row}
    for case, (query, response, calls) in CASES.items():
        assert rows[case]["judge/task_completion"]["value"] == deepeval_score(oracle_server, query, response, calls)
