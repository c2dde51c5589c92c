"""The watch's settings: a TOML file (``--config``) and the command's flags for the common case."""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping, Sequence
from typing import Any

import attrs
import evalcore
from evalcore.plugin import EvalcoreError, InputError

from .monitor import MonitorSpec
from .sampling import Budget, Rule

__all__ = ["WatchConfig", "load_config"]

_WATCH_KEYS = {"host", "port", "store", "webhook", "batch_size", "batch_wait_s", "trace_timeout_s",
               "max_queue_spans", "retry_after_s", "executor", "executor_options", "chunk_size", "concurrency"}
_RULE_KEYS = {"name", "metrics", "rate", "where", "always", "on_error", "cost_msats"}
_MONITOR_KEYS = {f.name for f in attrs.fields(MonitorSpec)}


@attrs.define
class WatchConfig:
    """Everything ``evalcore watch`` runs with."""

    rules: list[Rule]
    monitors: list[MonitorSpec] = attrs.field(factory=list)
    budget: Budget = attrs.field(factory=Budget)
    host: str = "127.0.0.1"
    port: int = 4318
    store: str = "watch-store"
    webhook: str | None = None
    batch_size: int = 100
    batch_wait_s: float = 1.0
    trace_timeout_s: float = 30.0
    max_queue_spans: int = 20000
    retry_after_s: int = 1
    executor: str | None = None
    """Where batches are scored: ``local`` (default) or an executor a plugin provides (``ray``)."""
    executor_options: dict[str, Any] = attrs.field(factory=dict)
    """The executor's options by name, as its spec declares them (the ``ray`` executor's ``address``)."""
    chunk_size: int | None = None
    """Traces per chunk within a batch: with a distributed executor, the traces of one task."""
    concurrency: int | None = None
    """Samples scored at once within a chunk (the engine's default when unset)."""

    def evaluate_options(self) -> dict[str, Any]:
        """The options of :func:`evalcore.evaluate` set here."""
        options = {k: v for k, v in (("executor", self.executor), ("chunk_size", self.chunk_size),
                                     ("concurrency", self.concurrency)) if v is not None}
        if self.executor_options:
            options["executor_options"] = dict(self.executor_options)
        return options


def _table(data: Any, where: str, keys: set[str]) -> dict[str, Any]:
    if not isinstance(data, Mapping):
        raise InputError(f"expected a table, got {type(data).__name__}", source=where)
    unknown = sorted(set(data) - keys)
    if unknown:
        raise InputError(f"unknown setting {unknown[0]!r} (known: {', '.join(sorted(keys))})", source=where)
    return dict(data)


def _cost(metric: str, where: str) -> int:
    try:
        return evalcore.describe(metric).spec.cost_msats
    except EvalcoreError as exc:
        raise InputError(str(exc), source=where, field="metrics") from None


def _rule(raw: dict[str, Any], where: str) -> Rule:
    metrics = raw.get("metrics")
    if not isinstance(metrics, list) or not metrics or not all(isinstance(m, str) for m in metrics):
        raise InputError("a non-empty list of metric ids", source=where, field="metrics")
    rate = raw.get("rate", 1.0)
    if not isinstance(rate, (int, float)) or not 0 < rate <= 1:
        raise InputError(f"must lie in (0, 1], got {rate!r}", source=where, field="rate")
    for key in ("where", "always"):
        if not isinstance(raw.get(key, {}), Mapping):
            raise InputError("a table of attribute = value", source=where, field=key)
    name = raw.get("name", "all")
    if not isinstance(name, str) or not name.replace("_", "").replace("-", "").isalnum():
        raise InputError(f"a name of letters, digits, - and _; got {name!r}", source=where, field="name")
    cost = raw.get("cost_msats")
    if cost is not None and (not isinstance(cost, int) or cost < 0):
        raise InputError(f"a whole number of millisatoshis >= 0, got {cost!r}", source=where, field="cost_msats")
    return Rule(**{**raw, "name": name, "rate": float(rate),
                   "cost_msats": sum(_cost(m, where) for m in metrics) if cost is None else cost})


def _check_executor(name: str | None, options: Mapping[str, Any], where: str) -> None:
    """The executor named is installed and has the options given (checked before any trace is accepted)."""
    if name in (None, "local"):
        if options:
            raise InputError(f"options {sorted(options)} need an executor other than 'local'", source=where,
                             field="executor_options")
        return
    try:
        spec = evalcore.Registry().component("executors", str(name))
    except EvalcoreError as exc:
        raise InputError(str(exc), source=where, field="executor") from None
    known = {option.dest for option in spec.options}
    unknown = sorted(set(options) - known)
    if unknown:
        raise InputError(f"the {spec.name} executor has no option {unknown[0]!r} (options: "
                         f"{', '.join(sorted(known)) or 'none'})", source=where, field="executor_options")


def load_config(path: str | os.PathLike[str] | None, metrics: Sequence[str] = (), **flags: Any) -> WatchConfig:
    """The config in ``path`` (if any), with ``metrics`` (``-m``) as a rule ``all`` at rate 1 and the
    flags given (not ``None``) over its ``[watch]`` settings."""
    data: dict[str, Any] = {}
    name = os.fspath(path) if path is not None else "--config"
    if path is not None:
        try:
            with open(path, "rb") as handle:
                data = tomllib.load(handle)
        except tomllib.TOMLDecodeError as exc:
            raise InputError(f"not valid TOML: {exc}", source=name) from None
    _table(data, name, {"watch", "budget", "score", "monitor"})
    settings = _table(data.get("watch", {}), f"{name} [watch]", _WATCH_KEYS)
    settings.update({k: v for k, v in flags.items() if v is not None and k != "executor_options"})
    from_file = settings.get("executor_options", {})
    if not isinstance(from_file, Mapping):
        raise InputError("a table of option = value", source=f"{name} [watch]", field="executor_options")
    settings["executor_options"] = {**from_file, **(flags.get("executor_options") or {})}
    _check_executor(settings.get("executor"), settings["executor_options"], f"{name} [watch]")
    raw_rules = data.get("score", [])
    rules = [_rule(_table(r, f"{name} [[score]] #{i + 1}", _RULE_KEYS), f"{name} [[score]] #{i + 1}")
             for i, r in enumerate(raw_rules if isinstance(raw_rules, list) else [raw_rules])]
    if metrics:
        rules.insert(0, _rule({"name": "all", "metrics": list(metrics)}, "-m"))
    if not rules:
        raise InputError("nothing to score: give -m METRIC or [[score]] tables in a --config file", source=name)
    names = [r.name for r in rules]
    if len(set(names)) < len(names):
        raise InputError(f"two scorers named {max(names, key=names.count)!r}", source=name, field="name")
    monitors = []
    for i, raw in enumerate(data.get("monitor", [])):
        where = f"{name} [[monitor]] #{i + 1}"
        fields = _table(raw, where, _MONITOR_KEYS)
        fields.setdefault("name", f"monitor-{i + 1}")
        if fields.get("floor") is None and not fields.get("baseline"):
            raise InputError("a monitor needs a floor or a baseline (a number of values)", source=where)
        if fields.get("scorer", "all") not in names:
            raise InputError(f"no scorer named {fields.get('scorer', 'all')!r}", source=where, field="scorer")
        try:
            monitors.append(MonitorSpec(**fields))
        except TypeError as exc:
            raise InputError(str(exc), source=where) from None
    budget = _table(data.get("budget", {}), f"{name} [budget]", {"per_hour_msats", "per_day_msats"})
    try:
        return WatchConfig(rules=rules, monitors=monitors, budget=Budget(**budget), **settings)
    except TypeError as exc:
        raise InputError(str(exc), source=name) from None
