"""Truth metrics that run a command: ``sandbox``, ``test_pass`` and ``verification_delta``."""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Mapping
from typing import Any

import attrs
from evalcore.plugin import InputError, Record, RunContext, SampleMetric, Score

from .environment import Redactor, command_environment
from .isolation import strongest, unavailable
from .process import CommandError, CommandResult, as_argv, run_command
from .test_output import passed_count


class UnisolatedCommandWarning(UserWarning):
    """A command metric runs its commands without isolation (``isolation='none'``)."""


class _CommandMetric(SampleMetric):
    """Runs the configured command once per sample (in ``prediction.workdir`` when given).

    The command sees only an allow-listed environment; its stored output is redacted of
    the values of secret-looking variables. Every result, an error included, carries the
    metric's cost (``cost_msats``, else the spec's estimate) so a budget counts it.
    """

    io_bound = True  # it waits on the command: samples run side by side on worker threads

    def setup(self) -> None:
        self.argv = self._param("command", as_argv)
        self.explicit_env = self._param("env", _string_map)
        self.passed_env = self._param("pass_env", _names)
        self.isolation = self._isolation(self.params["isolation"])
        self.cost = self.spec.cost_msats if self.params["cost_msats"] is None else self.params["cost_msats"]

    def open(self, context: RunContext) -> None:
        """The command's environment: the allow-listed variables as the run started, and what to redact."""
        super().open(context)
        self.environment = command_environment(self.explicit_env, self.passed_env, parent=context.environ)
        self.redactor = Redactor.from_environments(context.environ, self.environment)

    def _isolation(self, asked: str) -> str:
        """The isolation mode to run commands with: ``auto`` is the strongest available; ``none`` warns."""
        if asked == "auto":
            mode, reasons = strongest()
            if mode is None:
                why = "; ".join(f"{m}: {r}" for m, r in reasons.items())
                raise self.parameter_error("isolation", f"no isolation is available here ({why}); install "
                                           "bubblewrap, or pass isolation='none' to run commands unisolated")
            return mode
        if asked == "none":
            warnings.warn(f"{self.id}: isolation='none': commands run unisolated and can read evalcore's "
                          "environment (API keys included) through /proc", UnisolatedCommandWarning, stacklevel=2)
            return asked
        reason = unavailable(asked)
        if reason is not None:
            raise self.parameter_error("isolation", f"{asked!r} is unavailable: {reason}")
        return asked

    def _param(self, name: str, convert: Callable[[Any], Any]) -> Any:
        try:
            return convert(self.params[name])
        except ValueError as exc:
            raise self.parameter_error(name, str(exc)) from None

    def estimate(self, example: Record, prediction: Record) -> dict[str, int]:
        """What one sample costs: the configured or the spec's cost of one run."""
        return {"calls": 1, "prompt_tokens": 0, "completion_tokens": 0, "cost_msats": self.cost}

    def run(self, prediction: Record) -> CommandResult:
        cwd = prediction.get("workdir", self.params["cwd"])
        if cwd is not None and not (isinstance(cwd, (str, os.PathLike)) and os.path.isdir(cwd)):
            raise InputError(f"not a directory: {cwd!r}", field="prediction.workdir")
        return run_command(
            self.argv, timeout_s=self.params["timeout_s"], cwd=cwd,
            max_output_bytes=self.params["max_output_bytes"], env=self.environment,
            isolation=self.isolation, redact=self.redactor,
        )

    def details(self, result: CommandResult, **extra: Any) -> dict[str, Any]:
        return {**result.details(self.params["output_tail_chars"]), **extra}

    def score(self, example: Record, prediction: Record) -> Score:
        try:
            score = self.judge(example, prediction)
        except CommandError as exc:
            score = Score.error(exc, isolation=self.isolation)
        return attrs.evolve(score, cost_msats=self.cost)

    def judge(self, example: Record, prediction: Record) -> Score:
        """The score of one sample (the command may raise :class:`CommandError`)."""
        raise NotImplementedError


def _string_map(value: Any) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(isinstance(k, str) and isinstance(v, str)
                                                 for k, v in value.items()):
        raise ValueError(f"expected a mapping of variable names to strings; got {value!r:.80}")
    return dict(value)


def _names(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"expected a list of variable names; got {value!r:.80}")
    return tuple(value)


class Sandbox(_CommandMetric):
    """1.0 when the command exits with the expected code, else 0.0."""

    def judge(self, example: Record, prediction: Record) -> Score:
        result = self.run(prediction)
        expected = self.params["expected_exit_code"]
        ok = result.returncode == expected
        feedback = None if ok else f"exit code {result.returncode}, expected {expected}"
        return Score(float(ok), feedback=feedback, details=self.details(result, expected_exit_code=expected))


class TestPass(_CommandMetric):
    """1.0 when the test command exits with 0, else 0.0; the output goes into the details."""

    __test__ = False  # not a pytest test class

    def judge(self, example: Record, prediction: Record) -> Score:
        result = self.run(prediction)
        ok = result.returncode == 0
        return Score(
            float(ok), feedback=None if ok else f"tests failed (exit code {result.returncode})",
            details=self.details(result, tests_passed=passed_count(result.stdout)),
        )


class VerificationDelta(_CommandMetric):
    """Passing tests after the step vs before it: 1.0 more, 0.5 same, 0.0 fewer."""

    def judge(self, example: Record, prediction: Record) -> Score:
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
