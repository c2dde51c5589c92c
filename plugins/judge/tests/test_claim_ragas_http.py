"""ragas itself and evalcore against one scripted OpenAI-compatible server on 127.0.0.1.

The server recognises each task from the prompt (ragas names its output model in the prompt;
evalcore sends its schema as structured output), reads the statements, contexts and sentences
the prompt holds, and answers the same verdicts for the same texts, whoever asks:

* statements: the sentences of the response that end in a full stop (none: no statements);
* a statement is supported, and a reference sentence attributable, when its text (without the
  full stop) occurs in the contexts;
* a context is useful when it holds the word ``useful``.

Both then give the same number, and the server counts the calls each makes per sample.
"""

from __future__ import annotations

import asyncio
import json
import math
import re

import evalcore
import pytest
from evalcore.testing import Reply, ScriptedServer, import_ragas
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

USAGE = {"prompt_tokens": 10, "completion_tokens": 5}


def sentences(text):
    return [s for s in re.split(r"(?<=\.)\s+", text.strip()) if s.endswith(".")]


def found(sentence, contexts):
    return int(sentence.rstrip(".").lower() in contexts.lower())


def _ragas_input(text):
    """The input JSON of ragas' prompt: the block after its last 'input:'."""
    start = text.lower().rindex("input:")
    return json.JSONDecoder().raw_decode(text, text.index("{", start))[0]


def _between(text, before, after):
    return text.split(before, 1)[1].split(after, 1)[0]


def judge_reply(request):
    """One verdict oracle for both libraries; the task from ragas' output model or evalcore's schema."""
    text = "\n".join(m["content"] for m in request["messages"])
    schema = (request.get("response_format") or {}).get("json_schema", {}).get("name")
    if schema is None:  # ragas
        data = _ragas_input(text)
        if "StatementGeneratorOutput" in text:
            task, response = "statements", data["answer"]
        elif "NLIStatementOutput" in text:
            task, context, statements = "verdicts", data["context"], data["statements"]
        elif "ContextRecallClassifications" in text:
            task, context, reference = "attribution", data["context"], data["answer"]
        else:
            task, context = "useful", data["context"]
    elif schema == "claim_statements":
        task, response = "statements", _between(text, "Answer:\n", "\n\nBreak the answer")
    elif schema == "claim_verdicts":
        task = "verdicts"
        context = _between(text, "Context:\n", "\n\nStatements:")
        listed = _between(text, "Statements:\n", "\n\nGive a verdict")
        statements = [line.split(". ", 1)[1] for line in listed.splitlines()]
    elif schema == "context_useful":
        task, context = "useful", _between(text, "Context:\n", "\n\nAnswer:")
    else:
        task = "attribution"
        context = _between(text, "Context:\n", "\n\nReference answer:")
        reference = _between(text, "Reference answer:\n", "\n\nClassify")
    if task == "statements":
        answer = {"statements": sentences(response)}
    elif task == "verdicts":
        answer = {"statements" if schema is None else "verdicts": [
            {"statement": s, "reason": "oracle", "verdict": found(s, context)} for s in statements]}
    elif task == "useful":
        answer = {"reason": "oracle", "verdict": int("useful" in context)}
    else:
        answer = {"classifications": [{"statement": s, "reason": "oracle", "attributed": found(s, context)}
                                      for s in sentences(reference)]}
    return Reply.chat(json.dumps(answer), usage=USAGE)


@pytest.fixture(scope="module")
def judge_server():
    with ScriptedServer(judge_reply, max_requests=100_000) as server:
        yield server


def ragas_scores(server, sample):
    """ragas' Faithfulness, LLMContextPrecisionWithReference / WithoutReference and LLMContextRecall."""
    import_ragas()
    from langchain_openai import ChatOpenAI
    from ragas.dataset_schema import SingleTurnSample
    from ragas.llms import LangchainLLMWrapper
    from ragas.metrics import (
        Faithfulness,
        LLMContextPrecisionWithoutReference,
        LLMContextPrecisionWithReference,
        LLMContextRecall,
    )

    llm = LangchainLLMWrapper(ChatOpenAI(base_url=server.base_url, api_key="scripted", model="m", max_retries=0))
    row = SingleTurnSample(user_input=sample["query"], response=sample["response"],
                           retrieved_contexts=sample["contexts"], reference=sample["reference"])
    out, calls = {}, {}
    for name, metric in [("claim_faithfulness", Faithfulness(llm=llm)),
                         ("context_precision", LLMContextPrecisionWithReference(llm=llm)),
                         ("context_precision_none", LLMContextPrecisionWithoutReference(llm=llm)),
                         ("context_recall", LLMContextRecall(llm=llm))]:
        before = len(server.requests)
        out[name] = asyncio.run(metric.single_turn_ascore(row))
        calls[name] = len(server.requests) - before
    return out, calls


def evalcore_scores(server, sample, tmp_path):
    example = {"query": sample["query"], "reference_answer": sample["reference"]}
    prediction = {"response": sample["response"],
                  "retrieved": [{"doc_id": str(i), "text": t} for i, t in enumerate(sample["contexts"])]}
    out, calls = {}, {}
    for name, metric_id, params in [("claim_faithfulness", "judge/claim_faithfulness", {}),
                                    ("context_precision", "judge/context_precision", {}),
                                    ("context_precision_none", "judge/context_precision", {"reference": "none"}),
                                    ("context_recall", "judge/context_recall", {})]:
        metric = evalcore.get_metric(metric_id, base_url=server.base_url, model="m", cache_mode="off", **params)
        before = len(server.requests)
        score = metric.score_one(example, prediction)
        out[name] = score.value if score.status == "ok" else math.nan
        calls[name] = len(server.requests) - before
    return out, calls


def same(ours, theirs):
    return (math.isnan(ours) and math.isnan(theirs)) or ours == theirs


CASES = {
    "mixed": {"query": "Where is the tower?", "response": "The tower is in Paris. The tower is 500 m tall.",
              "contexts": ["The tower is in Paris, a useful fact.", "Berlin is in Germany.", "It opened in 1889."],
              "reference": "The tower is in Paris. It opened in 1889. It is made of iron."},
    "all supported": {"query": "q?", "response": "A is B. C is D.", "contexts": ["useful: A is B and C is D."],
                      "reference": "A is B."},
    "none supported": {"query": "q?", "response": "X is Y.", "contexts": ["nothing here", "nor here"],
                       "reference": "Z is W. V is U."},
    "no useful context, one context": {"query": "q?", "response": "A is B.", "contexts": ["A is B."],
                                       "reference": "A is B."},
    "no statements": {"query": "q?", "response": "ok", "contexts": ["useful"], "reference": "useful."},
}


@pytest.mark.parametrize("case", list(CASES))
def test_same_number_as_ragas_over_http(judge_server, tmp_path, case):
    sample = CASES[case]
    theirs, their_calls = ragas_scores(judge_server, sample)
    ours, our_calls = evalcore_scores(judge_server, sample, tmp_path)
    for name in theirs:
        assert same(ours[name], theirs[name]), (name, ours[name], theirs[name])
    n_contexts = len(sample["contexts"])
    assert their_calls == {"claim_faithfulness": 2 if sentences(sample["response"]) else 1,
                           "context_precision": n_contexts, "context_precision_none": n_contexts,
                           "context_recall": 1}
    assert our_calls == their_calls


WORDS = st.sampled_from(["alpha", "beta", "gamma", "delta"])
SENTENCE = st.builds(lambda a, b: f"{a} is {b}.", WORDS, WORDS)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(st.lists(SENTENCE, min_size=1, max_size=5), st.lists(SENTENCE, min_size=1, max_size=4),
       st.lists(st.tuples(st.lists(SENTENCE, max_size=3), st.booleans()), min_size=1, max_size=6))
def test_generated_samples_same_number_as_ragas(judge_server, tmp_path, response, reference, contexts):
    sample = {"query": "q?", "response": " ".join(response), "reference": " ".join(reference),
              "contexts": [" ".join(texts) + (" useful" if useful else "") or "empty" for texts, useful in contexts]}
    theirs, their_calls = ragas_scores(judge_server, sample)
    ours, our_calls = evalcore_scores(judge_server, sample, tmp_path)
    for name in theirs:
        assert same(ours[name], theirs[name]), (name, ours[name], theirs[name])
    assert our_calls == their_calls
