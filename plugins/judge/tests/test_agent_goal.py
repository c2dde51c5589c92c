"""Agent goal accuracy against ragas' AgentGoalAccuracyWithReference / WithoutReference.

ragas (its LangChain OpenAI wrapper, a MultiTurnSample of Human, AI with tool calls, and Tool
messages) and evalcore call one scripted OpenAI-compatible server on 127.0.0.1 that answers the
same for the same texts:

* goal and end state: the goal is the first ``Human:`` line of the run; the end state the last
  ``AI:`` line (``(none)`` without one), then ``[tools: ...]`` with the names of the tools called;
* verdict: 1 when every word of the desired outcome is in the achieved outcome, else 0.
"""

from __future__ import annotations

import asyncio
import json
import re

import evalcore
import pytest
import scripted_judge as scripted
from chat_messages import after_last, message_text
from evalcore.testing import Reply, import_ragas
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

USAGE = {"prompt_tokens": 10, "completion_tokens": 5}


def words(text):
    return set(re.findall(r"\w+", text.lower()))


def goal_and_end_state(workflow):
    lines = workflow.splitlines()
    goal = next((line[len("Human: "):] for line in lines if line.startswith("Human: ")), "")
    said = [line[len("AI: "):] for line in lines if line.startswith("AI: ")]
    tools = [line.strip().split(":")[0] for line in lines if line.startswith("  ")]
    return goal, f"{said[-1] if said else '(none)'} [tools: {', '.join(tools)}]"


def oracle(request):
    text = "\n".join(message_text(m) for m in request["messages"])
    schema = scripted.schema_name(request)
    if schema is None:  # ragas: its input JSON follows its last 'input:'
        data = scripted.ragas_input(text)
        if "workflow" in data:
            goal, end_state = goal_and_end_state(data["workflow"])
            return Reply.chat(json.dumps({"user_goal": goal, "end_state": end_state}), usage=USAGE)
        desired, achieved, verdict = data["desired_outcome"], data["arrived_outcome"], None
    elif schema == "goal_outcome":
        goal, end_state = goal_and_end_state(after_last(text, "Workflow:\n", "\n\nIdentify the user goal"))
        return Reply.chat(json.dumps({"user_goal": goal, "end_state": end_state}), usage=USAGE)
    else:
        desired = after_last(text, "Desired outcome:\n", "\n\nAchieved outcome:")
        achieved = after_last(text, "Achieved outcome:\n", "\n\nAre they the same?")
    verdict = int(words(desired) <= words(achieved))
    return Reply.chat(json.dumps({"reason": "oracle", "verdict": str(verdict) if schema is None else verdict}),
                      usage=USAGE)


oracle_server = scripted.oracle_fixture(oracle)


def ragas_score(server, turns, reference=None):
    import_ragas()
    from ragas.dataset_schema import MultiTurnSample
    from ragas.metrics import AgentGoalAccuracyWithoutReference, AgentGoalAccuracyWithReference

    messages = scripted.ragas_messages(turns)
    llm = scripted.ragas_llm(server)
    metric = (AgentGoalAccuracyWithReference(llm=llm) if reference is not None
              else AgentGoalAccuracyWithoutReference(llm=llm))
    return asyncio.run(metric.multi_turn_ascore(MultiTurnSample(user_input=messages, reference=reference)))


def evalcore_score(server, turns, reference=None):
    metric = evalcore.get_metric("judge/agent_goal_accuracy", base_url=server.base_url, model="m", cache_mode="off",
                                 reference="none" if reference is None else "answer")
    example = {} if reference is None else {"reference_answer": reference}
    return metric.score_one(example, {"turns": turns})


def booking(city, said):
    return [{"role": "user", "content": f"book a table in {city}"},
            {"role": "assistant", "content": "Looking.", "tool_calls": [
                {"name": "restaurant_search", "arguments": {"city": city}}]},
            {"role": "tool", "content": "Found Golden Dragon."},
            {"role": "assistant", "content": "", "tool_calls": [{"name": "book", "arguments": {"name": "GD"}}]},
            {"role": "tool", "content": "booked"},
            {"role": "assistant", "content": said}]


CASES = {
    "achieved": (booking("Oslo", "I booked a table in Oslo."), "table booked in Oslo"),
    "not achieved": (booking("Rome", "Sorry, nothing free."), "table booked in Rome"),
    "no answer": (booking("Oslo", "")[:-1], "book"),
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("with_reference", [True, False], ids=["reference", "no-reference"])
def test_same_number_as_ragas(oracle_server, case, with_reference):
    turns, reference = CASES[case]
    reference = reference if with_reference else None
    before = len(oracle_server.requests)
    theirs = ragas_score(oracle_server, turns, reference)
    assert len(oracle_server.requests) - before == 2
    before = len(oracle_server.requests)
    ours = evalcore_score(oracle_server, turns, reference)
    assert len(oracle_server.requests) - before == 2
    assert ours.status == "ok", ours
    assert ours.value == theirs


def test_hand_worked_values(oracle_server):
    """By the oracle's rules: the end state of 'achieved' is 'I booked a table in Oslo. [tools:
    restaurant_search, book]', which holds every word of the reference 'table booked in Oslo': 1;
    without a reference the goal 'book a table in Oslo' ('book' from the tools): 1. The end state
    of 'not achieved', 'Sorry, nothing free. [tools: restaurant_search, book]', lacks 'table': 0."""
    turns, reference = CASES["achieved"]
    score = evalcore_score(oracle_server, turns, reference)
    assert score.value == 1.0
    assert score.details["end_state"] == "I booked a table in Oslo. [tools: restaurant_search, book]"
    assert score.details["desired_outcome"] == reference
    assert evalcore_score(oracle_server, turns).value == 1.0
    assert evalcore_score(oracle_server, *CASES["not achieved"]).value == 0.0


WORD = st.sampled_from(["book", "table", "Oslo", "done", "a"])


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(st.lists(WORD, min_size=1, max_size=3), st.lists(WORD, max_size=4), st.booleans())
def test_generated_runs_same_number_as_ragas(oracle_server, goal, said, with_reference):
    turns = booking("Oslo", " ".join(said))
    turns[0]["content"] = " ".join(goal)
    reference = " ".join(reversed(goal)) if with_reference else None
    assert evalcore_score(oracle_server, turns, reference).value == ragas_score(oracle_server, turns, reference)


@pytest.mark.parametrize(("example", "prediction", "reason"), [
    ({}, {"turns": [{"role": "user", "content": "hi"}]}, "reference_answer"),
    ({"reference_answer": "done"}, {"response": "x"}, "query"),
    ({"query": "do it", "reference_answer": "done"}, {"response": " "}, "no turns, no response"),
])
def test_nothing_to_judge_skips_without_calls(example, prediction, reason):
    score = evalcore.get_metric("judge/agent_goal_accuracy", judge=scripted.never_called, cache_mode="off") \
        .score_one(example, prediction)
    assert score.status == "skipped" and reason in score.reason


def test_a_bad_turn_is_an_error_naming_it():
    score = evalcore.get_metric("judge/agent_goal_accuracy", judge=scripted.never_called, cache_mode="off",
                                reference="none").score_one({}, {"turns": [{"role": "user", "content": "q"}, "x"]})
    assert score.status == "error" and "prediction.turns[1]" in score.error_message


def test_query_calls_and_response_read_as_a_run():
    seen = []

    def judge(prompt, metadata):
        seen.append(prompt if isinstance(prompt, str) else json.dumps(prompt))
        if metadata["role"] == "goal_outcome":
            return json.dumps({"user_goal": "book", "end_state": "booked"})
        return json.dumps({"reason": "same", "verdict": 1})

    score = evalcore.get_metric("judge/agent_goal_accuracy", judge=judge, cache_mode="off", reference="none") \
        .score_one({"query": "Book SK1."}, {"tool_calls": [{"name": "book", "arguments": {"flight": "SK1"}, "result":
                                                           "ok"}], "response": "Booked."})
    assert score.value == 1.0 and score.feedback == "same"
    assert "Human: Book SK1.\nTools:\n  book: {'flight': 'SK1'}\nToolOutput: ok\nAI: Booked." in seen[0]


def test_cli_same_number_as_ragas(oracle_server, tmp_path):
    records = [{"id": case, "example": {"reference_answer": reference}, "prediction": {"turns": turns}}
               for case, (turns, reference) in CASES.items()]
    rows = scripted.evaluate_scores(oracle_server, records, "judge/agent_goal_accuracy", tmp_path)
    for case, (turns, reference) in CASES.items():
        assert rows[case]["judge/agent_goal_accuracy"]["value"] == ragas_score(oracle_server, turns, reference)


@pytest.mark.parametrize(("turn", "field"), [
    ({"role": "assistant", "content": "", "tool_calls": [{"arguments": {}}]}, "prediction.turns[1].tool_calls[0]"),
    ({"role": "assistant", "content": "", "tool_calls": [{"name": "book", "arguments": "SK1"}]},
     "prediction.turns[1].tool_calls[0].arguments"),
    ({"role": "assistant", "content": "", "tool_calls": {"name": "book"}}, "prediction.turns[1].tool_calls"),
])
def test_a_bad_call_is_an_error_naming_it(turn, field):
    score = evalcore.get_metric("judge/agent_goal_accuracy", judge=scripted.never_called, cache_mode="off",
                                reference="none").score_one({}, {"turns": [{"role": "user", "content": "q"}, turn]})
    assert score.status == "error" and field in score.error_message and "\n" not in score.error_message
