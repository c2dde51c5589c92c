"""DSPy, exactly: evalcore's SemanticF1 and CompleteAndGrounded against DSPy's own classes on the same
scripted LM (``dspy.utils.DummyLM``), the LM DSPy is configured with where a judge is called, and
the Auepora RAG metric spec's LLMCritic written as its abstract class.

Every expected value is DSPy's own: the same scripted answers go to DSPy's metric and to
evalcore's, and the requests the LM receives and the results must be equal."""

from __future__ import annotations

import copy
import json
import sys
import textwrap

import evalcore
import pytest
from evalcore.testing import run_evalcore

dspy = pytest.importorskip("dspy")
from dspy.evaluate import auto_evaluation  # noqa: E402
from dspy.utils import DummyLM  # noqa: E402
from evalcore_judge.dspy import CompleteAndGrounded, SemanticF1  # noqa: E402

EXAMPLE = dspy.Example(question="Who wrote Hamlet?", response="Shakespeare wrote Hamlet around 1600.")
PREDICTION = dspy.Prediction(response="William Shakespeare.", context="Hamlet is a tragedy by William Shakespeare.")

SEMANTIC = {"reasoning": "Names the author but not the date.", "precision": 1.0, "recall": 0.5}
DECOMPOSED = {"reasoning": "Two ideas against one.", "ground_truth_key_ideas": "1. Shakespeare 2. about 1600",
              "system_response_key_ideas": "1. Shakespeare", "discussion": "The date is missing.",
              "recall": 0.5, "precision": 1.0}
COMPLETENESS = {"reasoning": "Half of it.", "ground_truth_key_ideas": "1. Shakespeare 2. about 1600",
                "system_response_key_ideas": "1. Shakespeare", "discussion": "The date is missing.",
                "completeness": 0.5}
GROUNDEDNESS = {"reasoning": "Supported.", "system_response_claims": "Shakespeare wrote Hamlet.",
                "discussion": "The context names him.", "groundedness": 0.9}


@pytest.fixture(autouse=True)
def dspy_defaults(monkeypatch):
    """No evalcore judge settings from the environment; DSPy's default settings after each test."""
    from dspy.dsp.utils.settings import DEFAULT_CONFIG

    for name in ("BACKEND", "BASE_URL", "MODEL", "CALLABLE", "API_KEY_ENV"):
        monkeypatch.delenv(f"EVALCORE_JUDGE_{name}", raising=False)
    for name in ("OPENAI_BASE_URL", "EVALCORE_CACHE_MODE"):
        monkeypatch.delenv(name, raising=False)
    yield
    dspy.configure(**copy.deepcopy(DEFAULT_CONFIG))


def both(make_dspy, make_evalcore, answers, *args):
    """DSPy's metric and evalcore's, each called as DSPy calls a metric on its own DummyLM with the
    same answers: ``(dspy's result, evalcore's result, dspy's LM, evalcore's LM)``."""
    theirs, ours = DummyLM(copy.deepcopy(answers)), DummyLM(copy.deepcopy(answers))
    with dspy.context(lm=theirs):
        expected = make_dspy()(EXAMPLE, PREDICTION, *args)
    with dspy.context(lm=ours):
        got = make_evalcore()(EXAMPLE, PREDICTION, *args)
    return expected, got, theirs, ours


CASES = {
    "semantic_f1": (auto_evaluation.SemanticF1, SemanticF1, [SEMANTIC]),
    "semantic_f1_clamped": (auto_evaluation.SemanticF1, SemanticF1, [{**SEMANTIC, "recall": 1.4}]),
    "decompositional": (lambda: auto_evaluation.SemanticF1(decompositional=True),
                        lambda: SemanticF1(decompositional=True), [DECOMPOSED]),
    "complete_and_grounded": (auto_evaluation.CompleteAndGrounded, CompleteAndGrounded, [COMPLETENESS, GROUNDEDNESS]),
}


@pytest.mark.parametrize("trace", [(), (None,), ([],)], ids=["no_trace", "trace_none", "trace"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_same_requests_and_same_result_as_dspy(case, trace):
    make_dspy, make_evalcore, answers = CASES[case]
    expected, got, theirs, ours = both(make_dspy, make_evalcore, answers, *trace)
    assert isinstance(got, dspy.Prediction) and type(got.score) is type(expected.score)
    assert got.score == expected.score  # the same float (or, with a trace, the same bool)
    # the LM got exactly DSPy's requests, in DSPy's order
    assert [h["messages"] for h in ours.history] == [h["messages"] for h in theirs.history]
    assert len(ours.history) == len(answers)


def test_threshold_binarises_as_dspy_does():
    # F1(1.0, 0.5) = 2/3 = 0.666...: passes DSPy's default 0.66, fails 0.7
    for threshold in (0.66, 0.7):
        expected, got, _, _ = both(lambda t=threshold: auto_evaluation.SemanticF1(threshold=t),
                                   lambda t=threshold: SemanticF1(threshold=t), [SEMANTIC], True)
        assert got.score is expected.score is (threshold == 0.66)


def test_feedback_is_the_judges_reasoning():
    with dspy.context(lm=DummyLM([SEMANTIC])):
        got = SemanticF1()(EXAMPLE, PREDICTION)
    assert got.feedback == SEMANTIC["reasoning"]


def test_complete_and_grounded_asks_in_dspys_order_and_keeps_both_halves():
    metric = CompleteAndGrounded()
    with dspy.context(lm=DummyLM([COMPLETENESS, GROUNDEDNESS])):
        graded = metric.feedback(EXAMPLE, PREDICTION)  # the score with its details
    assert graded.details["completeness"] == 0.5 and graded.details["groundedness"] == 0.9
    assert graded.score == pytest.approx(2 * 0.5 * 0.9 / 1.4)  # DSPy's f1_score(groundedness, completeness)


def test_the_lm_is_the_one_configured_where_the_judge_is_called():
    metric = SemanticF1()  # made before DSPy has an LM, as DSPy's own metric can be
    first, second = DummyLM([SEMANTIC]), DummyLM([{**SEMANTIC, "recall": 1.0}])
    with dspy.context(lm=first):
        assert metric(EXAMPLE, PREDICTION).score == pytest.approx(2 / 3)
    dspy.configure(lm=second)
    assert metric(EXAMPLE, PREDICTION).score == 1.0
    assert len(first.history) == len(second.history) == 1


def test_without_an_lm_the_call_says_so():
    with pytest.raises(evalcore.ScoringError, match=r"dspy.configure\(lm=...\)"):
        SemanticF1()(EXAMPLE, PREDICTION)


def test_nothing_configured_but_dspy_judges_with_dspys_lm():
    with dspy.context(lm=DummyLM([SEMANTIC])):
        metric = evalcore.get_metric("judge/semantic_f1")
        assert metric.critic.backend.name == "dspy"
        assert metric(EXAMPLE, PREDICTION).score == pytest.approx(2 / 3)


def test_plain_records_keep_evalcores_calling_convention():
    records = ({"query": "Who wrote Hamlet?", "reference_answer": "Shakespeare."}, {"response": "Shakespeare."})
    with dspy.context(lm=DummyLM([SEMANTIC, SEMANTIC])):
        metric = SemanticF1()
        assert metric(*records) == pytest.approx(2 / 3)
        assert metric(*records, trace=[]) is True


def test_the_engine_still_gets_a_score():
    records = [{"id": str(i), "example": {"query": q, "reference_answer": "Shakespeare."},
                "prediction": {"response": "Shakespeare."}} for i, q in enumerate(["Who wrote Hamlet?", "Who?"])]
    # answers by question (DummyLM's dictionary mode), so the order the engine asks in does not matter
    lm = DummyLM({"Who wrote Hamlet?": SEMANTIC, "Who?": {**SEMANTIC, "recall": 1.0}})
    with dspy.context(lm=lm):
        result = evalcore.evaluate(records, [SemanticF1()])
    rows = {row["id"]: row["scores"]["judge/semantic_f1"] for row in result.samples}
    assert rows["0"]["value"] == pytest.approx(2 / 3) and rows["1"]["value"] == 1.0
    assert result.metrics["judge/semantic_f1"].value == pytest.approx((2 / 3 + 1.0) / 2)


def test_evalcores_cache_only_when_asked(tmp_path):
    def calls(**params):
        lm = DummyLM([SEMANTIC, SEMANTIC])
        with dspy.context(lm=lm):
            metric = SemanticF1(cache_dir=str(tmp_path), **params)
            metric(EXAMPLE, PREDICTION)
            metric(EXAMPLE, PREDICTION)
        return len(lm.history)

    assert calls() == 2  # DSPy's LM caches for itself; evalcore adds nothing by default
    assert calls(cache_mode="readwrite") == 1


# -- the Auepora RAG metric spec's LLMCritic, written exactly as its abstract class -------------

SPEC_CRITIC = textwrap.dedent('''
    from abc import ABC, abstractmethod
    from typing import Any, Dict


    class LLMCritic(ABC):
        @abstractmethod
        def score(self, *, prompt: str, metadata: Dict[str, Any] | None = None) -> float:
            """Return a numeric score (typically in [0, 1] or [1, 5]) for the given prompt."""
            raise NotImplementedError


    class ThreeQuarters(LLMCritic):
        def score(self, *, prompt: str, metadata: Dict[str, Any] | None = None) -> float:
            return 0.75


    critic = ThreeQuarters()
''')
RAG_RECORD = {"id": "1", "example": {"query": "Who wrote Hamlet?", "reference_answer": "Shakespeare."},
              "prediction": {"response": "Shakespeare.",
                             "retrieved": [{"doc_id": "d1", "text": "Hamlet is by Shakespeare."}]}}


@pytest.fixture
def spec_critic(tmp_path, monkeypatch):
    (tmp_path / "spec_critic.py").write_text(SPEC_CRITIC, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    sys.modules.pop("spec_critic", None)


@pytest.mark.parametrize("target", ["critic", "ThreeQuarters"])
def test_spec_critic_through_the_cli(spec_critic, target):
    data = spec_critic / "data.jsonl"
    data.write_text(json.dumps(RAG_RECORD) + "\n", encoding="utf-8")
    proc = run_evalcore("evaluate", str(data), "-m", "judge/faithfulness", "--cache-mode", "off", "--json",
                        "--no-progress", "--allow-code", env={"EVALCORE_JUDGE_CALLABLE": f"spec_critic:{target}",
                                              "PYTHONPATH": str(spec_critic)})
    report = json.loads(proc.stdout)
    faithfulness = report["metrics"]["judge/faithfulness"]
    assert faithfulness["value"] == 0.75 and faithfulness["n"] == 1 and faithfulness["n_errors"] == 0


def test_spec_critic_through_evaluate(spec_critic):
    import spec_critic as module

    result = evalcore.evaluate([RAG_RECORD], ["judge/faithfulness", "judge/semantic_f1"],
                               judge={"judge": module.critic}, cache_mode="off")
    assert result.metrics["judge/faithfulness"].value == 0.75
    assert result.metrics["judge/semantic_f1"].value == pytest.approx(0.75)  # F1(0.75, 0.75)
