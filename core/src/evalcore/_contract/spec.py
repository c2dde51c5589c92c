"""Metric specs: plain data that describes a metric without importing its implementation.

Specs are frozen ``attrs`` classes whose fields are checked and converted when a spec is made
(:mod:`.spec_fields`): a wrong field raises :class:`~evalcore.SpecError` naming it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from enum import Enum
from typing import Any, Literal

import attrs

from evalcore._lazy import publish

from . import spec_fields as checked
from .errors import ParameterError, SpecError
from .spec_fields import field
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
_PARAM_TYPES = ("int", "float", "str", "bool", "list", "dict", "any")


def _checked_name(value: Any, field: str, what: str = "", optional: bool = False) -> str:
    """A name matching :data:`NAME_PATTERN` (empty allowed when ``optional``)."""
    value = checked.text(value, field)
    if (value or not optional) and not NAME_PATTERN.match(value):
        raise SpecError(f"{field}: {what}{value!r} must match {NAME_PATTERN.pattern}")
    return value


@attrs.frozen(kw_only=True)
class ParamSpec:
    """One parameter of a metric.

    Identity parameters (``identity=True``) are part of the canonical metric id: two
    metrics that differ in an identity parameter are different metrics
    (``retrieval/ndcg@10`` vs ``retrieval/ndcg@5``).

    ``aliases`` are old names of the parameter (``ParamSpec(name="k", aliases=("top_k",))``):
    a value given under one binds to this parameter with a
    :class:`~evalcore.plugin.DeprecatedParameterWarning` (once per process, metric and name);
    ids, listings and ``describe`` show only ``name``.
    """

    name: str = attrs.field(converter=field("name", _checked_name, what="parameter name "))
    type: ParamType = attrs.field(default="any", converter=field("type", checked.literal, allowed=_PARAM_TYPES))
    default: Any = None
    required: bool = attrs.field(default=False, converter=field("required", checked.flag))
    nullable: bool = attrs.field(default=False, converter=field("nullable", checked.flag))
    identity: bool = attrs.field(default=False, converter=field("identity", checked.flag))
    choices: tuple[Any, ...] | None = attrs.field(default=None, converter=field("choices", checked.values))
    minimum: float | None = attrs.field(default=None, converter=field("minimum", checked.number))
    maximum: float | None = attrs.field(default=None, converter=field("maximum", checked.number))
    description: str = attrs.field(default="", converter=field("description", checked.text))
    aliases: tuple[str, ...] = attrs.field(default=(), converter=field("aliases", checked.texts))
    """Deprecated names that still bind to this parameter, with a warning."""

    def __attrs_post_init__(self) -> None:
        if self.type == "list" and isinstance(self.default, list):  # as :meth:`coerce` gives a value
            object.__setattr__(self, "default", tuple(self.default))
        for alias in self.aliases:
            if not NAME_PATTERN.match(alias):
                raise SpecError(f"aliases: alias {alias!r} of parameter {self.name!r} must match "
                                f"{NAME_PATTERN.pattern}")
        if self.name in self.aliases or len(set(self.aliases)) != len(self.aliases):
            raise SpecError(f"aliases: the aliases of parameter {self.name!r} repeat a name: "
                            f"{', '.join(self.aliases)}")

    def to_dict(self) -> dict[str, Any]:
        """The fields as JSON holds them (lists for tuples)."""
        return {a.name: checked.json_ready(getattr(self, a.name)) for a in attrs.fields(ParamSpec)}

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


@attrs.frozen(kw_only=True)
class MetricAlias:
    """Another name users type for a metric, resolving to it with fixed parameter values.

    A literal alias (``regex=False``) matches ``name`` exactly (``"AP"``); a pattern
    alias is a regular expression that must match the whole text, whose named groups
    give parameter values as Python literals (``r"P_(?P<k>[0-9]+)"`` turns ``P_10`` into
    ``k=10``). ``params`` are added to what the groups give. The registry tries aliases
    as written first, then ignoring case (``ap``, ``p_10``) where only one metric matches.
    """

    name: str = attrs.field(converter=field("name", checked.text))
    regex: bool = attrs.field(default=False, converter=field("regex", checked.flag))
    params: dict[str, Any] = attrs.field(factory=dict, converter=field("params", checked.mapping))

    def __attrs_post_init__(self) -> None:
        if self.regex:
            try:
                re.compile(self.name)
            except re.error as exc:
                raise SpecError(f"name: alias pattern {self.name!r} is not a regular expression: {exc}") from None

    def to_dict(self) -> dict[str, Any]:
        """The fields as JSON holds them."""
        return {"name": self.name, "regex": self.regex, "params": checked.json_ready(self.params)}

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
    import ast

    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def _implementation(value: Any, field: str) -> str:
    module, sep, attr = checked.text(value, field).partition(":")
    if not sep or not module or not attr:
        raise SpecError(f"{field}: implementation must be 'module:attr'; got {value!r}")
    return value


@attrs.frozen(kw_only=True)
class MetricSpec:
    """Everything evalcore knows about a metric before importing it.

    ``implementation`` is a ``"module:attr"`` string naming a :class:`evalcore.Metric`
    subclass; it is imported only when the metric is used. Fields are given by keyword; a
    sequence field takes a list, an enum field its value (``tier="truth"``), and ``params`` and
    ``aliases`` take mappings of their fields. An invalid value raises :class:`SpecError`.
    """

    name: str = attrs.field(converter=field("name", _checked_name))
    namespace: str = attrs.field(default="", converter=field("namespace", _checked_name, optional=True))
    implementation: str = attrs.field(converter=field("implementation", _implementation))
    summary: str = attrs.field(converter=field("summary", checked.text))
    description: str = attrs.field(default="", converter=field("description", checked.text))
    family: str = attrs.field(default="", converter=field("family", checked.text))
    target: TargetCategory | None = attrs.field(
        default=None, converter=field("target", checked.member, enum=TargetCategory, optional=True))
    tier: Tier = attrs.field(default=Tier.PROXY, converter=field("tier", checked.member, enum=Tier))
    cost_msats: int = attrs.field(default=0, converter=field("cost_msats", checked.count))
    """Estimated cost per sample, millisatoshis."""
    direction: Direction = attrs.field(default=Direction.HIGHER,
                                       converter=field("direction", checked.member, enum=Direction))
    value_range: tuple[float | None, float | None] = attrs.field(
        default=(0.0, 1.0), converter=field("value_range", checked.number_pair))
    unit: str = attrs.field(default="", converter=field("unit", checked.text))
    """Unit of the value, e.g. ``'ms'``; empty for a score on its range."""
    params: tuple[ParamSpec, ...] = attrs.field(default=(), converter=field("params", checked.records, kind=ParamSpec))
    inputs: tuple[str, ...] = attrs.field(default=(), converter=field("inputs", checked.texts))
    granularity: Granularity = attrs.field(default=Granularity.SAMPLE,
                                           converter=field("granularity", checked.member, enum=Granularity))
    deterministic: bool = attrs.field(default=True, converter=field("deterministic", checked.flag))
    requires: tuple[str, ...] = attrs.field(default=(), converter=field("requires", checked.texts))
    env: tuple[str, ...] = attrs.field(default=(), converter=field("env", checked.texts))
    pass_threshold: float | None = attrs.field(default=None, converter=field("pass_threshold", checked.number))
    version: str = attrs.field(default="1", converter=field("version", checked.text))
    aggregate: Aggregate = attrs.field(default="mean", converter=field("aggregate", checked.literal,
                                                                         allowed=("mean", "sum", "gmean")))
    """How per-record values combine into the metric's one number: ``mean`` (the default),
    ``sum`` (counts such as trec_eval's ``num_ret``), or ``gmean`` (geometric mean of the
    values floored at :data:`MIN_GEO_MEAN`, as trec_eval's ``gm_map``)."""
    aliases: tuple[MetricAlias, ...] = attrs.field(default=(), converter=field("aliases", checked.records,
                                                                                kind=MetricAlias))
    """Other names that resolve to this metric (trec_eval's ``P_10``, ir_measures' ``P@10``)."""
    verified_against: str | None = attrs.field(default=None, converter=field("verified_against",
                                                                              checked.optional_text))
    """The reference implementation the plugin's tests check its values against
    (``"pytrec_eval (trec_eval 9.0.8)"``, ``"sacrebleu corpus_bleu"``); ``None`` when there is none."""
    tolerance: float | None = attrs.field(default=None, converter=field("tolerance", checked.number, minimum=0))
    """The largest absolute difference from ``verified_against`` those tests allow (0: exact)."""

    def __attrs_post_init__(self) -> None:
        names = [p.name for p in self.params]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise SpecError(f"params: duplicate parameters: {', '.join(duplicates)}")
        aliases = [a for p in self.params for a in p.aliases]
        clashes = sorted({a for a in aliases if aliases.count(a) > 1 or a in names})
        if clashes:
            raise SpecError(f"params: parameter aliases that name another parameter or alias: {', '.join(clashes)}")

    @classmethod
    def from_dict(cls, fields: dict[str, Any]) -> MetricSpec:
        """The spec of ``fields`` (as :meth:`to_dict` gives them, or as a plugin writes them);
        an unknown, missing or invalid field raises :class:`SpecError` naming it."""
        return checked.build(cls, fields)

    def to_dict(self) -> dict[str, Any]:
        """The fields as JSON holds them: enum values, lists for tuples, mappings for parameters
        and aliases (:meth:`from_dict` reads them back)."""
        data = {a.name: getattr(self, a.name) for a in attrs.fields(MetricSpec)}
        for name in ("target", "tier", "direction", "granularity"):
            data[name] = data[name].value if data[name] is not None else None
        data["params"] = [p.to_dict() for p in self.params]
        data["aliases"] = [a.to_dict() for a in self.aliases]
        return {name: checked.json_ready(value) for name, value in data.items()}

    def evolve(self, **changes: Any) -> MetricSpec:
        """A copy with ``changes``, checked as when a spec is made."""
        return attrs.evolve(self, **changes)

    def verified(self, against: str, tolerance: float) -> MetricSpec:
        """This spec, stating that the plugin's tests check its values against ``against``
        within ``tolerance`` (the largest absolute difference allowed; 0 for exact)."""
        return self.evolve(verified_against=against, tolerance=tolerance)

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
