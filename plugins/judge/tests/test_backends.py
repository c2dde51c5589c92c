"""Judge backends beside the OpenAI-compatible client: an LLMCritic object, LiteLLM, DSPy's LM."""

from __future__ import annotations

import evalcore
import pytest
from evalcore.testing import Reply

EXAMPLE = {"query": "Who wrote Hamlet?", "reference_answer": "Shakespeare wrote it.",
           "relevant_docs": [{"doc_id": "r", "text": "Hamlet is a tragedy by William Shakespeare."}]}
PREDICTION = {"response": "William Shakespeare.", "retrieved": [{"doc_id": "r", "text": "Hamlet is by Shakespeare."}]}


class FixedCritic:
    """The RAG metric spec's LLMCritic: ``score(*, prompt, metadata) -> float``."""

    def __init__(self, value):
        self.value = value
        self.prompts = []

    def score(self, *, prompt, metadata=None):
        self.prompts.append((prompt, metadata))
        return self.value


class AsyncCritic(FixedCritic):
    async def ascore(self, *, prompt, metadata=None):
        self.prompts.append((prompt, metadata))
        return self.value


@pytest.mark.parametrize("critic_class", [FixedCritic, AsyncCritic])
def test_llm_critic_object_is_accepted_as_the_judge(critic_class, tmp_path):
    critic = critic_class(0.8)
    faithfulness = evalcore.get_metric("judge/faithfulness", judge=critic, cache_dir=str(tmp_path))
    score = faithfulness.score_one(EXAMPLE, PREDICTION)
    assert score.ok and score.value == 0.8 and score.details["backend"] == "critic"
    prompt, metadata = critic.prompts[0]
    assert "Hamlet is by Shakespeare." in prompt and metadata["metric"] == "judge/faithfulness"
    # the one number stands for every field a metric asks: SemanticF1 = F1(0.8, 0.8)
    semantic = evalcore.get_metric("judge/semantic_f1", judge=critic, cache="off").score_one(EXAMPLE, PREDICTION)
    assert semantic.value == pytest.approx(0.8)
    # a 1-5 critic on the metric's scale
    five = evalcore.get_metric("judge/llm_judge", judge=critic_class(4), scale="1-5", cache="off")
    assert five.score_one(EXAMPLE, PREDICTION).value == pytest.approx(0.75)


def test_llm_critic_returning_a_non_number_is_an_error_result():
    metric = evalcore.get_metric("judge/faithfulness", judge=FixedCritic("good"), cache="off")
    score = metric.score_one(EXAMPLE, PREDICTION)
    assert score.error_type == "TypeError" and "LLMCritic returns a float" in score.error_message


def test_litellm_model_string_through_the_scripted_server(server, tmp_path, monkeypatch):
    pytest.importorskip("litellm")
    monkeypatch.setenv("LITELLM_KEY", "sk-lite")
    server.script(Reply.chat('{"score": 0.5, "explanation": "half"}',
                             usage={"prompt_tokens": 100, "completion_tokens": 20}))
    metric = evalcore.get_metric("judge/faithfulness", backend="litellm", model="openai/judge-model",
                                 base_url=server.base_url, api_key_env="LITELLM_KEY", max_retries=0,
                                 cache_dir=str(tmp_path), prices={"openai/judge-model": (1000, 5000)})
    score = metric.score_one(EXAMPLE, PREDICTION)
    assert score.ok and score.value == 0.5 and score.feedback == "half"
    assert score.cost_msats == 200 and score.details["backend"] == "litellm"
    request = server.requests[0]
    assert request["json"]["model"] == "judge-model" and request["json"]["temperature"] == 0.0
    assert request["headers"]["authorization"] == "Bearer sk-lite"
    # the cache answers the second time, through this backend too
    again = evalcore.get_metric("judge/faithfulness", backend="litellm", model="openai/judge-model",
                                base_url=server.base_url, cache_dir=str(tmp_path)).score_one(EXAMPLE, PREDICTION)
    assert again.value == 0.5 and again.details["cache"]["hits"] == 1 and len(server.requests) == 1


def test_litellm_needs_a_model_string():
    with pytest.raises(evalcore.SetupError, match=r"judge/faithfulness: parameter 'model': .*LiteLLM model string"):
        evalcore.get_metric("judge/faithfulness", backend="litellm")


@pytest.fixture
def no_judge_settings(monkeypatch):
    for name in ("BACKEND", "BASE_URL", "MODEL", "CALLABLE", "API_KEY_ENV"):
        monkeypatch.delenv(f"EVALCORE_JUDGE_{name}", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def test_judges_on_the_lm_dspy_is_configured_with(server, no_judge_settings):
    dspy = pytest.importorskip("dspy")
    # DSPy's SemanticF1 signature, answered in DSPy's chat format
    server.default = lambda request: Reply.chat("[[ ## reasoning ## ]]\nmisses nothing\n\n[[ ## recall ## ]]\n1\n\n"
                                                "[[ ## precision ## ]]\n0.5\n\n[[ ## completed ## ]]")
    lm = dspy.LM("openai/judge-model", api_base=server.base_url, api_key="k", cache=False, num_retries=0)
    # DSPy's SemanticF1 reads example.question, example.response and pred.response
    example = dspy.Example(question="Who wrote Hamlet?", response="Shakespeare wrote it.")
    prediction = dspy.Prediction(response="William Shakespeare.")
    with dspy.context(lm=lm):
        metric = evalcore.get_metric("judge/semantic_f1", cache="off")  # nothing else set: DSPy's LM
        assert metric.critic.backend.name == "dspy"
        assert metric(example, prediction).score == pytest.approx(2 * 0.5 / 1.5)  # dspy.Prediction, as DSPy's
        # GEPA's five-argument call gets the judge's explanation as feedback
        graded = metric(example, prediction, None, "predict", None)
    assert isinstance(graded, dspy.Prediction) and graded.feedback == "misses nothing"
    assert graded.score == pytest.approx(2 * 0.5 / 1.5)
    prompt = server.requests[0]["json"]["messages"][-1]["content"]
    assert "Who wrote Hamlet?" in prompt and "Shakespeare wrote it." in prompt
    assert server.requests[0]["json"]["model"] == "judge-model"


def test_complete_and_grounded_reads_dspy_context(server, no_judge_settings):
    dspy = pytest.importorskip("dspy")
    server.default = lambda request: Reply.chat('{"completeness": 1, "groundedness": 1}')
    lm = dspy.LM("openai/judge-model", api_base=server.base_url, api_key="k", cache=False, num_retries=0)
    example = dspy.Example(question="Who wrote Hamlet?", response="Shakespeare wrote it.")
    prediction = dspy.Prediction(response="Shakespeare.", context="Hamlet is a play by William Shakespeare.")
    with dspy.context(lm=lm):
        metric = evalcore.get_metric("judge/complete_and_grounded", judge="dspy", cache="off")
        assert metric(example, prediction).score == 1.0
    prompts = [r["json"]["messages"][-1]["content"] for r in server.requests]
    assert any("Hamlet is a play by William Shakespeare." in p for p in prompts)


def test_judge_dspy_without_a_configured_lm(no_judge_settings):
    dspy = pytest.importorskip("dspy")
    with dspy.context(lm=None):  # made before DSPy is configured, as DSPy's own metrics can be
        metric = evalcore.get_metric("judge/faithfulness", judge="dspy")
        score = metric.score_one(EXAMPLE, PREDICTION)
    assert score.error_type == "DSPyNotConfigured" and "dspy.configure(lm=...)" in score.error_message
