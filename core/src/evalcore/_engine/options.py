"""Run options, validated before any record is read or any metric is called."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import attrs

from evalcore._contract.budget import Budget
from evalcore._contract.cache_settings import CacheMode, check_cache_mode
from evalcore._contract.context import RunContext
from evalcore._contract.errors import EvalcoreError, ParameterError
from evalcore._contract.field_map import FieldMap
from evalcore._lazy import publish
from evalcore._registry.settings import group_settings
from evalcore._registry.settings import run_context as context_of

from .baseline import BaselineValues, baseline_digest, baseline_values
from .files import check_output, same_file
from .stats import AggregateMethod, aggregate

if TYPE_CHECKING:
    from evalcore._registry.registry import Registry

SamplesFormat = Literal["jsonl", "parquet"]


class OptionError(EvalcoreError):
    """An evaluation option is out of range or inconsistent with another."""


def _at_least(minimum: float, name: str) -> Any:
    def check(_: Any, __: Any, value: float | None) -> None:
        if value is not None and not value >= minimum:
            raise OptionError(f"{name} must be >= {minimum:g}; got {value!r}")
    return check


def _finite(name: str) -> Any:
    def check(_: Any, __: Any, value: float | None) -> None:
        if value is not None and (isinstance(value, bool) or not math.isfinite(value)):
            raise OptionError(f"{name} must be a finite number; got {value!r}")
    return check


@attrs.frozen
class RunOptions:
    """Every knob of :func:`evalcore.evaluate`; see its docstring for their meaning."""

    concurrency: int = attrs.field(default=32, validator=_at_least(1, "concurrency"))
    chunk_size: int = attrs.field(default=1000, validator=_at_least(1, "chunk_size"))
    progress: bool | None = None
    failure_score: float | None = attrs.field(default=None, validator=_finite("failure_score"))
    max_errors: int | float | None = attrs.field(default=None, validator=_at_least(0, "max_errors"))
    threshold: float | None = attrs.field(default=None, validator=_finite("threshold"))
    rollouts: int = attrs.field(default=1, validator=_at_least(1, "rollouts"))
    aggregate_by: AggregateMethod = "mean"
    trim: float = 0.1
    budget: Budget = attrs.field(factory=lambda: Budget(None))
    timeout_s: float | None = attrs.field(default=None, validator=[_finite("timeout_s"), _at_least(0, "timeout_s")])
    seed: int = attrs.field(default=0, validator=_at_least(0, "seed"))
    n_boot: int = attrs.field(default=1000, validator=_at_least(0, "n_boot"))
    confidence: float = 0.95
    cache_mode: CacheMode | None = None
    cache_dir: str | None = None
    settings: dict[str, dict[str, Any]] = attrs.field(factory=dict)
    """The run's settings by settings group (``{GROUP: {"model": ...}}``), given as keywords named
    after installed groups (``GROUP={"model": ...}``)."""
    executor: str = "local"
    """``"local"`` (this machine) or the name of an executor a plugin provides."""
    allow_code: bool = False
    """Whether a metric parameter or setting may name Python code (``"module:attr"``) to import."""
    executor_options: dict[str, Any] = attrs.field(factory=dict)
    """The executor's own options, by the ``dest`` names its spec declares (``{"address": ...}``)."""
    resume: bool = False
    overwrite: bool = False
    output: Path | None = None
    samples: Path | None = None
    samples_format: SamplesFormat = "jsonl"
    csv: Path | None = None
    tiers: dict[str, str] = attrs.field(factory=dict)
    field_map: dict[str, str] = attrs.field(factory=dict)
    """``{NEW: OLD}`` with each target written in full (``example.reference_answer``)."""
    target_ci_width: float | None = attrs.field(default=None, validator=_finite("target_ci_width"))
    """Stop once every metric's confidence sequence is narrower than this (records in a seeded order)."""
    baseline: BaselineValues | None = None
    """A finished run's per-record values, to pair this run's with (``until_decided``)."""
    until_decided: bool = False
    """Stop once every metric's paired confidence sequence against ``baseline`` excludes 0."""

    def __attrs_post_init__(self) -> None:
        if not 0 < self.confidence < 1:
            raise OptionError(f"confidence must be between 0 and 1; got {self.confidence!r}")
        try:
            aggregate([0.0], self.aggregate_by, trim=self.trim)
        except ValueError as exc:
            raise OptionError(str(exc)) from None
        if self.target_ci_width is not None and not self.target_ci_width > 0:
            raise OptionError(f"target_ci_width must be > 0; got {self.target_ci_width!r}")
        if self.until_decided != (self.baseline is not None):
            raise OptionError("until_decided and baseline go together: the run stops once it differs from the "
                              "baseline run")
        if self.until_decided and self.target_ci_width is not None:
            raise OptionError("give one stopping rule: target_ci_width or until_decided")
        if not isinstance(self.executor, str) or not self.executor:
            raise OptionError(f"executor must be 'local' or the name of an installed executor; got {self.executor!r}")
        if self.executor == "local" and self.executor_options:
            raise OptionError(f"executor options {sorted(self.executor_options)} need an executor other than 'local'")
        check_cache_mode(self.cache_mode)
        bad_tiers = {k: v for k, v in self.tiers.items() if v not in ("proxy", "truth")}
        if bad_tiers:
            raise OptionError(f"tiers: {bad_tiers}; each metric's tier is 'proxy' or 'truth'")
        if self.resume and self.journal is None:
            raise OptionError("resume needs the samples file of the interrupted run (samples=..., or output=... "
                              "with the journal beside it)")
        if self.resume and self.overwrite:
            raise OptionError("resume continues a journal and overwrite replaces it: give one of them")

    @property
    def parquet(self) -> bool:
        """Whether the rows are also written as a Parquet file (``samples`` names it)."""
        return self.samples is not None and (self.samples_format == "parquet" or self.samples.suffix == ".parquet")

    @property
    def journal(self) -> Path | None:
        """Where the run's rows journal goes: ``samples`` (for a Parquet ``samples``, a journal beside
        it), else beside the report or the CSV (``result.json`` -> ``result.rows.jsonl``); ``None``
        when no file was asked for (the rows then live in a temporary journal)."""
        if self.samples is not None:
            return self.samples.with_name(self.samples.name + ".journal.jsonl") if self.parquet else self.samples
        for beside in (self.output, self.csv):
            if beside is not None:
                return beside.with_name((beside.stem if beside.suffix else beside.name) + ".rows.jsonl")
        return None

    def error_limit(self, n_records: int | None) -> int | None:
        """``max_errors`` as a count (a fraction below 1 is of the ``n_records`` records, or of none while
        their number is unknown: see :meth:`error_share`)."""
        if self.max_errors is None:
            return None
        if self.error_share(None) is not None:
            return max(0, int(self.max_errors * (n_records or 0)))
        return int(self.max_errors)

    def error_share(self, n_records: int | None) -> float | None:
        """``max_errors`` as a fraction of the records scored so far, when it is one and the input's number
        of records is not known before it is read (a streamed file); else ``None``."""
        share = self.max_errors
        return share if isinstance(share, float) and 0 < share < 1 and n_records is None else None

    def fingerprint(self) -> dict[str, Any]:
        """The options that change the numbers (a resumed run must match them)."""
        return {
            "failure_score": self.failure_score, "threshold": self.threshold, "rollouts": self.rollouts,
            "aggregate_by": self.aggregate_by, "trim": self.trim, "seed": self.seed, "n_boot": self.n_boot,
            "confidence": self.confidence, "budget_msats": self.budget.limit_msats, "tiers": self.tiers,
            **({"field_map": self.field_map} if self.field_map else {}),  # absent when unset, as before it existed
            **({"target_ci_width": self.target_ci_width} if self.target_ci_width is not None else {}),
            **({"until_decided": baseline_digest(self.baseline)} if self.baseline is not None else {}),
        }


def check_options(**options: Any) -> None:
    """Raise the error :func:`evalcore.evaluate` would raise for these options, before anything runs."""
    make_options(**options)


def make_options(registry: Registry | None = None, **raw: Any) -> RunOptions:
    """Build :class:`RunOptions` from keyword options (paths and budget normalised); a keyword named
    after a settings group installed in ``registry`` (default: the installed plugins) gives that
    group's settings."""
    budget = raw.pop("budget_msats", None)
    if isinstance(budget, Budget):
        raw["budget"] = budget
    elif budget is not None:
        if isinstance(budget, bool) or not isinstance(budget, int) or budget < 0:
            raise OptionError(f"budget_msats must be a whole number >= 0; got {budget!r}")
        raw["budget"] = Budget(budget)
    if raw.get("tiers") is None:
        raw.pop("tiers", None)
    else:
        raw["tiers"] = {str(k): getattr(v, "value", v) for k, v in dict(raw["tiers"]).items()}
    if raw.get("baseline") is not None:
        raw["baseline"] = baseline_values(raw["baseline"])
    if raw.get("field_map") is None:
        raw.pop("field_map", None)
    else:
        try:
            raw["field_map"] = FieldMap(dict(raw["field_map"])).to_json()
        except (EvalcoreError, TypeError, ValueError) as exc:
            raise OptionError(str(exc) if isinstance(exc, EvalcoreError) else
                              f"field_map must be a mapping {{NEW: OLD}}; got {raw['field_map']!r}") from None
    for key in ("output", "samples", "csv"):
        if raw.get(key) is not None:
            raw[key] = Path(os.fspath(raw[key]))
    if raw.get("cache_dir") is not None:
        raw["cache_dir"] = os.fspath(raw["cache_dir"])
    _executor_options(raw)
    _settings(raw, registry)
    unknown = set(raw) - {f.name for f in attrs.fields(RunOptions)}
    if unknown:
        raise OptionError(f"unknown option{'s' if len(unknown) > 1 else ''}: {', '.join(sorted(unknown))}")
    try:
        return RunOptions(**raw)
    except TypeError as exc:
        raise OptionError(str(exc)) from None


def _executor_options(raw: dict[str, Any]) -> None:
    """Move ``<executor>_<option>`` keywords (``ray_address=`` with ``executor="ray"``, deprecated:
    ``executor_options={"address": ...}`` says it) into ``executor_options``, where the executor finds
    them by the option's name alone."""
    executor = raw.get("executor") or "local"
    prefix = f"{executor}_"
    given = {k.removeprefix(prefix): raw.pop(k) for k in [k for k in raw if k.startswith(prefix)]}
    given = {k: v for k, v in given.items() if v is not None}
    if given:
        import warnings

        warnings.warn(f"{', '.join(prefix + k + '=' for k in given)} is deprecated: give "
                      f"executor_options={given!r}", FutureWarning, stacklevel=2)
    if raw.get("executor_options") is not None:
        if not isinstance(raw["executor_options"], Mapping):
            raise OptionError(f"executor_options must be a mapping; got {raw['executor_options']!r}")
        given = {**dict(raw["executor_options"]), **given}
    raw.pop("executor_options", None)
    if given:
        raw["executor_options"] = given


def _settings(raw: dict[str, Any], registry: Registry | None) -> None:
    """Move keywords named after installed settings groups (``GROUP={...}``) into ``settings``."""
    extra = {key: raw.pop(key) for key in set(raw) - {f.name for f in attrs.fields(RunOptions)}}
    try:
        given = group_settings(extra, registry) if extra else {}
    except ParameterError as exc:
        raise OptionError(str(exc)) from None
    raw.update(extra)  # what is left is unknown
    settings = {group: dict(values) for group, values in dict(raw.pop("settings", None) or {}).items()}
    for group, values in given.items():
        settings[group] = {**settings.get(group, {}), **values}
    if settings:
        raw["settings"] = settings


def check_paths(options: RunOptions, inputs: list[Path]) -> None:
    """Output paths, the journal's included: distinct, not an input, not a special file, in a
    folder that exists and can hold a new file."""
    outputs = {f"--{name}": getattr(options, name) for name in ("output", "samples", "csv")}
    journal = options.journal
    if journal is not None and journal != options.samples:
        beside = "--samples" if options.samples is not None else "--output" if options.output is not None else "--csv"
        outputs[f"the rows journal (beside {beside})"] = journal
    seen: list[tuple[Path, str]] = [(path, "an input file") for path in inputs]
    probed: set[str] = set()
    for label, path in outputs.items():
        if path is None:
            continue
        for other, what in seen:
            if same_file(path, other) and what != "an input file":
                raise OptionError(f"{label} and {what} are the same file: {path}")
        check_output(path, label, seen, probed=probed)
        seen.append((path, label))


def run_context(options: RunOptions, registry: Registry | None = None) -> RunContext:
    """The context a run with ``options`` hands its metrics (the environment read here, once, for the
    cache and the settings groups installed in ``registry``)."""
    return context_of(
        registry, cache_mode=options.cache_mode, cache_dir=options.cache_dir, budget=options.budget,
        timeout_s=options.timeout_s, seed=options.seed, executor=options.executor, settings=options.settings,
        allow_code=options.allow_code)


publish(globals())
