"""Truth metrics that run a command: ``sandbox``, ``test_pass`` and ``verification_delta``."""

from __future__ import annotations

import os
from typing import Any

from evalcore import ParameterError
from evalcore.plugin import InputError, Record, SampleMetric, Score

from .process import CommandResult, as_argv, run_command
from .test_output import passed_count


class _CommandMetric(SampleMetric):
    """Runs the configured command once per sample (in ``prediction.workdir`` when given)."""

    def setup(self) -> None:
        try:
            self.argv = as_argv(self.params["command"])
        except ValueError as exc:
            raise ParameterError(f"parameter 'command' of {self.spec.key}: {exc}") from None

    def run(self, prediction: Record) -> CommandResult:
        cwd = prediction.get("workdir", self.params["cwd"])
        if cwd is not None and not (isinstance(cwd, (str, os.PathLike)) and os.path.isdir(cwd)):
            raise InputError(f"not a directory: {cwd!r}", field="prediction.workdir")
        return run_command(
            self.argv, timeout_s=self.params["timeout_s"], cwd=cwd,
            max_output_bytes=self.params["max_output_bytes"],
        )

    def details(self, result: CommandResult, **extra: Any) -> dict[str, Any]:
        return {**result.details(self.params["output_tail_chars"]), **extra}


class Sandbox(_CommandMetric):
    """1.0 when the command exits with the expected code, else 0.0."""

    def score(self, example: Record, prediction: Record) -> Score:
        result = self.run(prediction)
        expected = self.params["expected_exit_code"]
        ok = result.returncode == expected
        feedback = None if ok else f"exit code {result.returncode}, expected {expected}"
        return Score(float(ok), feedback=feedback, details=self.details(result, expected_exit_code=expected))


class TestPass(_CommandMetric):
    """1.0 when the test command exits with 0, else 0.0; the output goes into the details."""

    __test__ = False  # not a pytest test class

    def score(self, example: Record, prediction: Record) -> Score:
        result = self.run(prediction)
        ok = result.returncode == 0
        return Score(
            float(ok), feedback=None if ok else f"tests failed (exit code {result.returncode})",
            details=self.details(result, tests_passed=passed_count(result.stdout)),
        )


class VerificationDelta(_CommandMetric):
    """Passing tests after the step vs before it: 1.0 more, 0.5 same, 0.0 fewer."""

    def score(self, example: Record, prediction: Record) -> Score:
        before = example.get("tests_passing")
        if before is None:
            before = 0  # the dsrs default when the baseline is not recorded
        elif isinstance(before, bool) or not isinstance(before, int) or before < 0:
            raise InputError(f"expected a count of tests, got {before!r}", field="example.tests_passing")
        result = self.run(prediction)
        parsed = passed_count(result.stdout)
        after = parsed or 0
        delta = after - before
        value = 1.0 if delta > 0 else 0.5 if delta == 0 else 0.0
        return Score(
            value, feedback=f"tests before: {before}, after: {after}, delta: {delta}",
            details=self.details(
                result, tests_before=before, tests_after=after, delta=delta,
                count_found=parsed is not None, baseline_recorded="tests_passing" in example,
            ),
        )
