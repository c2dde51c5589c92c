"""Judges that learn from people: a judge's agreement with human labels on a held-out part, and a new
version of the judge whose few-shot examples a DSPy optimiser chose from the other labels.

``align(run, labels, output=...)`` takes a finished run that scored a ``judge/custom`` metric or a
one-call built-in (``judge/llm_judge``, ``judge/diff_semantic``: its own prompt, written as a custom
judge by :mod:`evalcore_judge.builtin_judges`, is the judge to start from), the
labels people gave some of its records (the ``--labels`` file: ``{"id", "label", "metric"?}`` lines,
labels from 0 to 1), splits the labelled records (seeded) into a train and a held-out part, and:

* runs DSPy's ``BootstrapFewShotWithRandomSearch`` over the judge as a DSPy program whose one
  predictor's demos are the judge's few-shot examples: candidates are the judge as it is, the
  labelled train records as examples, and sets of examples bootstrapped from records where the
  judge already agreed with people (with its own reason), each candidate scored by its agreement
  with the labels of the train part; every candidate is scored by the evalcore judge itself, so the
  prompt DSPy optimises is the prompt the new judge sends;
* writes the best candidate as a judge file (the TOML ``judge/custom`` reads: the old instructions
  and output, its examples followed by the chosen ones), a new prompt hash and so a new version;
* reads the old judge's verdicts on the held-out records from the run, scores them with the new judge,
  and reports for each Cohen's kappa, the share of agreement (each with a percentile bootstrap interval), nominal
  Krippendorff's alpha, the confusion matrix and the records where judge and people disagree, and
  the new-minus-old kappa with a paired bootstrap interval (the same resamples for both).

A label is read as the judge's own answer: pass/fail at 0.5, a scale's nearest grade (a built-in's
score: the nearest integer of its range), a category's nearest value.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from evalcore.plugin import (
    EvalcoreError,
    InputError,
    check_output,
    file_fingerprint,
    get_path,
    journal_header,
    load_run,
    open_metric,
    read_records,
)

from .agreement import krippendorff_alpha
from .builtin_judges import as_custom
from .custom import DEFINITION_KEYS, Definition, load_definition, variables

__all__ = ["Agreement", "Alignment", "align"]

LABELLED = "labelled by a person"
"""The reason an example drawn from a label carries (the label has none)."""


@dataclass(frozen=True)
class Agreement:
    """A judge's agreement with people on the held-out records it scored: ``confusion[i][j]`` counts
    records people labelled ``labels[i]`` and the judge ``labels[j]``; an undefined coefficient is ``None``."""

    n: int
    kappa: float | None
    kappa_ci: tuple[float, float] | None
    agreement: float
    agreement_ci: tuple[float, float] | None
    alpha: float | None
    labels: list[str]
    confusion: list[list[int]]
    disagreements: list[dict[str, Any]]
    unscored: int = 0


@dataclass(frozen=True)
class Alignment:
    """What :func:`align` found: the ids of the records learnt from and held out, the old and the new
    judge's held-out agreement, their prompt hashes (old, new), the new judge file, the new-minus-old
    kappa with its paired interval, the examples added and each candidate's agreement on the train part."""

    metric: str
    output: str
    prompt_hash: tuple[str, str]
    train: list[str]
    held_out: list[str]
    before: Agreement
    after: Agreement
    kappa_change: float | None
    kappa_change_ci: tuple[float, float] | None
    examples: int = 0
    candidates: list[float] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def align(run: Any, labels: Any, *, output: str | os.PathLike[str], metric: str | None = None,
          records: str | os.PathLike[str] | None = None, held_out: float = 0.5, seed: int = 0, k: int = 4,
          candidates: int = 8, n_boot: int = 1000, confidence: float = 0.95,
          settings: Mapping[str, Mapping[str, Any]] | None = None, cache_mode: str | None = None,
          cache_dir: str | None = None, allow_code: bool = False) -> Alignment:
    """Align the judged metric of ``run`` (``judge/custom`` or a one-call built-in; ``run`` a report or
    journal path, or a finished result) with ``labels`` and write the new judge to ``output``; ``records``
    defaults to the file the run read. ``k`` examples at most are added; ``settings`` / ``cache_mode`` /
    ``allow_code`` choose the judge as for ``evaluate`` (``{"judge": {"base_url": ..., "model": ...}}``)."""
    if not 0 < held_out < 1:
        raise InputError(f"held_out is the held-out share, between 0 and 1; got {held_out}", field="held_out")
    saved = load_run(run)
    metric_id = _judged_metric(saved, metric)
    people = _labels_of(labels, metric_id)
    labelled = [r for r in read_records(records or _input_of(saved)).records if r.id in people]
    params = saved.metrics[metric_id].get("params") or {}
    if metric_id.startswith("judge/custom"):
        source = saved.files[0] if saved.files else saved.source
        data, judge_file = _definition(params, source)
    else:
        data, judge_file = as_custom(metric_id, params, labelled), None
    definition = Definition(data)
    grade = _Grades(definition, metric_id)
    check_output(output, "the new judge file", [(p, "an input") for p in (*saved.files, records) if p] +
                 ([(judge_file, "the old judge (the new one is another version)")] if judge_file else []))
    if len(labelled) < 4:
        raise InputError(f"{len(labelled)} records of the run are labelled; align needs at least 4",
                         field="labels")
    order = np.random.default_rng(seed).permutation(len(labelled))
    n_held = min(len(labelled) - 2, max(2, round(held_out * len(labelled))))
    held = [labelled[i] for i in order[:n_held]]
    train = [labelled[i] for i in order[n_held:]]
    truth = {r.id: grade.of(people[r.id], r.id) for r in labelled}
    options = {"settings": settings, "cache_mode": cache_mode, "cache_dir": cache_dir, "allow_code": allow_code}
    with tempfile.TemporaryDirectory(prefix="evalcore-align-") as folder:
        judges = _Judges(data, folder, options)
        chosen, scores = _optimise(judges, train, truth, grade, k=k, candidates=candidates)
        new_data = {**data, "examples": [*(data.get("examples") or ()), *chosen]}
        Definition(new_data)  # checked before it is written
        _write(output, new_data)
        after = judges.verdicts(new_data["examples"], held, grade)
    before = _run_verdicts(saved, metric_id, held, grade)
    kappa_change, change_ci, old, new = _compare(held, truth, before, after, seed=seed, n_boot=n_boot,
                                                 confidence=confidence, labels=grade.labels)
    return Alignment(metric=metric_id, output=os.fspath(output),
                     prompt_hash=(definition.prompt_hash, Definition(new_data).prompt_hash),
                     train=[r.id for r in train], held_out=[r.id for r in held], before=old, after=new,
                     kappa_change=kappa_change, kappa_change_ci=change_ci, examples=len(chosen), candidates=scores)


def _judged_metric(saved: Any, metric: str | None) -> str:
    """The judged metric to align: ``metric``, else the run's only one (a built-in that is not one call
    is refused, by :func:`as_custom`, naming why)."""
    if metric is not None:
        if metric not in saved.metrics:
            raise InputError(f"the run has no metric {metric}; it has {', '.join(saved.metrics)}", field="metric")
        if not metric.startswith("judge/"):
            raise InputError(f"{metric} is not a judged metric; align writes a new judge/custom file", field="metric")
        return metric
    judged = [m for m in saved.metrics if m.startswith("judge/")]
    if len(judged) != 1:
        raise InputError(f"the run has {len(judged)} judged metrics; name one with --metric", field="metric")
    return judged[0]


def _run_verdicts(saved: Any, metric_id: str, records: Sequence[Any], grade: _Grades) -> list[str | None]:
    """Each record's label from the old judge as the run scored it (``None`` where it scored none)."""
    values = [((saved.rows.get(r.id) or {}).get("scores") or {}).get(metric_id, {}).get("value") for r in records]
    return [None if v is None else grade.of(v, r.id) for v, r in zip(values, records)]


def _definition(params: Mapping[str, Any], source: str) -> tuple[dict[str, Any], str | None]:
    """The judge's definition as the run recorded it and its file: the file (as given, else beside the
    run) or its parameters."""
    path = params.get("file")
    if path is None:
        return {k: params[k] for k in DEFINITION_KEYS if params.get(k) is not None}, None
    beside = os.path.join(os.path.dirname(os.path.abspath(source)), path)
    found = path if os.path.isfile(path) else beside
    data = load_definition(found)
    data.setdefault("name", params.get("name") or os.path.splitext(os.path.basename(path))[0])
    return data, found


def _input_of(saved: Any) -> str:
    """The records file the run read, as long as it is unchanged."""
    journal = saved.files[-1] if saved.files else saved.source
    read = (journal_header(journal).get("fingerprint") or {}).get("input") or {}
    path = read.get("path")
    if not path or not os.path.isfile(path):
        raise InputError(f"the records the run read ({path}) are not there; give them with --records", source=journal)
    if read.get("sha256") and file_fingerprint(Path(path))["sha256"] != read["sha256"]:
        raise InputError(f"the records the run read ({path}) changed since; give the ones it read with --records",
                         source=journal)
    return str(path)


def _labels_of(labels: Any, metric_id: str) -> dict[str, float]:
    from evalcore.judge import read_labels

    sets = read_labels(labels)
    found = {**sets.get(None, {}), **sets.get(metric_id, {})}
    if not found:
        raise InputError(f"no labels for {metric_id}; the file labels {', '.join(map(str, sets))}", field="labels")
    return found


class _Grades:
    """Labels (0 to 1) and judge values read as the judge's answers: pass/fail, a grade or a category."""

    def __init__(self, definition: Definition, metric_id: str = "judge/custom") -> None:
        self.output, self.key = definition.output, "score"
        if self.output == "json":
            self.key, self.rationale = definition.key, definition.answer.rationale_field
            low, high = definition.bounds or (None, None)
            if definition.bounds is None or low != int(low) or high != int(high):
                raise InputError("align takes a judge whose answer is a verdict, an integer scale or a category; "
                                 "this one's is not", field=metric_id)
            self.low, self.high = int(low), int(high)
            self.values = {str(g): (g - self.low) / (self.high - self.low) for g in range(self.low, self.high + 1)}
        elif self.output == "pass_fail":
            self.values = {"fail": 0.0, "pass": 1.0}
        elif self.output == "scale":
            low, high = definition.low, definition.high
            self.values = {str(g): (g - low) / (high - low) for g in range(low, high + 1)}
        else:
            self.values = dict(definition.values)
        self.labels = list(self.values)

    def of(self, value: float, rid: str = "") -> str:
        if not 0.0 <= value <= 1.0:
            raise InputError(f"label {value} is outside the judge's range 0 to 1", source=f"record {rid!r}",
                             field="label")
        if self.output == "pass_fail":
            return "pass" if value >= 0.5 else "fail"
        return min(self.values, key=lambda name: (abs(self.values[name] - value), self.values[name]))

    def answer(self, label: str) -> dict[str, Any]:
        """The judge's answer that gives ``label``."""
        if self.output == "json":
            return {self.rationale: LABELLED, self.key: int(label)}
        key = {"pass_fail": "verdict", "scale": "score", "categories": "category"}[self.output]
        return {"reason": LABELLED, key: int(label) if self.output == "scale" else label}


class _Judges:
    """The judge with a given list of examples, opened once per list as ``evaluate`` opens it (from a
    judge file in ``folder``)."""

    def __init__(self, data: Mapping[str, Any], folder: str, options: Mapping[str, Any]) -> None:
        self.data, self.folder, self.options = dict(data), folder, dict(options)
        self.opened: dict[str, Any] = {}

    def metric(self, examples: Sequence[Mapping[str, Any]]) -> Any:
        key = json.dumps(list(examples), sort_keys=True, default=str)
        if key not in self.opened:
            path = os.path.join(self.folder, f"judge{len(self.opened)}.toml")
            _write(path, {**self.data, "examples": list(examples)})
            try:
                self.opened[key] = open_metric(f"judge/custom(file={path!r})", **self.options)
            except EvalcoreError as exc:  # named as the user knows it, not by the file made for it
                raise InputError(str(exc).replace(f"judge/custom(file={path!r})", "the judge")) from None
        return self.opened[key]

    def verdicts(self, examples: Sequence[Mapping[str, Any]], records: Sequence[Any],
                 grade: _Grades) -> list[str | None]:
        """Each record's label from the judge with ``examples`` (``None`` where it scored none)."""
        scores = self.metric(examples).score_many([r.example for r in records], [r.prediction for r in records])
        return [None if s.value is None else grade.of(s.value) for s in scores]


def _optimise(judges: _Judges, train: Sequence[Any], truth: Mapping[str, str], grade: _Grades, *, k: int,
              candidates: int) -> tuple[list[dict[str, Any]], list[float]]:
    """The examples DSPy's BootstrapFewShotWithRandomSearch chooses for the judge from ``train`` (each
    candidate scored by its agreement with the labels), and every candidate's score."""
    try:
        import dspy
        from dspy.teleprompt import BootstrapFewShotWithRandomSearch
    except ImportError:
        raise InputError("align needs DSPy: pip install 'evalcore-judge[align]'", field="optimiser") from None
    base = list(judges.data.get("examples") or ())

    class Judge(dspy.Module):  # type: ignore[misc]
        """The judge as a DSPy program: its predictor's demos are the judge's added examples."""

        def __init__(self) -> None:
            super().__init__()
            self.judge = dspy.Predict("record -> answer")

        def forward(self, record: Mapping[str, Any]) -> Any:
            shown = [{"example": d.record["example"], "prediction": d.record["prediction"], "answer": d.answer}
                     for d in self.judge.demos]
            score = judges.metric([*base, *shown]).score_one(record["example"], record["prediction"])
            answer = (score.details or {}).get("answer")
            if dspy.settings.trace is not None and answer is not None:
                dspy.settings.trace.append((self.judge, {"record": record}, {"answer": answer}))
            return dspy.Prediction(answer=answer, label=None if score.value is None else grade.of(score.value))

    def agrees(gold: Any, pred: Any, trace: Any = None) -> bool:
        return pred.label is not None and pred.label == gold.label

    trainset = [dspy.Example(record=_shown(r, judges.data["instructions"]),
                             answer=grade.answer(truth[r.id]), label=truth[r.id]).with_inputs("record")
                for r in train]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):  # DSPy's progress
        optimiser = BootstrapFewShotWithRandomSearch(metric=agrees, max_bootstrapped_demos=k, max_labeled_demos=k,
                                                     num_candidate_programs=candidates, num_threads=1,
                                                     max_errors=len(trainset) + 1)
        best = optimiser.compile(Judge(), trainset=trainset)
    chosen = [{"example": d.record["example"], "prediction": d.record["prediction"], "answer": dict(d.answer)}
              for d in best.judge.demos]
    return chosen, [float(c["score"]) / 100 for c in best.candidate_programs]  # DSPy's Evaluate gives percent


def _shown(record: Any, instructions: str) -> dict[str, Any]:
    """The parts of ``record`` the instructions show (an example in the judge file keeps only those)."""
    kept: dict[str, Any] = {"example": {}, "prediction": {}}
    for path in variables(instructions):
        value = get_path({"example": record.example, "prediction": record.prediction}, path, None)
        *parents, last = path.split(".")
        place = kept
        for part in parents:
            place = place.setdefault(part, {})
        place[last] = value
    return kept


def _write(path: str | os.PathLike[str], data: Mapping[str, Any]) -> None:
    """``data`` as a TOML judge file (TOML has no null: keys without a value are left out)."""
    import tomli_w

    with open(path, "wb") as handle:
        tomli_w.dump(_without_none(dict(data)), handle, multiline_strings=True)


def _without_none(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [_without_none(v) for v in value if v is not None]
    return value


def _compare(records: Sequence[Any], truth: Mapping[str, str], before: Sequence[str | None],
             after: Sequence[str | None], *, seed: int, n_boot: int, confidence: float,
             labels: Sequence[str]) -> tuple[float | None, tuple[float, float] | None, Agreement, Agreement]:
    """Both judges' agreement on the records both scored, and the paired kappa change: one percentile
    bootstrap (resamples in which kappa is undefined, one label throughout, are left out)."""
    both = [i for i in range(len(records)) if before[i] is not None and after[i] is not None]
    index = {label: i for i, label in enumerate(labels)}
    human = np.array([index[truth[records[i].id]] for i in both], dtype=int)
    old = np.array([index[before[i]] for i in both], dtype=int)
    new = np.array([index[after[i]] for i in both], dtype=int)
    draws = np.random.default_rng(seed).integers(0, len(both), size=(n_boot, len(both))) if both else None
    tail = (1 - confidence) / 2

    def interval(values: np.ndarray) -> tuple[float, float] | None:
        kept = values[np.isfinite(values)]
        return None if kept.size == 0 else (float(np.quantile(kept, tail)), float(np.quantile(kept, 1 - tail)))

    def agreement(judged: np.ndarray, verdicts: Sequence[str | None]) -> Agreement:
        if draws is None:
            return Agreement(0, None, None, float("nan"), None, None, list(labels),
                             [[0] * len(labels) for _ in labels], [], len(records))
        confusion = np.zeros((len(labels), len(labels)), dtype=int)
        np.add.at(confusion, (human, judged), 1)
        alpha = krippendorff_alpha([human.astype(float), judged.astype(float)], "nominal")
        wrong = [{"id": records[i].id, "label": truth[records[i].id], "judge": verdicts[i]}
                 for i in both if verdicts[i] != truth[records[i].id]]
        kappa = _kappa(human[None, :], judged[None, :], len(labels))[0]
        return Agreement(n=len(both), kappa=_finite(kappa), kappa_ci=interval(_kappa(human[draws], judged[draws],
                                                                                       len(labels))),
                         agreement=float((human == judged).mean()),
                         agreement_ci=interval((human[draws] == judged[draws]).mean(axis=1)),
                         alpha=_finite(alpha), labels=list(labels), confusion=confusion.tolist(),
                         disagreements=wrong, unscored=len(records) - len(both))

    first, second = agreement(old, before), agreement(new, after)
    if draws is None or first.kappa is None or second.kappa is None:
        return None, None, first, second
    change = _kappa(human[draws], new[draws], len(labels)) - _kappa(human[draws], old[draws], len(labels))
    return second.kappa - first.kappa, interval(change), first, second


def _kappa(human: np.ndarray, judged: np.ndarray, classes: int) -> np.ndarray:
    """Cohen's kappa of each row pair (as ``evalcore.judge.cohen_kappa``, vectorised; NaN where undefined)."""
    n = human.shape[1]
    observed = (human == judged).mean(axis=1)
    expected = sum((human == c).sum(axis=1) * (judged == c).sum(axis=1) for c in range(classes)) / (n * n)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(expected < 1, (observed - expected) / (1 - expected), np.nan)


def _finite(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None
