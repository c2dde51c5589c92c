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
import scripted_judge as scripted
from chat_messages import after_last, message_text
from evalcore.testing import Reply, import_ragas
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
    schema = scripted.schema_name(request)
    if schema is None:  # ragas: its input JSON follows its last 'input:'
        data = scripted.ragas_input(text)
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


oracle_server = scripted.oracle_fixture(oracle)


def ragas_score(server, turns, reference, mode="f1"):
    import_ragas()
    from ragas.dataset_schema import MultiTurnSample
    from ragas.metrics import TopicAdherenceScore

    messages = scripted.ragas_messages(turns)
    llm = scripted.ragas_llm(server)
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


@pytest.mark.parametrize(("example", "status", "message"), [
    ({}, "skipped", "example.reference_topics is missing"),
    ({"reference_topics": []}, "skipped", "example.reference_topics is empty"),
    ({"reference_topics": "physics"}, "error", "example.reference_topics"),
])
def test_reference_topics_are_read_before_any_call(example, status, message):
    score = evalcore.get_metric("judge/topic_adherence", judge=scripted.never_called, cache_mode="off") \
        .score_one(example, {"turns": chat(("physics", "ok"))})
    assert score.status == status
    assert message in (score.reason or score.error_message)


def test_estimate_counts_a_refusal_question_per_user_turn():
    metric = evalcore.get_metric("judge/topic_adherence", judge=scripted.never_called, cache_mode="off")
    assert metric.estimate({"reference_topics": SCIENCE}, {"turns": chat(("a", "b"), ("c", "d"))})["calls"] == 4


def test_cli_same_number_as_ragas(oracle_server, tmp_path):
    records = [{"id": case, "example": {"reference_topics": reference}, "prediction": {"turns": turns}}
               for case, (turns, reference) in CASES.items()]
    rows = scripted.evaluate_scores(oracle_server, records, "judge/topic_adherence", tmp_path)
    for case, (turns, reference) in CASES.items():
        assert rows[case]["judge/topic_adherence"]["value"] == ragas_score(oracle_server, turns, reference)
