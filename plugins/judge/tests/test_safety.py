"""Toxicity and bias against DeepEval's ToxicityMetric and BiasMetric.

DeepEval (its own OpenAI model class) and evalcore call one scripted OpenAI-compatible server on
127.0.0.1 that answers the same verdicts for the same texts:

* opinions: the sentences of the response with the word ``think``;
* toxic: an opinion with the word ``stupid``; biased: one with ``always``;
* an opinion with ``unjudged`` gets no verdict (both count only the verdicts returned).

DeepEval 4 scores the share of ``no`` verdicts (1 without any); evalcore, as DeepEval 3 did, the
share of ``yes`` (0 without any). So evalcore's value equals the share of ``yes`` among the
verdicts DeepEval parsed, exactly, and 1 - DeepEval 4's score up to float rounding.
"""

from __future__ import annotations

import ast
import importlib.resources
import json
import re

import evalcore
import pytest
from chat_messages import after_last, message_text
from evalcore.testing import Reply, ScriptedServer, run_evalcore, write_records
from evalcore_judge.safety import BIAS_RUBRIC, BIAS_VERDICTS, TOXICITY_RUBRIC, TOXICITY_VERDICTS, flagged_fraction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

USAGE = {"prompt_tokens": 10, "completion_tokens": 5}
METRICS = {"judge/toxicity": ("ToxicityMetric", "stupid"), "judge/bias": ("BiasMetric", "always")}


def opinions(text):
    return [s for s in re.split(r"(?<=\.)\s+", text.strip()) if "think" in s]


def oracle(request):
    text = "\n".join(message_text(m) for m in request["messages"])
    if "generate a list of OPINIONS" in text:
        end = "\n\nJSON:" if text.rstrip().endswith("JSON:") else "\n\nList the opinions."
        return Reply.chat(json.dumps({"opinions": opinions(after_last(text, "Text:\n", end))}), usage=USAGE)
    word = "stupid" if "RUBRIC FOR TOXICITY" in text else "always" if "RUBRIC FOR BIAS" in text else None
    assert word, f"unknown task: {text[:200]}"
    if text.rstrip().endswith("JSON:"):  # DeepEval: the opinions as a Python list
        listed = ast.literal_eval(after_last(text, "Opinions:\n", "\n\nJSON:"))
    else:
        listed = [line.split(". ", 1)[1] for line in after_last(text, "Opinions:\n", "\n\nGive a verdict").splitlines()]
    verdicts = [{"reason": "oracle", "verdict": "yes" if word in o else "no"} for o in listed if "unjudged" not in o]
    return Reply.chat(json.dumps({"verdicts": verdicts}), usage=USAGE)


@pytest.fixture(scope="module")
def oracle_server():
    with ScriptedServer(oracle, max_requests=100_000) as server:
        yield server


def deepeval_metric(server, metric_id, response):
    """DeepEval's metric object after measuring ``response`` (its score, verdicts and opinions)."""
    deepeval = pytest.importorskip("deepeval")
    from deepeval.models import GPTModel
    from deepeval.test_case import LLMTestCase

    model = GPTModel(model="gpt-4.1", base_url=server.base_url, api_key="scripted")
    metric = getattr(deepeval.metrics, METRICS[metric_id][0])(model=model, include_reason=False, async_mode=False)
    metric.measure(LLMTestCase(input="q?", actual_output=response))
    return metric


def evalcore_score(server, metric_id, response):
    metric = evalcore.get_metric(metric_id, base_url=server.base_url, model="m", cache_mode="off")
    return metric.score_one({"query": "q?"}, {"response": response})


def assert_same(ours, theirs):
    """evalcore's value is the share of yes among DeepEval's verdicts, and 1 - DeepEval 4's score."""
    verdicts = [v.verdict.value for v in theirs.verdicts]
    assert ours.value == (sum(1 for v in verdicts if v == "yes") / len(verdicts) if verdicts else 0.0)
    assert ours.value == pytest.approx(1 - theirs.score, abs=1e-15)
    assert ours.details["opinions"] == theirs.opinions
    assert [r["verdict"] for r in ours.details["verdicts"]] == verdicts


RESPONSES = {
    "mixed": "I think that is stupid. Paris is in France. I think cats always lie. I think tea is fine.",
    "clean": "I think the plan is fine. It rains in autumn.",
    "flagged throughout": "I think you are stupid and always wrong. I think stupid people always vote.",
    "no opinion": "Water boils at 100 degrees. The sky is blue.",
    "a verdict missing": "I think it is stupid. I think this is unjudged. I think all is fine.",
}


@pytest.mark.parametrize("metric_id", list(METRICS))
@pytest.mark.parametrize("case", list(RESPONSES))
def test_same_number_as_deepeval(oracle_server, metric_id, case):
    response = RESPONSES[case]
    before = len(oracle_server.requests)
    theirs = deepeval_metric(oracle_server, metric_id, response)
    their_calls = len(oracle_server.requests) - before
    before = len(oracle_server.requests)
    ours = evalcore_score(oracle_server, metric_id, response)
    assert len(oracle_server.requests) - before == their_calls == (2 if opinions(response) else 1)
    assert_same(ours, theirs)


def test_hand_worked_values(oracle_server):
    """By hand from the oracle's rules: "mixed" has 3 opinions, one toxic (stupid), one biased
    (always); "a verdict missing" has 3 opinions and 2 verdicts, one toxic."""
    assert evalcore_score(oracle_server, "judge/toxicity", RESPONSES["mixed"]).value == 1 / 3
    assert evalcore_score(oracle_server, "judge/bias", RESPONSES["mixed"]).value == 1 / 3
    assert evalcore_score(oracle_server, "judge/bias", RESPONSES["flagged throughout"]).value == 1.0
    missing = evalcore_score(oracle_server, "judge/toxicity", RESPONSES["a verdict missing"])
    assert missing.value == 1 / 2 and missing.details["total"] == 2 and len(missing.details["opinions"]) == 3
    none = evalcore_score(oracle_server, "judge/toxicity", RESPONSES["no opinion"])
    assert none.value == 0.0 and none.details["total"] == 0 and "no opinion" in none.feedback


SENTENCE = st.builds(lambda a, b, c: f"{a} {b} {c}.", st.sampled_from(["I think", "Maybe", "They say"]),
                     st.sampled_from(["cats", "stupid people", "cities", "it"]),
                     st.sampled_from(["always win", "are fine", "are unjudged", "rest"]))


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(st.lists(SENTENCE, min_size=1, max_size=5), st.sampled_from(list(METRICS)))
def test_generated_responses_same_number_as_deepeval(oracle_server, sentences, metric_id):
    response = " ".join(sentences)
    assert_same(evalcore_score(oracle_server, metric_id, response), deepeval_metric(oracle_server, metric_id, response))


@given(st.lists(st.sampled_from(["yes", "no"]), max_size=12))
def test_flagged_fraction_is_one_minus_deepeval(verdicts):
    pytest.importorskip("deepeval")
    from deepeval.metrics.base_metric import Verdict
    from deepeval.metrics.toxicity.schema import ToxicityVerdict
    from deepeval.metrics.utils.qag import score_qag_verdicts

    metric = type("Metric", (), {"strict_mode": False, "threshold": 0.5})()
    theirs = score_qag_verdicts(metric, [ToxicityVerdict(verdict=v) for v in verdicts], passing=(Verdict.NO,))
    assert flagged_fraction(verdicts) == pytest.approx(1 - theirs, abs=1e-15)


def test_prompts_quote_deepevals_rubrics():
    pytest.importorskip("deepeval")
    for name, rubric, template in (("toxicity", TOXICITY_RUBRIC, TOXICITY_VERDICTS),
                                   ("bias", BIAS_RUBRIC, BIAS_VERDICTS)):
        prompt = importlib.resources.files(f"deepeval.metrics.{name}").joinpath("templates/generate_verdicts.txt")
        assert rubric in prompt.read_text(encoding="utf-8")
        assert f"RUBRIC FOR {name.upper()}:\n{rubric}\n" in template.render(opinions="1. x")[0]["content"]


# -- with a callable judge -----------------------------------------------------------------------------


def scripted_judge(found, verdicts, calls):
    def judge(prompt, metadata):
        calls.append(metadata["role"])
        if metadata["role"] == "opinions":
            return json.dumps({"opinions": found})
        return json.dumps({"verdicts": [{"reason": "r", "verdict": v} for v in verdicts]})
    return judge


@pytest.mark.parametrize("metric_id", list(METRICS))
@pytest.mark.parametrize(("found", "verdicts", "expected", "calls"), [
    (["a", "b", "c"], ["yes", "no", "yes"], 2 / 3, 2),
    (["a"], ["no"], 0.0, 2),
    (["a", "b"], ["yes", "yes"], 1.0, 2),
    ([], [], 0.0, 1),  # no opinion: 0 after the extraction (DeepEval 4: 1, the complement)
])
def test_hand_worked_with_a_callable_judge(metric_id, found, verdicts, expected, calls):
    made = []
    score = evalcore.get_metric(metric_id, judge=scripted_judge(found, verdicts, made), cache_mode="off") \
        .score_one({}, {"response": "Some text."})
    assert score.value == expected and len(made) == calls


@pytest.mark.parametrize("metric_id", list(METRICS))
def test_blank_response_scores_0_without_a_call(metric_id):
    made = []
    metric = evalcore.get_metric(metric_id, judge=scripted_judge(["x"], ["yes"], made), cache_mode="off")
    score = metric.score_one({}, {"response": "  "})
    assert score.status == "ok" and score.value == 0.0 and made == []
    assert metric.estimate({}, {"response": "  "})["calls"] == 0
    assert metric.estimate({}, {"response": "I think so."})["calls"] == 2


def test_specs_say_lower_is_better():
    for metric_id in METRICS:
        spec = evalcore.get_metric(metric_id, judge=scripted_judge([], [], [])).spec
        assert spec.direction.value == "lower" and "DeepEval" in spec.description


# -- through the command line ----------------------------------------------------------------------------


def test_cli_same_number_as_deepeval(oracle_server, tmp_path):
    records = [{"id": case, "example": {"query": "q?"}, "prediction": {"response": response}}
               for case, response in RESPONSES.items()]
    path = write_records(tmp_path / "records.jsonl", records)
    run_evalcore("evaluate", str(path), "-m", "judge/toxicity", "-m", "judge/bias",
                 "--judge-base-url", oracle_server.base_url, "--judge-model", "m",
                 "--cache-dir", str(tmp_path / "cache"), "--json", "--samples", str(tmp_path / "rows.jsonl"))
    rows = {row["id"]: row["scores"] for row in map(json.loads, (tmp_path / "rows.jsonl").read_text().splitlines())
            if "scores" in row}
    for case, response in RESPONSES.items():
        for metric_id in METRICS:
            theirs = deepeval_metric(oracle_server, metric_id, response)
            assert rows[case][metric_id]["value"] == pytest.approx(1 - theirs.score, abs=1e-15)
