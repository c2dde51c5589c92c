"""Answer relevancy: ragas' ResponseRelevancy (``judge/answer_relevancy``) and DeepEval's
AnswerRelevancyMetric (``judge/answer_statement_relevancy``).

Same number as the references: ragas and DeepEval themselves, and evalcore, call one scripted
OpenAI-compatible server on 127.0.0.1 that answers each task with the same verdicts, and its
``/v1/embeddings`` with the same vectors for the same text:

* questions (ragas): one per sentence of the response, ``What about <sentence>?``, cycled to
  ``strictness``; noncommittal when the response says ``not sure``;
* statements (DeepEval): the sentences of the response;
* relevance (DeepEval): ``yes`` for a statement with the word ``relevant``, ``borderline`` with
  ``maybe``, else ``no``;
* a text's vector: its words hashed (CRC-32) into 8 counts, plus 1.
"""

from __future__ import annotations

import ast
import asyncio
import json
import math
import re
import types
import zlib

import evalcore
import pytest
from chat_messages import message_text
from evalcore.plugin import ParameterError
from evalcore.testing import Reply, ScriptedServer, import_ragas, run_evalcore, write_records
from evalcore_judge.relevancy import relevant_fraction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

USAGE = {"prompt_tokens": 10, "completion_tokens": 5}


def sentences(text):
    return [s for s in re.split(r"(?<=\.)\s+", text.strip()) if s.endswith(".")]


def questions(response, n):
    """The oracle's generated questions: (question, noncommittal) for each of n completions."""
    found = [f"What about {s.rstrip('.')}?" for s in sentences(response)] or [""]
    noncommittal = int("not sure" in response)
    return [(found[i % len(found)], noncommittal) for i in range(n)]


def relevance(statement):
    return "yes" if "relevant" in statement else "borderline" if "maybe" in statement else "no"


def vector(text):
    counts = [0.0] * 8
    for word in re.findall(r"\w+", text.lower()):
        counts[zlib.crc32(word.encode()) % 8] += 1.0
    return [*counts, 1.0]


def _between(text, before, after):
    return text.split(before, 1)[1].split(after, 1)[0]


def oracle(request):
    """One answer for ragas, DeepEval and evalcore: the task from the schema's name or the prompt."""
    if "input" in request:
        return Reply.embeddings([vector(t) for t in request["input"]])
    text = "\n".join(message_text(m) for m in request["messages"])
    schema = ((request.get("response_format") or {}).get("json_schema") or {}).get("name")
    if schema == "response_questions":
        response = _between(text, "Answer:\n", "\n\nGenerate ")
        n = int(re.search(r"Generate (\d+) questions", text).group(1))
        return Reply.chat(json.dumps({"questions": [{"question": q, "noncommittal": c}
                                                    for q, c in questions(response, n)]}), usage=USAGE)
    if schema is None and "ResponseRelevanceOutput" in text:  # ragas: n completions in one request
        start = text.lower().rindex("input:")
        response = json.JSONDecoder().raw_decode(text, text.index("{", start))[0]["response"]
        choices = [{"index": i, "message": {"role": "assistant",
                                            "content": json.dumps({"question": q, "noncommittal": c})},
                    "finish_reason": "stop"} for i, (q, c) in enumerate(questions(response, request.get("n", 1)))]
        return Reply(200, {"id": "x", "object": "chat.completion", "model": "m", "choices": choices,
                           "usage": {**USAGE, "total_tokens": 15}})
    if schema == "claim_statements":
        answer = {"statements": sentences(_between(text, "Answer:\n", "\n\nBreak the answer"))}
    elif schema == "statement_relevance":
        listed = _between(text, "Statements:\n", "\n\nGive a verdict")
        answer = {"verdicts": [{"reason": "oracle", "verdict": relevance(line.split(". ", 1)[1])}
                               for line in listed.splitlines()]}
    elif "generate a list of statements" in text:  # DeepEval
        answer = {"statements": sentences(text.rsplit("Text:\n", 1)[1].rsplit("\n\nJSON:", 1)[0])}
    elif "relevant to address the input" in text:  # DeepEval's verdicts; the statements as a Python list
        listed = ast.literal_eval(text.rsplit("Statements:\n", 1)[1].rsplit("\n\nJSON:", 1)[0])
        answer = {"verdicts": [{"reason": "oracle", "verdict": relevance(s)} for s in listed]}
    else:
        raise AssertionError(f"unknown task: {text[:200]}")
    return Reply.chat(json.dumps(answer), usage=USAGE)


@pytest.fixture(scope="module")
def oracle_server():
    with ScriptedServer(oracle, max_requests=100_000) as server:
        yield server


def ragas_relevancy(server, query, response, strictness=3):
    import_ragas()
    from langchain_openai import ChatOpenAI, OpenAIEmbeddings
    from ragas.dataset_schema import SingleTurnSample
    from ragas.embeddings import LangchainEmbeddingsWrapper
    from ragas.llms import LangchainLLMWrapper
    from ragas.metrics import ResponseRelevancy

    llm = LangchainLLMWrapper(ChatOpenAI(base_url=server.base_url, api_key="scripted", model="m", max_retries=0))
    embeddings = LangchainEmbeddingsWrapper(OpenAIEmbeddings(
        base_url=server.base_url, api_key="scripted", model="e", check_embedding_ctx_length=False, max_retries=0))
    metric = ResponseRelevancy(llm=llm, embeddings=embeddings, strictness=strictness)
    return asyncio.run(metric.single_turn_ascore(SingleTurnSample(user_input=query, response=response)))


def deepeval_relevancy(server, query, response):
    pytest.importorskip("deepeval")
    from deepeval.metrics import AnswerRelevancyMetric
    from deepeval.models import GPTModel
    from deepeval.test_case import LLMTestCase

    model = GPTModel(model="gpt-4.1", base_url=server.base_url, api_key="scripted")
    metric = AnswerRelevancyMetric(model=model, include_reason=False, async_mode=False)
    return metric.measure(LLMTestCase(input=query, actual_output=response))


def evalcore_score(server, metric_id, query, response, **params):
    metric = evalcore.get_metric(metric_id, base_url=server.base_url, model="m", cache_mode="off", **params)
    return metric.score_one({"query": query}, {"response": response})


def evalcore_relevancy(server, query, response, strictness=3):
    score = evalcore_score(server, "judge/answer_relevancy", query, response, strictness=strictness,
                           embedding_base_url=server.base_url, embedding_model="e")
    return score.value if score.status == "ok" else math.nan


CASES = {
    "two sentences": ("Where is the tower and how tall is it?", "The tower is in Paris. It is 330 m tall."),
    "one sentence": ("Who wrote Hamlet?", "Shakespeare wrote Hamlet."),
    "noncommittal": ("Who wrote Hamlet?", "I am not sure who wrote it. Maybe a poet."),
    "no sentence": ("Who wrote Hamlet?", "no idea"),
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("strictness", [1, 3])
def test_answer_relevancy_same_number_as_ragas(oracle_server, case, strictness):
    query, response = CASES[case]
    theirs = ragas_relevancy(oracle_server, query, response, strictness)
    before = len(oracle_server.requests)
    ours = evalcore_relevancy(oracle_server, query, response, strictness)
    chats = [r for r in oracle_server.requests[before:] if r["path"].endswith("/chat/completions")]
    assert len(chats) == 1  # as ragas: one request (ragas asks for n=strictness completions)
    assert (math.isnan(ours) and math.isnan(theirs)) or ours == theirs, (ours, theirs)
    if case == "noncommittal":
        assert ours == 0.0
    if case == "no sentence":  # every generated question empty: ragas NaN, evalcore skipped
        assert math.isnan(theirs)


WORDS = st.sampled_from(["alpha", "beta", "gamma", "delta", "relevant", "maybe"])
SENTENCE = st.builds(lambda a, b: f"{a} is {b}.", WORDS, WORDS)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(st.lists(SENTENCE, min_size=1, max_size=4), st.lists(WORDS, min_size=1, max_size=4), st.booleans())
def test_generated_answers_same_number_as_ragas_and_deepeval(oracle_server, response, query, noncommittal):
    query = " ".join(query) + "?"
    response = " ".join(response) + (" I am not sure." if noncommittal else "")
    assert evalcore_relevancy(oracle_server, query, response) == ragas_relevancy(oracle_server, query, response)
    ours = evalcore_score(oracle_server, "judge/answer_statement_relevancy", query, response)
    assert ours.value == deepeval_relevancy(oracle_server, query, response)


@pytest.mark.parametrize("response", ["A relevant point. An aside. Maybe this.", "Nothing here. Or here.",
                                      "All relevant. Also relevant.", "no statements"])
def test_answer_statement_relevancy_same_number_as_deepeval(oracle_server, response):
    before = len(oracle_server.requests)
    theirs = deepeval_relevancy(oracle_server, "q?", response)
    their_calls = len(oracle_server.requests) - before
    before = len(oracle_server.requests)
    ours = evalcore_score(oracle_server, "judge/answer_statement_relevancy", "q?", response)
    assert ours.value == theirs
    assert len(oracle_server.requests) - before == their_calls == (2 if sentences(response) else 1)
    if not sentences(response):  # DeepEval: no statements, no verdicts, score 1
        assert ours.value == 1.0 and ours.details["total"] == 0


# -- hand-worked cases, with a callable judge and a callable embedder ------------------------------------


def question_judge(*generated):
    def judge(prompt, metadata):
        assert metadata["role"] == "questions"
        return json.dumps({"questions": [{"question": q, "noncommittal": c} for q, c in generated]})
    return judge


AXES = {"q": [1.0, 0.0], "same": [2.0, 0.0], "orthogonal": [0.0, 3.0], "diagonal": [1.0, 1.0],
        "opposite": [-1.0, 0.0]}


def axes(texts):
    return [AXES[t] for t in texts]


@pytest.mark.parametrize(("generated", "expected"), [
    # cosines with (1, 0): same 1, orthogonal 0, diagonal 1/sqrt(2), opposite -1
    ([("same", 0), ("orthogonal", 0), ("diagonal", 0)], (1 + 0 + 2 ** -0.5) / 3),
    ([("same", 0)], 1.0),
    ([("same", 1), ("diagonal", 0)], (1 + 2 ** -0.5) / 2),   # one noncommittal: not zeroed (ragas: np.all)
    ([("same", 1), ("diagonal", 1)], 0.0),                   # all noncommittal: 0
    ([("opposite", 0), ("orthogonal", 0)], -0.5),
])
def test_answer_relevancy_hand_worked(generated, expected):
    metric = evalcore.get_metric("judge/answer_relevancy", judge=question_judge(*generated), embed=axes,
                                 cache_mode="off", strictness=len(generated))
    score = metric.score_one({"query": "q"}, {"response": "An answer."})
    assert score.value == pytest.approx(expected, abs=1e-15)
    assert [g["question"] for g in score.details["generated"]] == [q for q, _ in generated]
    assert score.details["noncommittal"] == all(c for _, c in generated)


def test_answer_relevancy_keeps_the_first_strictness_questions():
    judge = question_judge(("same", 0), ("orthogonal", 0), ("diagonal", 0))
    score = evalcore.get_metric("judge/answer_relevancy", judge=judge, embed=axes, cache_mode="off",
                                strictness=2).score_one({"query": "q"}, {"response": "x"})
    assert score.value == 0.5 and len(score.details["generated"]) == 2


@pytest.mark.parametrize(("example", "prediction", "reason"), [
    ({"query": "q"}, {"response": "  "}, "response is empty"),
    ({"query": " "}, {"response": "x"}, "query"),
    ({}, {"response": "x"}, "query"),
])
@pytest.mark.parametrize("metric_id", ["judge/answer_relevancy", "judge/answer_statement_relevancy"])
def test_blank_input_skips_without_calls(metric_id, example, prediction, reason):
    def judge(prompt, metadata):
        raise AssertionError("no call expected")

    score = evalcore.get_metric(metric_id, judge=judge, embed=axes, cache_mode="off") \
        if metric_id == "judge/answer_relevancy" else evalcore.get_metric(metric_id, judge=judge, cache_mode="off")
    score = score.score_one(example, prediction)
    assert score.status == "skipped" and reason in score.reason


def test_answer_relevancy_without_questions_is_skipped():
    score = evalcore.get_metric("judge/answer_relevancy", judge=question_judge(("", 0), ("", 1)), embed=axes,
                                cache_mode="off").score_one({"query": "q"}, {"response": "x"})
    assert score.status == "skipped" and "NaN" in score.reason


@given(st.lists(st.sampled_from(["yes", "no", "borderline"]), max_size=12))
def test_relevant_fraction_equals_deepeval(verdicts):
    pytest.importorskip("deepeval")
    from deepeval.metrics.answer_relevancy.schema import AnswerRelevancyVerdict
    from deepeval.metrics.base_metric import Verdict
    from deepeval.metrics.utils.qag import score_qag_verdicts

    metric = types.SimpleNamespace(strict_mode=False, threshold=0.5)
    theirs = score_qag_verdicts(metric, [AnswerRelevancyVerdict(verdict=v) for v in verdicts],
                                passing=(Verdict.YES, Verdict.BORDERLINE))
    assert relevant_fraction(verdicts) == theirs


# -- through the command line ----------------------------------------------------------------------------


def test_cli_answer_relevancy_with_the_runs_embedding_endpoint(oracle_server, tmp_path):
    records = [{"id": f"r{i}", "example": {"query": query}, "prediction": {"response": response}}
               for i, (query, response) in enumerate(CASES.values())]
    path = write_records(tmp_path / "records.jsonl", records)
    out = run_evalcore("evaluate", str(path), "-m", "judge/answer_relevancy", "-m", "judge/answer_statement_relevancy",
                       "--judge-base-url", oracle_server.base_url, "--judge-model", "m",
                       "--embedding-base-url", oracle_server.base_url, "--embedding-model", "e",
                       "--cache-dir", str(tmp_path / "cache"), "--json", "--samples", str(tmp_path / "rows.jsonl"))
    json.loads(out.stdout)
    rows = {row["id"]: row["scores"] for row in map(json.loads, (tmp_path / "rows.jsonl").read_text().splitlines())
            if "scores" in row}
    for i, (query, response) in enumerate(CASES.values()):
        ours = rows[f"r{i}"]["judge/answer_relevancy"]
        theirs = ragas_relevancy(oracle_server, query, response)
        if math.isnan(theirs):
            assert ours["status"] == "skipped"
        else:
            assert ours["value"] == theirs
        assert rows[f"r{i}"]["judge/answer_statement_relevancy"]["value"] == \
            deepeval_relevancy(oracle_server, query, response)


def test_answer_relevancy_without_an_embedder_names_the_parameter():
    with pytest.raises(ParameterError, match="embedding_base_url.*embed=<callable>"):
        evalcore.get_metric("judge/answer_relevancy", judge=question_judge(("q", 0))).score_one(
            {"query": "q"}, {"response": "x"})


def test_second_run_answers_from_the_cache(oracle_server, tmp_path):
    """Questions and vectors are both cached: the same sample again makes no request."""
    query, response = CASES["two sentences"]

    def run():
        before = len(oracle_server.requests)
        metric = evalcore.get_metric("judge/answer_relevancy", base_url=oracle_server.base_url, model="m",
                                     embedding_base_url=oracle_server.base_url, embedding_model="e",
                                     cache_dir=str(tmp_path / "cache"))
        score = metric.score_one({"query": query}, {"response": response})
        return score, len(oracle_server.requests) - before

    first, first_requests = run()
    again, again_requests = run()
    assert first_requests == 2 and again_requests == 0  # one chat + one embeddings request, then none
    assert again.value == first.value and again.details["cache"] == {"hits": 1, "misses": 0}


def test_estimates():
    example, prediction = {"query": "q"}, {"response": "A. B."}
    relevancy = evalcore.get_metric("judge/answer_relevancy", judge=question_judge(), embed=axes, cache_mode="off")
    statements = evalcore.get_metric("judge/answer_statement_relevancy", judge=question_judge(), cache_mode="off")
    assert relevancy.estimate(example, prediction)["calls"] == 1  # all questions in one answer
    assert statements.estimate(example, prediction)["calls"] == 2  # statements, then verdicts


def test_embeddings_go_through_the_runs_one_connection_pool_without_threads(oracle_server, monkeypatch):
    """Twelve records of answer relevancy in one run: the embedding calls go out on the run's event
    loop through one connection pool (no worker thread, no event loop or pool of their own)."""
    import threading

    import evalcore_http.client

    query, response = CASES["two sentences"]
    expected = evalcore_relevancy(oracle_server, query, response)
    pools, threads = [], []
    real_pool, real_thread_start = evalcore_http.client.HTTPPool, threading.Thread.start

    class CountedPool(real_pool):
        def __init__(self, base_url, headers, **kw):
            pools.append(base_url)
            super().__init__(base_url, headers, **kw)

    monkeypatch.setattr(evalcore_http.client, "HTTPPool", CountedPool)
    monkeypatch.setattr(threading.Thread, "start",
                        lambda self: (threads.append(self.name), real_thread_start(self))[1])
    records = [{"id": str(i), "query": query, "response": response} for i in range(12)]
    result = evalcore.evaluate(records, ["judge/answer_relevancy"], judge={"base_url": oracle_server.base_url,
                               "model": "m"}, embedding={"base_url": oracle_server.base_url, "model": "e"},
                               cache_mode="off", progress=False)
    values = [next(iter(row["scores"].values()))["value"] for row in result.samples]
    assert values == [pytest.approx(expected)] * 12
    # one pool for the judge and one for the embedding client, made on the run's one event loop
    assert sorted(pools[:2]) == [oracle_server.base_url] * 2 and len(pools) == 2, pools
    assert [t for t in threads if t.startswith("asyncio")] == []  # asyncio.to_thread's workers
