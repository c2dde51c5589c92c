"""Conversation goal accuracy against DeepEval's GoalAccuracyMetric.

DeepEval (its own OpenAI model class, a ConversationalTestCase) and evalcore ask one scripted
OpenAI-compatible server on 127.0.0.1, which reads the user task and the agent steps of each prompt
(tool calls left out) and answers the same for the same interaction:

* goal score: the share of the task's words (after "User messages:") found in the steps,
  rounded to 2 decimals;
* plan score: 1 / the number of assistant messages in the steps, rounded to 2 decimals.

DeepEval then asks for a final reason in plain text, which the server answers as text.
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
from scripted_judge import oracle_fixture, schema_name

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
USAGE = {"prompt_tokens": 10, "completion_tokens": 5}


def words(text):
    return set(re.findall(r"\w+", text.lower()))


def oracle(request):
    text = "\n".join(message_text(m) for m in request["messages"])
    schema = schema_name(request)
    if schema is None:
        return Reply.chat("final reason", usage=USAGE)
    if schema in ("GoalScore", "PlanScore"):
        task, steps = after_last(text, "USER TASK:\n", "\n\nAGENT STEPS:"), after_last(text, "AGENT STEPS:\n",
                                                                                   "\n\nJSON:")
    else:
        task, steps = after_last(text, "User task:\n", "\n\nAgent steps:"), after_last(text, "Agent steps:\n",
                                                                                   "\n\nScore the")
    said = re.sub(r"Tools called: \n\[.*?\n\] \n", "", steps, flags=re.S)
    if schema in ("GoalScore", "goal_score"):
        wanted = words(task.removeprefix("User messages: \n"))
        score = round(len(wanted & words(said)) / len(wanted), 2) if wanted else 1.0
    else:
        score = round(1 / steps.count("Assistant messages:"), 2)
    return Reply.chat(json.dumps({"score": score, "reason": "oracle"}), usage=USAGE)


oracle_server = oracle_fixture(oracle)


def deepeval_score(server, turns):
    pytest.importorskip("deepeval")
    from deepeval.metrics import GoalAccuracyMetric
    from deepeval.models import GPTModel
    from deepeval.test_case import ConversationalTestCase, ToolCall, Turn

    model = GPTModel(model="gpt-4.1", base_url=server.base_url, api_key="scripted")
    case = ConversationalTestCase(turns=[Turn(role=t["role"], content=t["content"], tools_called=[
        ToolCall(name=c["name"], input_parameters=c["arguments"]) for c in t.get("tool_calls", [])] or None)
        for t in turns])
    return GoalAccuracyMetric(model=model, async_mode=False).measure(case, _show_indicator=False)


def evalcore_score(server, turns):
    metric = evalcore.get_metric("judge/conversation_goal_accuracy", base_url=server.base_url, model="m",
                                 cache_mode="off")
    return metric.score_one({}, {"turns": turns})


def user(text):
    return {"role": "user", "content": text}


def assistant(text, *calls):
    return {"role": "assistant", "content": text,
            **({"tool_calls": [{"name": name, "arguments": {"q": text}} for name in calls]} if calls else {})}


CASES = {
    "one interaction": [user("book a flight to Oslo"), assistant("searching flights", "search"),
                        assistant("booked a flight to Oslo")],
    "two interactions": [user("book a flight to Oslo"), assistant("booked a flight to Oslo"),
                         user("and a hotel"), user("near the station"), assistant("a hotel is booked", "book")],
    "unanswered": [user("book a flight"), assistant("on it"), user("hello?")],
    "no interaction": [user("hi")],
}


@pytest.mark.parametrize("case", list(CASES))
def test_same_number_as_deepeval(oracle_server, case):
    turns = CASES[case]
    before = len(oracle_server.requests)
    theirs = deepeval_score(oracle_server, turns)
    their_calls = len(oracle_server.requests) - before
    before = len(oracle_server.requests)
    ours = evalcore_score(oracle_server, turns)
    assert ours.status == "ok", ours
    assert ours.value == theirs
    assert len(oracle_server.requests) - before == their_calls - 1  # DeepEval's final reason


def test_hand_worked_values(oracle_server):
    """'one interaction': the steps are 'searching flights' then 'searching flights booked a flight
    to Oslo', which hold every word of 'book a flight to Oslo' but 'book': 4/5 = 0.8; two assistant
    messages: plan 0.5; value (0.8 + 0.5) / 2 = 0.65. 'two interactions': the first 0.8 ('book' is
    missing again) and 1.0, the second (task 'and a hotel near the station', steps 'a hotel is
    booked') 2/6 = 0.33 and 1.0: value ((0.8 + 0.33) / 2 + 1) / 2 = 0.7825."""
    assert evalcore_score(oracle_server, CASES["one interaction"]).value == pytest.approx(0.65, abs=1e-12)
    score = evalcore_score(oracle_server, CASES["two interactions"])
    assert score.details["goal_scores"] == [0.8, 0.33] and score.details["plan_scores"] == [1.0, 1.0]
    assert score.value == pytest.approx(0.7825, abs=1e-12)
    assert evalcore_score(oracle_server, CASES["no interaction"]).value == 0.0


TEXT = st.sampled_from(["book a flight", "to Oslo", "hotel", "done"])


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(["user", "assistant"]), TEXT, st.booleans()), min_size=1, max_size=6))
def test_generated_conversations_same_number_as_deepeval(oracle_server, made):
    turns = [user(text) if role == "user" else assistant(text, *(["search"] if called else []))
             for role, text, called in made]
    assert evalcore_score(oracle_server, turns).value == deepeval_score(oracle_server, turns)


def test_cli_same_number_as_deepeval(oracle_server, tmp_path):
    records = [{"id": case, "example": {}, "prediction": {"turns": turns}} for case, turns in CASES.items()]
    path = write_records(tmp_path / "records.jsonl", records)
    run_evalcore("evaluate", str(path), "-m", "judge/conversation_goal_accuracy", "--judge-base-url",
                 oracle_server.base_url, "--judge-model", "m", "--cache-dir", str(tmp_path / "cache"), "--json",
                 "--samples", str(tmp_path / "rows.jsonl"))
    rows = {row["id"]: row["scores"] for row in map(json.loads, (tmp_path / "rows.jsonl").read_text().splitlines())
            if "scores" in row}
    for case, turns in CASES.items():
        assert rows[case]["judge/conversation_goal_accuracy"]["value"] == deepeval_score(oracle_server, turns)
