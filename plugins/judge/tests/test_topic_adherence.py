"""Topic adherence against ragas' TopicAdherenceScore (precision, recall and F1).

ragas (its LangChain OpenAI wrapper, a MultiTurnSample) and evalcore call one scripted
OpenAI-compatible server on 127.0.0.1 that answers the same for the same texts:

* topics: the text of each ``Human:`` line of the run, in order;
* refused: the first ``AI:`` line after the topic's ``Human:`` line holds "sorry";
* classification: a topic falls into the reference topics when it shares a word with one of them;
  when a topic holds the word "drop" the last classification is left out (ragas pads the list).
"""

from __future__ import annotations

import asyncio
import json
import math
import re

import evalcore
import pytest
from chat_messages import after_last, message_text
from evalcore.testing import Reply, ScriptedServer, import_ragas, run_evalcore, write_records
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

USAGE = {"prompt_tokens": 10, "completion_tokens": 5}


def words(text):
    return set(re.findall(r"\w+", text.lower()))


def topics_of(run):
    return [line[len("Human: "):] for line in run.splitlines() if line.startswith("Human: ")]


def refused(run, topic):
    lines = run.splitlines()
    start = lines.index(f"Human: {topic}")
    said = next((line for line in lines[start + 1:] if line.startswith("AI: ")), "")
    return "sorry" in said.lower()


def classes(reference, topics):
    found = [any(words(ref) & words(topic) for ref in reference) for topic in topics]
    return found[:-1] if any("drop" in words(topic) for topic in topics) else found


def oracle(request):
    text = "\n".join(message_text(m) for m in request["messages"])
    schema = (request.get("response_format") or {}).get("json_schema", {}).get("name")
    if schema is None:  # ragas: its input JSON follows its last 'input:'
        start = text.lower().rindex("input:")
        data = json.JSONDecoder().raw_decode(text, text.index("{", start))[0]
        task = "classes" if "reference_topics" in data else "refused" if "topic" in data else "topics"
        run, topic = data.get("user_input"), data.get("topic")
        reference, topics = data.get("reference_topics"), data.get("topics")
    elif schema == "topics":
        task, run = "topics", after_last(text, "Interaction:\n", "\n\nExtract the topics")
    elif schema == "topic_refused":
        task, run = "refused", after_last(text, "Interaction:\n", "\n\nTopic:\n")
        topic = after_last(text, "Topic:\n", "\n\nDid the AI refuse")
    else:
        task = "classes"
        reference = json.loads(after_last(text, "Reference topics:\n", "\n\nTopics:\n"))
        topics = json.loads(after_last(text, "Topics:\n", "\n\nDoes each topic"))
    if task == "topics":
        answer = {"topics": topics_of(run)}
    elif task == "refused":
        answer = {"refused_to_answer": refused(run, topic)}
    else:
        answer = {"classifications": classes(reference, topics)}
    return Reply.chat(json.dumps(answer), usage=USAGE)


@pytest.fixture(scope="module")
def oracle_server():
    with ScriptedServer(oracle, max_requests=100_000) as server:
        yield server


def ragas_score(server, turns, reference, mode="f1"):
    import_ragas()
    from langchain_openai import ChatOpenAI
    from ragas.dataset_schema import MultiTurnSample
    from ragas.llms import LangchainLLMWrapper
    from ragas.messages import AIMessage, HumanMessage, ToolCall, ToolMessage
    from ragas.metrics import TopicAdherenceScore

    messages = []
    for turn in turns:
        if turn["role"] == "user":
            messages.append(HumanMessage(content=turn["content"]))
        elif turn["role"] == "tool":
            messages.append(ToolMessage(content=turn["content"]))
        else:
            calls = [ToolCall(name=c["name"], args=c["arguments"]) for c in turn.get("tool_calls", [])]
            messages.append(AIMessage(content=turn["content"], tool_calls=calls or None))
    llm = LangchainLLMWrapper(ChatOpenAI(base_url=server.base_url, api_key="scripted", model="m", max_retries=0))
    metric = TopicAdherenceScore(llm=llm, mode=mode)
    sample = MultiTurnSample(user_input=messages, reference_topics=reference)
    return float(asyncio.run(metric.multi_turn_ascore(sample)))


def evalcore_score(server, turns, reference, mode="f1"):
    metric = evalcore.get_metric("judge/topic_adherence", base_url=server.base_url, model="m", cache_mode="off",
                                 mode=mode)
    return metric.score_one({"reference_topics": reference}, {"turns": turns})


def chat(*pairs):
    turns = []
    for asked, said in pairs:
        turns += [{"role": "user", "content": asked}, {"role": "assistant", "content": said}]
    return turns


SCIENCE = ["physics", "chemistry"]
CASES = {
    "on topic, answered": (chat(("explain physics of orbits", "Gravity bends paths."),
                                ("and chemistry of salt", "Ionic bonds.")), SCIENCE),
    "off topic answered": (chat(("explain physics of orbits", "Gravity."), ("tell me a joke", "A pun.")), SCIENCE),
    "on topic refused": (chat(("physics please", "Sorry, I cannot."), ("weather today", "Sorry, no.")), SCIENCE),
    "with tools": ([{"role": "user", "content": "physics of tides"},
                    {"role": "assistant", "content": "", "tool_calls": [{"name": "search", "arguments": {"q": "t"}}]},
                    {"role": "tool", "content": "moon"}, {"role": "assistant", "content": "The moon pulls."}],
                   SCIENCE),
    "classifications cut short": (chat(("physics drop test", "Falls."), ("chemistry now", "Sure.")), SCIENCE),
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("mode", ["f1", "precision", "recall"])
def test_same_number_as_ragas(oracle_server, case, mode):
    turns, reference = CASES[case]
    before = len(oracle_server.requests)
    theirs = ragas_score(oracle_server, turns, reference, mode)
    their_calls = len(oracle_server.requests) - before
    before = len(oracle_server.requests)
    ours = evalcore_score(oracle_server, turns, reference, mode)
    assert ours.status == "ok", ours
    assert ours.value == theirs
    n_topics = sum(turn["role"] == "user" for turn in turns)
    assert their_calls == len(oracle_server.requests) - before == 2 + n_topics


def test_hand_worked_values(oracle_server):
    """'off topic answered': topics 'explain physics of orbits' (answered, on topic) and 'tell me a
    joke' (answered, off topic): tp 1, fp 1, fn 0; precision 1/(2 + 1e-10), recall 1/(1 + 1e-10).
    'on topic refused': 'physics please' refused on topic (fn), 'weather today' refused off topic:
    tp 0, so 0. 'classifications cut short': two topics, both on topic, one classification given,
    so the second reads as off topic: tp 1, fp 1."""
    turns, reference = CASES["off topic answered"]
    precision, recall = 1 / (2 + 1e-10), 1 / (1 + 1e-10)
    assert evalcore_score(oracle_server, turns, reference, "precision").value == precision
    assert evalcore_score(oracle_server, turns, reference, "recall").value == recall
    score = evalcore_score(oracle_server, turns, reference)
    assert score.value == 2 * precision * recall / (precision + recall + 1e-10)
    assert math.isclose(score.value, 2 / 3, rel_tol=1e-9)
    assert score.details["answered"] == [True, True] and score.details["on_topic"] == [True, False]
    assert evalcore_score(oracle_server, *CASES["on topic refused"]).value == 0.0
    cut = evalcore_score(oracle_server, *CASES["classifications cut short"], "precision")
    assert cut.details["on_topic"] == [True, False] and cut.details["classifications_given"] == 1
    assert cut.value == precision


TOPIC = st.sampled_from(["physics now", "chemistry class", "a joke", "weather", "physics drop"])
REPLY = st.sampled_from(["Sure.", "Sorry, no.", "Here it is."])


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(TOPIC, REPLY), min_size=1, max_size=3, unique_by=lambda pair: pair[0]),
       st.sampled_from(["f1", "precision", "recall"]))
def test_generated_runs_same_number_as_ragas(oracle_server, pairs, mode):
    turns = chat(*pairs)
    assert evalcore_score(oracle_server, turns, SCIENCE, mode).value == \
        ragas_score(oracle_server, turns, SCIENCE, mode)


def no_topics(prompt, metadata):
    assert metadata["role"] == "topics"
    return json.dumps({"topics": []})


def test_no_topics_scores_0_as_ragas_with_one_call():
    score = evalcore.get_metric("judge/topic_adherence", judge=no_topics, cache_mode="off") \
        .score_one({"reference_topics": SCIENCE}, {"turns": chat(("hi", "hello"))})
    assert score.value == 0.0 and "no topics" in score.feedback


def never_called(prompt, metadata):
    raise AssertionError("no call expected")


@pytest.mark.parametrize(("example", "status", "message"), [
    ({}, "skipped", "example.reference_topics is missing"),
    ({"reference_topics": []}, "skipped", "example.reference_topics is empty"),
    ({"reference_topics": "physics"}, "error", "example.reference_topics"),
])
def test_reference_topics_are_read_before_any_call(example, status, message):
    score = evalcore.get_metric("judge/topic_adherence", judge=never_called, cache_mode="off") \
        .score_one(example, {"turns": chat(("physics", "ok"))})
    assert score.status == status
    assert message in (score.reason or score.error_message)


def test_estimate_counts_a_refusal_question_per_user_turn():
    metric = evalcore.get_metric("judge/topic_adherence", judge=never_called, cache_mode="off")
    assert metric.estimate({"reference_topics": SCIENCE}, {"turns": chat(("a", "b"), ("c", "d"))})["calls"] == 4


def test_cli_same_number_as_ragas(oracle_server, tmp_path):
    records = [{"id": case, "example": {"reference_topics": reference}, "prediction": {"turns": turns}}
               for case, (turns, reference) in CASES.items()]
    path = write_records(tmp_path / "records.jsonl", records)
    run_evalcore("evaluate", str(path), "-m", "judge/topic_adherence", "--judge-base-url", oracle_server.base_url,
                 "--judge-model", "m", "--cache-dir", str(tmp_path / "cache"), "--json",
                 "--samples", str(tmp_path / "rows.jsonl"))
    rows = {row["id"]: row["scores"] for row in map(json.loads, (tmp_path / "rows.jsonl").read_text().splitlines())
            if "scores" in row}
    for case, (turns, reference) in CASES.items():
        assert rows[case]["judge/topic_adherence"]["value"] == ragas_score(oracle_server, turns, reference)
