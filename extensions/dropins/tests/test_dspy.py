"""evalcore.dspy.Evaluate against dspy.Evaluate on the same program, data and dummy LM (no network)."""

from __future__ import annotations

import _thread
import asyncio
import json
import logging
import threading
import time

import pytest

dspy = pytest.importorskip("dspy")

import evalcore  # noqa: E402
from dspy.utils import DummyLM  # noqa: E402
from dspy.utils.callback import BaseCallback  # noqa: E402
from evalcore.dspy import Evaluate, as_program  # noqa: E402
from evalcore_dropins.dspy import RETURN_OUTPUTS_ERROR  # noqa: E402

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


# -- under faults: each outcome compared with dspy.Evaluate's on the same program --------------------

EVALUATES = pytest.mark.parametrize("evaluate_class", [dspy.Evaluate, Evaluate], ids=["dspy", "evalcore"])


class Counting:
    """A program that counts its calls, each taking ``sleep_s``, and raises ``error`` (an exception class,
    ``KeyboardInterrupt`` included) from call ``from_call`` on; call ``ctrl_c_at`` presses Ctrl-C (a SIGINT
    handled in the main thread, which waits for the workers)."""

    def __init__(self, error: type[BaseException] | None = None, from_call: int = 1, sleep_s: float = 0.0,
                 ctrl_c_at: int | None = None):
        self.calls = 0
        self.lock = threading.Lock()
        self.error, self.from_call, self.sleep_s, self.ctrl_c_at = error, from_call, sleep_s, ctrl_c_at

    def __call__(self, question):
        with self.lock:
            self.calls += 1
            call = self.calls
        if call == self.ctrl_c_at:
            _thread.interrupt_main()
        time.sleep(self.sleep_s)
        if self.error is not None and call >= self.from_call:
            raise self.error("program broke")
        return dspy.Prediction(answer="Paris")


def numbered(n):
    return [dspy.Example(question=f"q{i}", answer="Paris").with_inputs("question") for i in range(n)]


@pytest.fixture
def dspy_log():
    """The records DSPy's executor logs (its logger does not propagate to the root one)."""
    records = []
    handler = logging.Handler()
    handler.emit = records.append
    logger = logging.getLogger("dspy.utils.parallelizer")
    disabled, logger.disabled = logger.disabled, False  # a logging.config call of an earlier test may disable it
    logger.addHandler(handler)
    yield records
    logger.removeHandler(handler)
    logger.disabled = disabled


@EVALUATES
def test_max_errors_cancels_outstanding_work_and_raises(evaluate_class):
    # one thread: DSPy's executor stops at the error that reaches max_errors, so exactly 3 calls
    program = Counting(RuntimeError)
    with pytest.raises(Exception, match="Execution cancelled due to errors or interruption"):
        evaluate_class(devset=numbered(50), metric=exact, max_errors=3, num_threads=1)(program)
    assert program.calls == 3
    # max_errors defaults to dspy.settings.max_errors
    program = Counting(RuntimeError)
    with dspy.context(max_errors=2), pytest.raises(Exception, match="Execution cancelled"):
        evaluate_class(devset=numbered(50), metric=exact, num_threads=1)(program)
    assert program.calls == 2
    # four threads: at most the calls already started when the limit was reached finish
    program = Counting(RuntimeError, sleep_s=0.01)
    with pytest.raises(Exception, match="Execution cancelled"):
        evaluate_class(devset=numbered(50), metric=exact, max_errors=3, num_threads=4)(program)
    assert 3 <= program.calls <= 3 + 3
    time.sleep(0.05)  # the calls already started finish (and log) within this test


@EVALUATES
def test_a_program_interrupted_raises_keyboard_interrupt_and_no_score(evaluate_class):
    ended = []

    class Ends(BaseCallback):
        def on_evaluate_end(self, call_id, outputs, exception=None):
            ended.append((outputs, exception))

    with dspy.context(callbacks=[Ends()]), pytest.raises(KeyboardInterrupt):
        evaluate_class(devset=numbered(20), metric=exact, num_threads=4)(Counting(KeyboardInterrupt, from_call=6))
    [(outputs, exception)] = ended
    assert outputs is None and isinstance(exception, KeyboardInterrupt)


@EVALUATES
def test_ctrl_c_cancels_what_has_not_started_and_raises(evaluate_class):
    program = Counting(sleep_s=0.05, ctrl_c_at=5)
    with pytest.raises(KeyboardInterrupt):
        evaluate_class(devset=numbered(20), metric=exact, num_threads=2)(program)
    assert program.calls < 20


@EVALUATES
def test_one_thread_runs_on_the_calling_thread(evaluate_class, lm, devset):
    threads = []

    def metric(example, prediction, trace=None):
        threads.append(threading.current_thread())
        return exact(example, prediction)

    scores, dummy = [], dspy.settings.lm

    def call():  # from a thread other than the main one, which runs everything there
        threads.append(threading.current_thread())
        with dspy.context(lm=dummy):
            scores.append(evaluate_class(devset=devset, metric=metric, num_threads=1)(QA()).score)

    caller = threading.Thread(target=call)
    caller.start()
    caller.join()
    assert scores == [60.0]
    assert len(threads) == 1 + len(devset) and set(threads) == {caller}


@EVALUATES
def test_provide_traceback_none_follows_dspy_settings(evaluate_class, dspy_log):
    for setting in (True, False):
        dspy_log.clear()
        with dspy.context(provide_traceback=setting):
            evaluate_class(devset=numbered(1), metric=exact, provide_traceback=None)(Counting(RuntimeError))
        [record] = dspy_log
        assert ("Traceback (most recent call last)" in record.getMessage()) is setting
        assert ("Set `provide_traceback=True`" in record.getMessage()) is not setting


def test_failures_are_errors_in_evalcores_report(lm, devset):
    def flaky(example, prediction, trace=None):
        if "Italy" in example.question:
            raise RuntimeError("metric broke")
        return exact(example, prediction)

    evaluator = Evaluate(devset=devset, metric=flaky, failure_score=0.5)
    # by hand: France 1, Italy fails (0.5), Spain 0 (Lisbon), Jupiter 1, Mars 0 (Venus): 2.5 / 5
    assert evaluator(QA()).score == 50.0
    summary = evaluator.report.metrics["local/score"]
    assert summary.n_errors == 1 and summary.value == pytest.approx(0.5)


def test_run_options_that_dspys_executor_lacks_are_refused(devset):
    with pytest.raises(evalcore.EvalcoreError, match="'timeout_s'"):
        Evaluate(devset=devset, metric=exact, timeout_s=5)


def test_dspy_context_reaches_callable_metrics_and_programs_in_evaluate(devset):
    dummy = DummyLM([{"answer": "Paris"}])
    seen = []

    def metric(gold, pred, trace=None):
        seen.append(dspy.settings.lm is dummy)
        return 1.0

    def program(record):
        seen.append(dspy.settings.lm is dummy)
        return {"response": "Paris"}

    records = [{"question": "q", "reference_answer": "Paris"}] * 3
    with dspy.context(lm=dummy):
        evalcore.evaluate(examples=records, predictions=[{"response": "Paris"}] * 3, metrics=[metric])
        evalcore.evaluate(examples=records, predictions=[{"response": "Paris"}] * 3, metrics=[metric], timeout_s=5)
        evalcore.evaluate(examples=records, program=program, metrics=[metric])

        async def in_a_notebook():  # evaluate called inside a running event loop runs on a thread of its own
            return evalcore.evaluate(examples=records, program=program, metrics=[metric])

        asyncio.run(in_a_notebook())
    assert seen == [True] * 18
