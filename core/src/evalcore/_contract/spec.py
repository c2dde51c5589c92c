"""Metric specs: plain data that describes a metric without importing its implementation."""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Sequence
from enum import Enum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from evalcore._lazy import publish

from .errors import ParameterError
from .vocabulary import canonical_name, warn_deprecated_name

NAME_PATTERN = re.compile(r"^[a-z][a-z0-9_]*$")


class TargetCategory(str, Enum):
    """What a metric evaluates (the Auepora target categories)."""

    RETRIEVAL_RELEVANCE = "retrieval_relevance"
    RETRIEVAL_ACCURACY = "retrieval_accuracy"
    GENERATION_RELEVANCE = "generation_relevance"
    GENERATION_FAITHFULNESS = "generation_faithfulness"
    GENERATION_CORRECTNESS = "generation_correctness"
    LATENCY = "latency"
    DIVERSITY = "diversity"
    NOISE_ROBUSTNESS = "noise_robustness"
    NEGATIVE_REJECTION = "negative_rejection"
    COUNTERFACTUAL_ROBUSTNESS = "counterfactual_robustness"
    FORMAT = "format"
    AGENT_BEHAVIOUR = "agent_behaviour"
    COST = "cost"


ParamType = Literal["int", "float", "str", "bool", "list", "dict", "any"]

_REQUIRED: Any = ...


class ParamSpec(BaseModel):
    """One parameter of a metric.

    Identity parameters (``identity=True``) are part of the canonical metric id: two
    metrics that differ in an identity parameter are different metrics
    (``retrieval/ndcg@10`` vs ``retrieval/ndcg@5``).

    ``aliases`` are old names of the parameter (``ParamSpec(name="k", aliases=("top_k",))``):
    a value given under one binds to this parameter with a
    :class:`~evalcore.plugin.DeprecatedParameterWarning` (once per process, metric and name);
    ids, listings and ``describe`` show only ``name``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    type: ParamType = "any"
    default: Any = None
    required: bool = False
    nullable: bool = False
    identity: bool = False
    choices: tuple[Any, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None
    description: str = ""
    aliases: tuple[str, ...] = ()
    """Deprecated names that still bind to this parameter, with a warning."""

    @field_validator("name")
    @classmethod
    def _check_name(cls, value: str) -> str:
        if not NAME_PATTERN.match(value):
            raise ValueError(f"parameter name {value!r} must match {NAME_PATTERN.pattern}")
        return value

    @model_validator(mode="after")
    def _check_aliases(self) -> ParamSpec:
        for alias in self.aliases:
            if not NAME_PATTERN.match(alias):
                raise ValueError(f"alias {alias!r} of parameter {self.name!r} must match {NAME_PATTERN.pattern}")
        if self.name in self.aliases or len(set(self.aliases)) != len(self.aliases):
            raise ValueError(f"the aliases of parameter {self.name!r} repeat a name: {', '.join(self.aliases)}")
        return self

    def coerce(self, value: Any, metric: str = "metric") -> Any:
        """Check ``value`` against this parameter and return it in canonical form."""
        where = f"parameter {self.name!r} of {metric}"
        if value is None:
            if self.nullable or (self.default is None and not self.required):
                return None
            raise ParameterError(f"{where} must not be None")
        value = _coerce_type(self.type, value, where)
        if self.choices is not None and value not in self.choices:
            raise ParameterError(
                f"{where} must be one of {', '.join(repr(c) for c in self.choices)}; got {value!r}"
            )
        if self.minimum is not None and value < self.minimum:
            raise ParameterError(f"{where} must be >= {_fmt_bound(self.minimum)}; got {value!r}")
        if self.maximum is not None and value > self.maximum:
            raise ParameterError(f"{where} must be <= {_fmt_bound(self.maximum)}; got {value!r}")
        return value


def _fmt_bound(bound: float) -> str:
    return str(int(bound)) if float(bound).is_integer() else str(bound)


def _coerce_type(kind: ParamType, value: Any, where: str) -> Any:
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, float) and value.is_integer():
                return int(value)
            raise ParameterError(f"{where} must be an integer; got {value!r}")
        return value
    if kind == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ParameterError(f"{where} must be a number; got {value!r}")
        if math.isnan(value):
            raise ParameterError(f"{where} must not be NaN")
        return float(value)
    if kind == "str":
        if not isinstance(value, str):
            raise ParameterError(f"{where} must be a string; got {value!r}")
        return value
    if kind == "bool":
        if not isinstance(value, bool):
            raise ParameterError(f"{where} must be true or false; got {value!r}")
        return value
    if kind == "list":
        if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
            raise ParameterError(f"{where} must be a list; got {value!r}")
        return tuple(value)
    if kind == "dict":
        if not isinstance(value, dict):
            raise ParameterError(f"{where} must be a mapping; got {value!r}")
        return value
    return value


class Direction(str, Enum):
    """Whether a larger value is better."""

    HIGHER = "higher"
    LOWER = "lower"


class Tier(str, Enum):
    """``proxy`` metrics are cheap checks run first; ``truth`` metrics are expensive and accurate."""

    PROXY = "proxy"
    TRUTH = "truth"


class Granularity(str, Enum):
    """``sample`` metrics score each record; ``corpus`` metrics score the whole dataset."""

    SAMPLE = "sample"
    CORPUS = "corpus"


Aggregate = Literal["mean", "sum", "gmean"]

MIN_GEO_MEAN = 1e-5
"""The floor ``aggregate='gmean'`` puts under each value before its logarithm (trec_eval's)."""


def aggregate_values(values: Sequence[float], how: Aggregate = "mean") -> float | None:
    """Combine per-record values as a spec's ``aggregate`` says; ``None`` when there are none."""
    if not values:
        return None
    if how == "sum":
        return math.fsum(values)
    if how == "gmean":
        return math.exp(math.fsum(math.log(max(v, MIN_GEO_MEAN)) for v in values) / len(values))
    return math.fsum(values) / len(values)


class MetricAlias(BaseModel):
    """Another name users type for a metric, resolving to it with fixed parameter values.

    A literal alias (``regex=False``) matches ``name`` exactly (``"AP"``); a pattern
    alias is a regular expression that must match the whole text, whose named groups
    give parameter values as Python literals (``r"P_(?P<k>[0-9]+)"`` turns ``P_10`` into
    ``k=10``). ``params`` are added to what the groups give. The registry tries aliases
    as written first, then ignoring case (``ap``, ``p_10``) where only one metric matches.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    regex: bool = False
    params: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _check_pattern(self) -> MetricAlias:
        if self.regex:
            try:
                re.compile(self.name)
            except re.error as exc:
                raise ValueError(f"alias pattern {self.name!r} is not a regular expression: {exc}") from None
        return self

    def match(self, text: str, *, ignore_case: bool = False) -> dict[str, Any] | None:
        """The parameters ``text`` gives when it is this alias (in any case with ``ignore_case``), else ``None``."""
        if not self.regex:
            same = text.casefold() == self.name.casefold() if ignore_case else text == self.name
            return dict(self.params) if same else None
        found = re.fullmatch(self.name, text, re.IGNORECASE if ignore_case else 0)
        if found is None:
            return None
        params = dict(self.params)
        for group, value in found.groupdict().items():
            if value is not None:
                params[group] = _literal_or_text(value)
        return params


def _literal_or_text(text: str) -> Any:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


class MetricSpec(BaseModel):
    """Everything evalcore knows about a metric before importing it.

    ``implementation`` is a ``"module:attr"`` string naming a :class:`evalcore.Metric`
    subclass; it is imported only when the metric is used.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", use_enum_values=False)

    name: str
    namespace: str = ""
    implementation: str
    summary: str
    description: str = ""
    family: str = ""
    target: TargetCategory | None = None
    tier: Tier = Tier.PROXY
    cost_msats: int = Field(default=0, ge=0, description="estimated cost per sample, millisatoshis")
    direction: Direction = Direction.HIGHER
    value_range: tuple[float | None, float | None] = (0.0, 1.0)
    unit: str = Field(default="", description="unit of the value, e.g. 'ms'; empty for a score on its range")
    params: tuple[ParamSpec, ...] = ()
    inputs: tuple[str, ...] = ()
    granularity: Granularity = Granularity.SAMPLE
    deterministic: bool = True
    requires: tuple[str, ...] = ()
    env: tuple[str, ...] = ()
    pass_threshold: float | None = None
    version: str = "1"
    aggregate: Aggregate = "mean"
    """How per-record values combine into the metric's one number: ``mean`` (the default),
    ``sum`` (counts such as trec_eval's ``num_ret``), or ``gmean`` (geometric mean of the
    values floored at :data:`MIN_GEO_MEAN`, as trec_eval's ``gm_map``)."""
    aliases: tuple[MetricAlias, ...] = ()
    """Other names that resolve to this metric (trec_eval's ``P_10``, ir_measures' ``P@10``)."""
    verified_against: str | None = None
    """The reference implementation the plugin's tests check its values against
    (``"pytrec_eval (trec_eval 9.0.8)"``, ``"sacrebleu corpus_bleu"``); ``None`` when there is none."""
    tolerance: float | None = Field(default=None, ge=0)
    """The largest absolute difference from ``verified_against`` those tests allow (0: exact)."""

    @field_validator("name", "namespace")
    @classmethod
    def _check_name(cls, value: str) -> str:
        if value and not NAME_PATTERN.match(value):
            raise ValueError(f"{value!r} must match {NAME_PATTERN.pattern}")
        return value

    @field_validator("implementation")
    @classmethod
    def _check_implementation(cls, value: str) -> str:
        module, sep, attr = value.partition(":")
        if not sep or not module or not attr:
            raise ValueError(f"implementation must be 'module:attr'; got {value!r}")
        return value

    @model_validator(mode="after")
    def _check_params(self) -> MetricSpec:
        names = [p.name for p in self.params]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ValueError(f"duplicate parameters: {', '.join(duplicates)}")
        aliases = [a for p in self.params for a in p.aliases]
        clashes = sorted({a for a in aliases if aliases.count(a) > 1 or a in names})
        if clashes:
            raise ValueError(f"parameter aliases that name another parameter or alias: {', '.join(clashes)}")
        return self

    def verified(self, against: str, tolerance: float) -> MetricSpec:
        """This spec, stating that the plugin's tests check its values against ``against``
        within ``tolerance`` (the largest absolute difference allowed; 0 for exact)."""
        return type(self)(**{**dict(self), "verified_against": against, "tolerance": tolerance})

    @property
    def key(self) -> str:
        """``namespace/name`` without parameters."""
        return f"{self.namespace}/{self.name}" if self.namespace else self.name

    def param(self, name: str) -> ParamSpec:
        """The parameter called ``name``; :class:`ParameterError` if there is none."""
        for param in self.params:
            if param.name == name:
                return param
        better = canonical_name(name)
        hint = f" (did you mean {better!r}?)" if better is not None and better in {p.name for p in self.params} else ""
        raise ParameterError(
            f"{self.key} has no parameter {name!r}{hint}; its parameters are "
            + (", ".join(p.name for p in self.params) or "none")
        )

    def canonical_params(self, values: dict[str, Any]) -> dict[str, Any]:
        """``values`` with every deprecated alias replaced by its parameter's name.

        Warns once per process for each old name used; an old and a new name for the same
        parameter together (or two old ones) are a :class:`ParameterError`, as is an unknown name.
        """
        renamed = {alias: param.name for param in self.params for alias in param.aliases}
        if not renamed.keys() & values.keys():
            for name in values:
                self.param(name)
            return dict(values)
        canonical: dict[str, Any] = {}
        given_as: dict[str, str] = {}
        for name, value in values.items():
            target = renamed.get(name, name)
            if target == name:
                self.param(name)
            if target in canonical:
                raise ParameterError(
                    f"{self.key}: {given_as[target]!r} and {name!r} both give parameter {target!r} "
                    f"(old names are deprecated aliases); give it once, as {target!r}"
                )
            canonical[target] = value
            given_as[target] = name
        for target, name in given_as.items():
            if name != target:
                warn_deprecated_name(self.key, name, target)
        return canonical

    def bind_params(self, values: dict[str, Any]) -> dict[str, Any]:
        """Validate ``values`` and fill in defaults; returns every parameter's value.

        Deprecated aliases bind to their parameter (see :meth:`canonical_params`); the result
        is keyed by the canonical names only.
        """
        bound: dict[str, Any] = {}
        values = self.canonical_params(values)
        for param in self.params:
            if param.name in values:
                bound[param.name] = param.coerce(values[param.name], self.key)
            elif param.required:
                raise ParameterError(f"{self.key} needs parameter {param.name!r}")
            else:
                bound[param.name] = param.default
        return bound

    @property
    def pass_value(self) -> float:
        """The value at which a sample passes when the metric is used as pass/fail."""
        if self.pass_threshold is not None:
            return self.pass_threshold
        low, high = self.value_range
        if low is not None and high is not None:
            return high if self.direction is Direction.HIGHER else low
        return 0.0

    def passes(self, value: float) -> bool:
        """Whether ``value`` counts as a pass (respects the direction)."""
        if self.direction is Direction.HIGHER:
            return value >= self.pass_value
        return value <= self.pass_value


publish(globals())
