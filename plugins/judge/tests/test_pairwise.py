"""Pairwise judging (``judge/pairwise``) against DeepEval's ``ArenaGEval``.

DeepEval and evalcore call one scripted OpenAI-compatible server on 127.0.0.1, which reads the
contestants from the arena prompt (JSON under "Contestants:") and answers:

* evaluation steps: ``["Prefer the fuller answer.", "Check it answers the input."]``;
* the winner: the contestant whose actual output has more words (``fair``), or the one listed first
  (``first``: a judge with position bias), with a reason naming both masked contestants;
* DeepEval's reason rewriting: the reason with ``$name$`` unwrapped.
"""

from __future__ import annotations

import json

import evalcore
import pytest
from chat_messages import message_text
from evalcore.plugin import ParameterError
from evalcore.testing import Reply, ScriptedServer, run_evalcore, write_records

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

STEPS = ["Prefer the fuller answer.", "Check it answers the input."]
USAGE = {"prompt_tokens": 10, "completion_tokens": 5}


def contestants(text):
    """The masked names and actual outputs of an arena prompt, in the order shown."""
    shown = json.loads(text.split("Contestants:\n", 1)[1].split("\n\nParameters:", 1)[0])
    return [(name, json.loads(case)["actual_output"]) for name, case in shown["arena_test_cases"].items()]


class Oracle:
    """The scripted judge; ``mode`` is ``fair`` (the longer answer wins) or ``first`` (position bias)."""

    def __init__(self):
        self.mode = "fair"

    def __call__(self, request):
        text = "\n".join(message_text(m) for m in request["messages"])
        if "concise evaluation steps" in text:
            return Reply.chat(json.dumps({"steps": STEPS}), usage=USAGE)
        if "rewritten_reason" in text:
            reason = text.split("Reason:\n", 1)[1].split("\n", 1)[0]
            return Reply.chat(json.dumps({"rewritten_reason": reason.replace("$", "")}), usage=USAGE)
        shown = contestants(text)
        if self.mode == "first":
            winner, loser = shown[0][0], shown[1][0]
        else:
            (winner, _), (loser, _) = sorted(shown, key=lambda c: -len(c[1].split()))
        return Reply.chat(json.dumps({"winner": winner, "reason": f"${winner}$ says more than ${loser}$"}),
                          usage=USAGE)


@pytest.fixture(scope="module")
def oracle():
    judge = Oracle()
    with ScriptedServer(judge, max_requests=100_000) as server:
        server.oracle = judge
        yield server


SAMPLES = [("What is the capital of France?", "Paris.", "The capital of France is Paris."),
           ("Who wrote Hamlet?", "William Shakespeare wrote it around 1600.", "Shakespeare."),
           ("Name a prime.", "Seven.", "Seven is a prime number, and so is eleven.")]


def deepeval_winners(server, samples, **options):
    pytest.importorskip("deepeval")
    from deepeval.metrics import ArenaGEval
    from deepeval.models import GPTModel
    from deepeval.test_case import ArenaTestCase, Contestant, LLMTestCase, SingleTurnParams

    model = GPTModel(model="gpt-4.1", base_url=server.base_url, api_key="scripted")
    metric = ArenaGEval(name="better", model=model, async_mode=False,
                        evaluation_params=[SingleTurnParams.INPUT, SingleTurnParams.ACTUAL_OUTPUT], **options)
    return [metric.measure(ArenaTestCase(contestants=[
        Contestant(name="A", test_case=LLMTestCase(input=query, actual_output=a)),
        Contestant(name="B", test_case=LLMTestCase(input=query, actual_output=b))]))
        for query, a, b in samples]


def evalcore_pairwise(server, samples, **params):
    metric = evalcore.get_metric("judge/pairwise", base_url=server.base_url, model="m", cache_mode="off", **params)
    return [metric.score_one({"query": query}, {"response": a, "response_b": b}) for query, a, b in samples]


@pytest.mark.parametrize("options", [{"criteria": "Which answer is better?"}, {"evaluation_steps": STEPS}])
def test_same_winner_as_deepeval(oracle, options):
    oracle.oracle.mode = "fair"
    theirs = deepeval_winners(oracle, SAMPLES, **options)
    before = len(oracle.requests)
    ours = evalcore_pairwise(oracle, SAMPLES, **options)
    assert theirs == ["B", "A", "B"]  # the longer answer, by the oracle's rule
    assert [s.value for s in ours] == [{"A": 1.0, "B": 0.0}[w] for w in theirs]
    assert [s.details["verdict"] for s in ours] == theirs
    # the steps once per instance (none when given), then both orders per record
    assert len(oracle.requests) - before == 2 * len(SAMPLES) + ("criteria" in options)
    assert ours[0].details["reasons"] == {"a_first": "B says more than A", "b_first": "B says more than A"}
    assert all(s.details["evaluation_steps"] == STEPS for s in ours)


def test_both_orders_are_asked(oracle):
    oracle.oracle.mode = "fair"
    before = len(oracle.requests)
    evalcore_pairwise(oracle, SAMPLES[:1], evaluation_steps=STEPS)
    shown = [contestants("\n".join(message_text(m) for m in r["json"]["messages"])) for r in oracle.requests[before:]]
    query, a, b = SAMPLES[0]
    assert sorted(shown) == sorted([[("Alice", a), ("Bob", b)], [("Alice", b), ("Bob", a)]])


def test_position_bias_is_a_tie(oracle):
    oracle.oracle.mode = "first"
    ours = evalcore_pairwise(oracle, SAMPLES, evaluation_steps=STEPS)
    assert [s.value for s in ours] == [0.5, 0.5, 0.5]
    assert ours[0].details["verdict"] == "tie"
    assert ours[0].details["winners"] == {"a_first": "A", "b_first": "B"}
    assert ours[0].details["reasons"] == {"a_first": "A says more than B", "b_first": "B says more than A"}
    assert ours[0].details["explanation"] == "a first: A says more than B\nb first: B says more than A"


def test_position_bias_as_inconsistent(oracle):
    oracle.oracle.mode = "first"
    ours = evalcore_pairwise(oracle, SAMPLES, evaluation_steps=STEPS, on_disagreement="inconsistent")
    assert all(s.status == "skipped" and s.reason.startswith("inconsistent") for s in ours)
    assert ours[0].details["verdict"] == "inconsistent" and ours[0].details["reasons"]["b_first"]


def test_missing_answer_skips_before_any_call():
    def judge(prompt, metadata):
        raise AssertionError("no call expected")

    metric = evalcore.get_metric("judge/pairwise", judge=judge, evaluation_steps=STEPS, cache_mode="off")
    score = metric.score_one({"query": "q"}, {"response": "a"})
    assert score.status == "skipped" and "prediction.response_b" in score.reason


@pytest.mark.parametrize(("params", "name"), [({"evaluation_steps": STEPS, "fields": ["query"]}, "fields"),
                                              ({"evaluation_steps": STEPS, "fields": ["response", "retrieved"]},
                                               "fields"),
                                              ({}, "criteria"),
                                              ({"criteria": "c", "on_disagreement": "coin"}, "on_disagreement")])
def test_bad_parameters_name_themselves(params, name):
    with pytest.raises(ParameterError, match=name):
        evalcore.get_metric("judge/pairwise", judge=lambda prompt: "{}", **params)


def test_cli_fields_of_one_record(oracle, tmp_path):
    oracle.oracle.mode = "fair"
    records = [{"id": f"r{i}", "example": {"query": q}, "prediction": {"answer": {"text": a}, "other": b}}
               for i, (q, a, b) in enumerate(SAMPLES)]
    path = write_records(tmp_path / "records.jsonl", records)
    out = run_evalcore("evaluate", str(path), "-m",
                       "judge/pairwise(evaluation_steps=['Prefer the fuller answer.'], field='answer.text', "
                       "field_b='other')",
                       "--judge-base-url", oracle.base_url, "--judge-model", "m", "--cache-dir", str(tmp_path / "c"),
                       "--json", "--samples", str(tmp_path / "rows.jsonl"))
    report = json.loads(out.stdout)
    (metric_id,) = [m for m in report["metrics"] if m.startswith("judge/pairwise")]
    rows = {row["id"]: row["scores"][metric_id] for row in
            map(json.loads, (tmp_path / "rows.jsonl").read_text().splitlines()) if "scores" in row}
    assert [rows[f"r{i}"]["value"] for i in range(3)] == [0.0, 1.0, 0.0]
    assert report["metrics"][metric_id]["value"] == pytest.approx(1 / 3)  # A's win rate


def test_cli_arena_over_three_systems(oracle, tmp_path):
    pytest.importorskip("evalcore_stats")
    oracle.oracle.mode = "fair"
    answers = {"terse": ["Paris.", "Shakespeare.", "Seven."],
               "plain": ["It is Paris.", "William Shakespeare.", "Seven is prime."],
               "full": ["The capital of France is Paris.", "William Shakespeare wrote Hamlet.",
                        "Seven is a prime number."]}
    paths = []
    for name, texts in answers.items():
        records = [{"id": f"r{i}", "example": {"query": q}, "prediction": {"response": t}}
                   for i, ((q, _, _), t) in enumerate(zip(SAMPLES, texts))]
        paths.append(str(write_records(tmp_path / f"{name}.jsonl", records)))
    metric = f"judge/pairwise(evaluation_steps=['Prefer the fuller answer.'], base_url='{oracle.base_url}', model='m')"
    out = run_evalcore("arena", *paths, "-m", metric, "--resamples", "100", "--cache-dir", str(tmp_path / "c"),
                       "--json")
    data = json.loads(out.stdout)
    # the longer answer wins every record in both orders: full > plain > terse
    assert {(p["system"], p["against"]): p["win_rate"] for p in data["pairs"]} == {
        ("terse", "plain"): 0.0, ("terse", "full"): 0.0, ("plain", "full"): 0.0}
    assert [r["system"] for r in data["ratings"]] == ["full", "plain", "terse"]
    assert data["metric"].startswith("judge/pairwise")


def test_reference_shown_as_deepeval_shows_it(oracle):
    pytest.importorskip("deepeval")
    from deepeval.metrics import ArenaGEval
    from deepeval.models import GPTModel
    from deepeval.test_case import ArenaTestCase, Contestant, LLMTestCase, SingleTurnParams

    oracle.oracle.mode = "fair"
    query, a, b = SAMPLES[1]
    before = len(oracle.requests)
    model = GPTModel(model="gpt-4.1", base_url=oracle.base_url, api_key="scripted")
    params = [SingleTurnParams.INPUT, SingleTurnParams.ACTUAL_OUTPUT, SingleTurnParams.EXPECTED_OUTPUT]
    theirs = ArenaGEval(name="better", model=model, async_mode=False, evaluation_params=params,
                        evaluation_steps=STEPS).measure(ArenaTestCase(contestants=[
                            Contestant(name="A", test_case=LLMTestCase(input=query, actual_output=a,
                                                                       expected_output="Shakespeare")),
                            Contestant(name="B", test_case=LLMTestCase(input=query, actual_output=b,
                                                                       expected_output="Shakespeare"))]))
    middle = len(oracle.requests)
    ours = evalcore.get_metric("judge/pairwise", base_url=oracle.base_url, model="m", cache_mode="off",
                               evaluation_steps=STEPS, fields=["query", "response", "reference"]).score_one(
        {"query": query, "reference_answer": "Shakespeare"}, {"response": a, "response_b": b})
    assert ours.value == {"A": 1.0, "B": 0.0}[theirs]

    def shown(request):
        text = "\n".join(message_text(m) for m in request["json"]["messages"])
        found = json.loads(text.split("Contestants:\n", 1)[1].split("\n\nParameters:", 1)[0])
        return {k: v for k, v in found.items() if k != "arena_test_cases"}, \
            text.split("\n\nParameters:\n", 1)[1].split("\n", 1)[0]

    deepeval_case = shown(oracle.requests[before])  # the winner's request (the next rewrites the reason)
    assert deepeval_case == ({"input": query, "expected_output": "Shakespeare"},
                             "Input, Actual Output, and Expected Output")
    assert shown(oracle.requests[-1]) == deepeval_case and middle > before
