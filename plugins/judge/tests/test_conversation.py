"""Conversation metrics against DeepEval's KnowledgeRetentionMetric, RoleAdherenceMetric,
ConversationCompletenessMetric and TurnRelevancyMetric.

DeepEval (its own OpenAI model class, a ``ConversationalTestCase``) and evalcore call one scripted
OpenAI-compatible server on 127.0.0.1 that answers the same verdicts for the same texts:

* facts: each ``my NAME is VALUE`` in the latest user message;
* forgetting: an assistant message with the word ``forgot`` forgets (yes), any other keeps (no);
* out of character: the assistant messages with ``OOC``;
* intentions: the user messages with ``please``; one is satisfied when an assistant message holds
  the word before ``please``;
* relevance: the last assistant message of a window is irrelevant when it says ``irrelevant``.
"""

from __future__ import annotations

import ast
import json
import re

import evalcore
import pytest
from chat_messages import after_last, message_text
from evalcore.plugin import InputError
from evalcore.testing import Reply, ScriptedServer, run_evalcore, write_records
from evalcore_judge.conversation import sliding_windows, unit_interactions
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

USAGE = {"prompt_tokens": 10, "completion_tokens": 5}
METRICS = {"judge/knowledge_retention": "KnowledgeRetentionMetric", "judge/role_adherence": "RoleAdherenceMetric",
           "judge/conversation_completeness": "ConversationCompletenessMetric",
           "judge/conversation_relevancy": "TurnRelevancyMetric"}


def _turns(block):
    """A turn list as evalcore (JSON) or DeepEval (a Python list) writes it into the prompt."""
    return json.loads(block) if block.lstrip().startswith("[\n") else ast.literal_eval(block)


def facts(message):
    return dict(re.findall(r"my (\w+) is (\w+)", message))


def satisfied(intention, turns):
    word = intention.split("please")[0].split()[-1].rstrip(",.!?")
    return "yes" if any(word in t["content"] for t in turns if t["role"] == "assistant") else "no"


def oracle(request):
    text = "\n".join(message_text(m) for m in request["messages"])
    name = ((request.get("response_format") or {}).get("json_schema") or {}).get("name")
    if name in ("Knowledge", "user_knowledge"):
        found = facts(after_last(text, "Latest User Message:\n" if name == "Knowledge" else "Latest user message:\n",
                               "\n\n"))
        answer = {"data": found or None} if name == "Knowledge" else \
            {"facts": [{"name": k, "value": v} for k, v in found.items()]}
    elif name == "KnowledgeRetentionVerdict" or "forget or contradict it?" in text:
        message = after_last(text, "LLM message:\n" if name == "KnowledgeRetentionVerdict" else "AI message:\n", "\n\n")
        answer = {"verdict": "yes" if "forgot" in message else "no", "reason": "oracle"}
    elif name in ("OutOfCharacterResponseVerdicts", "out_of_character"):
        turns = _turns(after_last(text, "Messages:\n", "\n\n"))
        answer = {"verdicts": [{"index": i, "reason": "oracle"} for i, t in enumerate(turns)
                               if t["role"] == "assistant" and "OOC" in t["content"]]}
    elif name in ("UserIntentions", "user_intentions"):
        turns = _turns(after_last(text, "Turns:\n", "\n\n"))
        answer = {"intentions": [t["content"] for t in turns if t["role"] == "user" and "please" in t["content"]]}
    elif name == "ConversationCompletenessVerdict" or "Was the intention satisfied?" in text:
        turns = _turns(after_last(text, "Turns:\n", "\n\n"))
        intention = after_last(text, "User Intention:\n" if name == "ConversationCompletenessVerdict" else
                             "User intention:\n", "\n\n")
        answer = {"verdict": satisfied(intention, turns), "reason": "oracle"}
    elif name == "TurnRelevancyVerdict" or "Is the last assistant message relevant?" in text:
        turns = _turns(after_last(text, "Messages:\n", "\n\n"))
        last = [t for t in turns if t["role"] == "assistant"][-1]["content"]
        answer = {"verdict": "no" if "irrelevant" in last else "yes", "reason": "oracle"}
    else:
        raise AssertionError(f"unknown task {name}: {text[:200]}")
    return Reply.chat(json.dumps(answer), usage=USAGE)


@pytest.fixture(scope="module")
def oracle_server():
    with ScriptedServer(oracle, max_requests=100_000) as server:
        yield server


def deepeval_scores(server, turns, role="a polite librarian", window_size=10):
    deepeval = pytest.importorskip("deepeval")
    from deepeval.models import GPTModel
    from deepeval.test_case import ConversationalTestCase, Turn

    model = GPTModel(model="gpt-4.1", base_url=server.base_url, api_key="scripted")
    case = ConversationalTestCase(chatbot_role=role, turns=[Turn(role=t["role"], content=t["content"]) for t in turns])
    out = {}
    for metric_id, name in METRICS.items():
        options = {"window_size": window_size} if name == "TurnRelevancyMetric" else {}
        metric = getattr(deepeval.metrics, name)(model=model, include_reason=False, async_mode=False, **options)
        out[metric_id] = metric.measure(case)
    return out


def evalcore_scores(server, example, prediction, **params):
    out = {}
    for metric_id in METRICS:
        options = params if metric_id == "judge/conversation_relevancy" else {}
        metric = evalcore.get_metric(metric_id, base_url=server.base_url, model="m", cache_mode="off", **options)
        out[metric_id] = metric.score_one(example, prediction)
    return out


def u(content):
    return {"role": "user", "content": content}


def a(content):
    return {"role": "assistant", "content": content}


CONVERSATIONS = {
    "librarian": [u("Hi, my name is Ada and my city is Oslo."), a("Welcome Ada, how can I help?"),
                  u("Find a book on boats please."), a("Here is a book on boats."),
                  u("Also my pet is Rex."), a("Sorry, I forgot your name. OOC: whatever."),
                  u("Recommend a film please."), a("That is irrelevant, ask elsewhere.")],
    "all good": [u("my name is Bo. Help with tea please."), a("Bo, here is how to make tea."),
                 u("Thanks."), a("You are welcome, Bo.")],
    "no facts, no intentions": [u("Hello."), a("Hello! OOC"), u("Bye."), a("Bye.")],
    "assistant first": [a("How can I help?"), u("my car is red"), a("I forgot, what colour is it?")],
    "user only": [u("my dog is Max, please remember")],
}


@pytest.mark.parametrize("case", list(CONVERSATIONS))
def test_same_numbers_as_deepeval(oracle_server, case):
    turns = CONVERSATIONS[case]
    theirs = deepeval_scores(oracle_server, turns)
    ours = evalcore_scores(oracle_server, {"chatbot_role": "a polite librarian"}, {"turns": turns})
    assert {k: s.value for k, s in ours.items()} == theirs


def test_librarian_by_hand(oracle_server):
    """The librarian conversation, worked by hand from the oracle's rules."""
    ours = evalcore_scores(oracle_server, {"chatbot_role": "a librarian"}, {"turns": CONVERSATIONS["librarian"]})
    # facts from turns 0 (name, city) and 4 (pet); assistant turns 1, 3, 5, 7 all follow facts;
    # turn 5 says "forgot": 3 of 4 keep them
    assert ours["judge/knowledge_retention"].value == 3 / 4
    assert ours["judge/knowledge_retention"].details["facts"]["0"] == [{"name": "name", "value": "Ada"},
                                                                        {"name": "city", "value": "Oslo"}]
    assert ours["judge/role_adherence"].value == 3 / 4  # turn 5 is out of character
    # intentions "Find a book on boats please." (boats: in turn 3) and "Recommend a film please." (film: nowhere)
    assert ours["judge/conversation_completeness"].value == 1 / 2
    # four exchanges; the last reply says "irrelevant"
    assert ours["judge/conversation_relevancy"].value == 3 / 4
    assert ours["judge/conversation_relevancy"].details["total"] == 4


def test_window_size_same_as_deepeval(oracle_server):
    turns = CONVERSATIONS["librarian"]
    theirs = deepeval_scores(oracle_server, turns, window_size=2)["judge/conversation_relevancy"]
    ours = evalcore_scores(oracle_server, {"chatbot_role": "r"}, {"turns": turns}, window_size=2)
    assert ours["judge/conversation_relevancy"].value == theirs


USER = st.sampled_from(["my name is Ada.", "Find boats please.", "Hello.", "my city is Rome, film please.", "ok"])
ASSISTANT = st.sampled_from(["Sure, boats.", "I forgot.", "OOC rant", "irrelevant", "Ada from Rome, a film."])
TURN = st.one_of(USER.map(u), ASSISTANT.map(a))


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(st.lists(TURN, min_size=1, max_size=7), st.integers(1, 3))
def test_generated_conversations_same_numbers_as_deepeval(oracle_server, turns, window_size):
    theirs = deepeval_scores(oracle_server, turns, window_size=window_size)
    ours = evalcore_scores(oracle_server, {"chatbot_role": "r"}, {"turns": turns}, window_size=window_size)
    assert {k: s.value for k, s in ours.items()} == theirs


@given(st.lists(st.sampled_from(["user", "assistant"]), max_size=9), st.integers(1, 4))
def test_windows_equal_deepeval(roles, size):
    pytest.importorskip("deepeval")
    from deepeval.metrics.utils.turns import get_turns_in_sliding_window, get_unit_interactions
    from deepeval.test_case import Turn

    turns = [{"role": r, "content": str(i)} for i, r in enumerate(roles)]
    theirs = [[{"role": t.role, "content": t.content} for unit in window for t in unit] for window in
              get_turns_in_sliding_window(get_unit_interactions([Turn(**t) for t in turns]), size)]
    assert sliding_windows(unit_interactions(turns), size) == theirs


# -- inputs ---------------------------------------------------------------------------------------------


def test_example_turns_come_first_and_other_roles_are_left_out(oracle_server):
    history = [u("my name is Ada."), {"role": "system", "content": "be nice"}, a("Hi Ada.")]
    rest = [{"role": "tool", "content": "{}"}, u("Find boats please."), a("I forgot your name.")]
    ours = evalcore_scores(oracle_server, {"chatbot_role": "r", "turns": history}, {"turns": rest})
    same = evalcore_scores(oracle_server, {"chatbot_role": "r"},
                           {"turns": [t for t in history + rest if t["role"] in ("user", "assistant")]})
    assert {k: s.value for k, s in ours.items()} == {k: s.value for k, s in same.items()}
    assert ours["judge/knowledge_retention"].value == 1 / 2


@pytest.mark.parametrize("metric_id", list(METRICS))
def test_no_turns_skips_without_calls(metric_id):
    def judge(prompt, metadata):
        raise AssertionError("no call expected")

    metric = evalcore.get_metric(metric_id, judge=judge, cache_mode="off")
    for prediction in ({}, {"turns": []}, {"turns": [{"role": "tool", "content": "x"}]}):
        score = metric.score_one({"chatbot_role": "r"}, prediction)
        assert score.status == "skipped" and "turns" in score.reason


def test_bad_turns_are_input_errors():
    metric = evalcore.get_metric("judge/conversation_relevancy", judge=lambda prompt: "{}", cache_mode="off")
    score = metric.score_one({}, {"turns": "hello"})
    assert score.status == "error" and "prediction.turns" in score.error_message
    with pytest.raises(InputError):
        from evalcore_judge.conversation import conversation
        conversation({}, {"turns": [{"role": "user", "content": 3}]})


def test_role_adherence_needs_a_role_and_scores_no_assistant_turn_one_without_calls():
    def judge(prompt, metadata):
        raise AssertionError("no call expected")

    metric = evalcore.get_metric("judge/role_adherence", judge=judge, cache_mode="off")
    assert "chatbot_role" in metric.score_one({}, {"turns": [u("hi"), a("hello")]}).reason
    assert metric.score_one({"chatbot_role": "r"}, {"turns": [u("hi")]}).value == 1.0


# -- through the command line ---------------------------------------------------------------------------


def test_cli_conversation_metrics(oracle_server, tmp_path):
    records = [{"id": case, "example": {"chatbot_role": "a polite librarian"}, "prediction": {"turns": turns}}
               for case, turns in CONVERSATIONS.items()]
    path = write_records(tmp_path / "records.jsonl", records)
    args = [arg for metric_id in METRICS for arg in ("-m", metric_id)]
    run_evalcore("evaluate", str(path), *args, "--judge-base-url", oracle_server.base_url, "--judge-model", "m",
                 "--cache-dir", str(tmp_path / "cache"), "--json", "--samples", str(tmp_path / "rows.jsonl"))
    rows = {row["id"]: row["scores"] for row in map(json.loads, (tmp_path / "rows.jsonl").read_text().splitlines())
            if "scores" in row}
    for case, turns in CONVERSATIONS.items():
        theirs = deepeval_scores(oracle_server, turns)
        assert {k: rows[case][k]["value"] for k in METRICS} == theirs


def test_estimates_count_the_later_calls():
    """Reserved against a budget before any call: the librarian conversation has 4 user and 4
    assistant turns, in 4 exchanges."""
    expected = {"judge/knowledge_retention": 4 + 4, "judge/role_adherence": 1,
                "judge/conversation_completeness": 1 + 4, "judge/conversation_relevancy": 4}
    for metric_id, calls in expected.items():
        metric = evalcore.get_metric(metric_id, judge=lambda prompt: "{}", cache_mode="off")
        assert metric.estimate({"chatbot_role": "r"}, {"turns": CONVERSATIONS["librarian"]})["calls"] == calls
