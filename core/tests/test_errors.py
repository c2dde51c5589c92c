"""One error tree: every error a user can meet derives from EvalcoreError, the tree drawn in
``evalcore._contract.errors`` (and on the reference page) is the real one, and errors print as one line."""

from __future__ import annotations

import importlib
import importlib.metadata
import inspect
import pathlib
import pkgutil
import re
import textwrap

import evalcore
import pytest
from evalcore import EvalcoreError, InputError, ScoringError, SkipSample
from evalcore._contract import errors as errors_module

ROOT = pathlib.Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "docs" / "reference.md"

SIGNALS = {SkipSample}
"""Control flow, not errors: a metric raises SkipSample to skip a sample, and the run records it."""


def _packages() -> list[str]:
    """evalcore and the import packages of the installed plugins."""
    plugins = {ep.value.split(":")[0].split(".")[0] for ep in importlib.metadata.entry_points(group="evalcore.plugins")}
    return ["evalcore", *sorted(plugins)]


def exception_classes() -> dict[str, type[BaseException]]:
    """Every exception class defined in a module of evalcore or of an installed plugin, by name."""
    found: dict[str, type[BaseException]] = {}
    for package in _packages():
        root = importlib.import_module(package)
        names = [package] + [m.name for m in pkgutil.walk_packages(root.__path__, f"{package}.")]
        for name in names:
            if name.endswith(".__main__"):
                continue  # runs the command line when imported
            module = importlib.import_module(name)
            for value in vars(module).values():
                if (inspect.isclass(value) and issubclass(value, BaseException)
                        and value.__module__.split(".")[0] == package):
                    found.setdefault(value.__name__, value)
    return found


def user_facing(classes: dict[str, type[BaseException]]) -> dict[str, type[BaseException]]:
    """Leaves out warnings, control-flow signals (a skip that carries details is still a skip) and
    module-private signals (``_Name``, caught where raised)."""
    return {name: cls for name, cls in classes.items()
            if not issubclass(cls, (Warning, *SIGNALS)) and not name.startswith("_")}


@pytest.fixture(scope="module")
def classes() -> dict[str, type[BaseException]]:
    return exception_classes()


def test_the_walk_finds_the_errors_of_the_core_and_the_plugins(classes):
    assert {"EvalcoreError", "InputError", "BackendError", "RateLimited", "StateCodecError", "ResumeError",
            "UnparseableJudgement", "CommandError", "ModelUnavailable", "ExpressionError"} <= set(classes)


def test_every_user_facing_exception_derives_from_evalcore_error(classes):
    outside = sorted(f"{cls.__module__}.{name}" for name, cls in user_facing(classes).items()
                     if not issubclass(cls, EvalcoreError))
    assert outside == []
    assert not issubclass(SkipSample, EvalcoreError)


def diagram(text: str) -> list[tuple[int, str, list[str]]]:
    """``(depth, class name, built-in bases)`` for each line of an error tree drawn with ├── / └──."""
    rows = []
    for line in text.splitlines():
        match = re.match(r"^\s*((?:[│ ]   )*)(?:├── |└── )?(\w+)(?: \(([\w, ]+)\))? \.", line + " .")
        if match and ("├── " in line or "└── " in line or line.strip() == "EvalcoreError"):
            depth = len(match.group(1)) // 4 + (0 if line.strip() == "EvalcoreError" else 1)
            rows.append((depth, match.group(2), [b.strip() for b in (match.group(3) or "").split(",") if b.strip()]))
    return rows


def tree_in(text: str) -> str:
    """The error tree drawn in ``text`` (a diagram starting with ``EvalcoreError``), dedented."""
    start = text.index("EvalcoreError\n")
    start = text.rindex("\n", 0, start) + 1
    end = re.compile(r"\n\s*(?:\n|```)").search(text, start).start()
    return textwrap.dedent(text[start:end])


def test_the_documented_tree_is_the_class_tree(classes):
    rows = diagram(tree_in(errors_module.__doc__))
    assert rows[0] == (0, "EvalcoreError", [])
    parents: list[str] = []
    for depth, name, builtins in rows:
        parents[depth:] = [name]
        if name not in classes and _from_a_distribution_not_installed(name):
            continue  # an extension's error (``evalcore-ray: ...``), drawn whether or not it is installed
        assert name in classes, f"{name} is drawn but not defined"
        cls = classes[name]
        if depth:
            assert cls.__bases__[0] is classes[parents[depth - 1]], f"{name} is drawn under {parents[depth - 1]}"
        assert [b.__name__ for b in cls.__bases__[1:]] == builtins, name
    drawn = {name for _, name, _ in rows}
    missing = sorted(name for name in user_facing(classes) if name not in drawn)
    assert missing == [], "errors the tree does not show"


def _from_a_distribution_not_installed(name: str) -> bool:
    """Whether the tree draws ``name`` as the error of a distribution (``evalcore-ray: ...``) that is not installed."""
    line = next(line for line in tree_in(errors_module.__doc__).splitlines() if re.search(rf"\b{name}\b", line))
    found = re.search(r"\.\s+(evalcore-[a-z]+):", line)
    if found is None:
        return False
    try:
        importlib.metadata.distribution(found.group(1))
    except importlib.metadata.PackageNotFoundError:
        return True
    return False


def test_the_reference_page_shows_the_same_tree():
    assert tree_in(REFERENCE.read_text(encoding="utf-8")) == tree_in(errors_module.__doc__)


def test_errors_print_as_one_line():
    assert str(EvalcoreError("the server said:\n  bad request\r\n")) == "the server said: bad request"
    assert str(InputError("not a number", source="data.jsonl:3", field="label")) == "data.jsonl:3: label: not a number"


@pytest.mark.parametrize("call", [
    pytest.param(lambda: __import__("evalcore.judge").judge.calibrate(None, []), id="calibrate-empty"),
    pytest.param(lambda: __import__("evalcore.judge").judge.cohen_kappa([1], [1, 2]), id="kappa-lengths"),
    pytest.param(lambda: importlib.import_module("evalcore.plugin").check_cache_mode("sometimes"), id="cache-mode"),
    pytest.param(lambda: importlib.import_module("evalcore_stats.correct").adjust([0.1], "sidak"), id="correction"),
    pytest.param(lambda: importlib.import_module("evalcore._engine.stats").aggregate([1.0], "mode"), id="aggregation"),
])
def test_converted_errors_are_evalcore_errors_and_still_value_errors(call):
    with pytest.raises(EvalcoreError) as info:
        call()
    assert isinstance(info.value, ValueError)  # callers that caught ValueError still do
    assert "\n" not in str(info.value)


def test_a_judge_that_cannot_score_names_the_metric_and_the_first_failure():
    from evalcore.judge import calibrate

    class Broken(evalcore.SampleMetric):
        def score(self, example, prediction):
            raise RuntimeError("backend refused")

    metric = Broken(evalcore.MetricSpec(name="broken", implementation="x:Broken", summary="s"))
    with pytest.raises(ScoringError, match=r"broken scored none of the 1 labelled samples .*: backend refused"):
        calibrate(metric, [({}, {}, True)])
    with pytest.raises(ScoringError, match="broken: RuntimeError: backend refused"):
        metric({}, {})  # DSPy-style calling
    with pytest.raises(InputError, match=r"^human_labels\[0\]: label: 'good' is neither true/false nor a number"):
        calibrate(metric, [({}, {}, "good")])
