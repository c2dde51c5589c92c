"""evalcore.dspy.Evaluate against dspy.Evaluate on the same program, data and dummy LM (no network)."""

from __future__ import annotations

import json

import pytest

dspy = pytest.importorskip("dspy")

import evalcore  # noqa: E402
from dspy.utils import DummyLM  # noqa: E402
from evalcore._compat.dspy import RETURN_OUTPUTS_ERROR  # noqa: E402
from evalcore.dspy import Evaluate, as_program  # noqa: E402

QUESTIONS = {"capital of France": "Paris", "capital of Italy": "Rome", "capital of Spain": "Lisbon",
             "largest planet": "Jupiter", "red planet": "Venus"}
GOLD = {"capital of France": "Paris", "capital of Italy": "Rome", "capital of Spain": "Madrid",
        "largest planet": "Jupiter", "red planet": "Mars"}


@pytest.fixture
def lm():
    answers = {f"What is the {q}?": {"answer": a} for q, a in QUESTIONS.items()}
    with dspy.context(lm=DummyLM(answers)):
        yield


@pytest.fixture
def devset():
    return [dspy.Example(question=f"What is the {q}?", answer=a).with_inputs("question") for q, a in GOLD.items()]


class QA(dspy.Module):
    def __init__(self):
        super().__init__()
        self.predict = dspy.Predict("question -> answer")

    def forward(self, question):
        return self.predict(question=question)


def exact(example, prediction, trace=None):
    return example.answer == prediction.answer


def test_same_score_and_results_as_dspy_evaluate(lm, devset):
    program = QA()
    theirs = dspy.Evaluate(devset=devset, metric=exact, num_threads=2)(program)
    ours = Evaluate(devset=devset, metric=exact, num_threads=2)(program)
    assert ours.score == theirs.score == 60.0
    assert isinstance(ours, type(theirs))
    assert [(e, p.answer, s) for e, p, s in ours.results] == [(e, p.answer, s) for e, p, s in theirs.results]
    evaluator = Evaluate(devset=devset, metric=exact)
    evaluator(program)
    assert evaluator.report.metrics["local/score"].value == pytest.approx(0.6)  # evalcore's own report


def test_failures_score_failure_score_and_max_errors_cancel(lm, devset):
    def flaky(example, prediction, trace=None):
        if "Italy" in example.question:
            raise RuntimeError("metric broke")
        return exact(example, prediction)

    program = QA()
    theirs = dspy.Evaluate(devset=devset, metric=flaky, failure_score=0.5)(program)
    ours = Evaluate(devset=devset, metric=flaky, failure_score=0.5)(program)
    assert ours.score == theirs.score == 50.0
    failed = [r for r in ours.results if "Italy" in r[0].question][0]
    assert failed[2] == 0.5 and isinstance(failed[1], dspy.Prediction) and not failed[1].toDict()
    with pytest.raises(Exception, match="Execution cancelled"):
        dspy.Evaluate(devset=devset, metric=flaky, max_errors=1)(program)
    with pytest.raises(Exception, match="Execution cancelled"):
        Evaluate(devset=devset, metric=flaky, max_errors=1)(program)


def test_constructor_defaults_and_migration_error(devset):
    ours, theirs = Evaluate(devset=devset), dspy.Evaluate(devset=devset)
    for name in ("metric", "num_threads", "display_progress", "display_table", "max_errors", "provide_traceback",
                 "failure_score", "save_as_csv", "save_as_json"):
        assert getattr(ours, name) == getattr(theirs, name), name
    with pytest.raises(ValueError) as info:
        Evaluate(devset=devset, return_outputs=True)
    assert str(info.value) == RETURN_OUTPUTS_ERROR
    with pytest.raises(ValueError, match="empty devset"):
        Evaluate(devset=[], metric=exact)(QA())


def test_saved_json_equals_dspy(lm, devset, tmp_path):
    program = QA()
    dspy.Evaluate(devset=devset, metric=exact, save_as_json=str(tmp_path / "theirs.json"))(program)
    Evaluate(devset=devset, metric=exact, save_as_json=str(tmp_path / "ours.json"))(program)
    assert json.loads((tmp_path / "ours.json").read_text()) == json.loads((tmp_path / "theirs.json").read_text())


def test_evalcore_metrics_in_dspy_evaluate(lm, devset):
    em = evalcore.get_metric("overlap/exact_match") if "overlap/exact_match" in evalcore.metric_keys() else None
    if em is None:
        pytest.skip("evalcore-overlap is not installed")
    program = QA()
    assert Evaluate(devset=devset, metric=em)(program).score == dspy.Evaluate(devset=devset, metric=em)(program).score


def test_as_program_calls_a_module_with_its_inputs(lm):
    program = as_program(QA())
    assert program({"question": "What is the capital of France?", "answer": "Paris"}).answer == "Paris"
    with pytest.raises(evalcore.EvalcoreError, match="example.question"):
        program({"query": "What is the capital of France?"})
    records = [{"question": "What is the capital of France?", "reference_answer": "Paris"}]
    result = evalcore.evaluate(examples=records, program=as_program(QA()), metrics=[exact])
    assert result.metrics["local/exact"].value == 1.0


def test_evaluate_calls_a_dspy_module_with_its_inputs(lm):
    seen = []

    class Echo(dspy.Module):
        def forward(self, question):
            seen.append(question)
            return dspy.Prediction(answer="Paris")

    records = [{"question": "What is the capital of France?", "reference_answer": "Paris"}]
    evalcore.evaluate(examples=records, program=Echo(), metrics=[exact])
    assert seen == ["What is the capital of France?"]  # not the whole record, answer included
