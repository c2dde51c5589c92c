"""A registered metric (:class:`MetricInfo`), made from the registry or read from the listing cache.

``list_metrics()`` with a valid listing cache returns infos read from it: they answer ``key``,
``default_id``, ``to_dict()`` and the family filter from the cached data and build ``origin`` and
``spec`` on first access (the spec through the registry, which then loads every plugin; comparing
or printing an info needs it too), so listing imports neither pydantic nor the plugins. Either
way an info equals the one the registry makes.

Imports nothing at module level but the standard library, so the cached listing stays cheap.
"""

from __future__ import annotations

from evalcore._lazy import publish

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from evalcore._contract.metric import Metric
    from evalcore._contract.origin import Origin
    from evalcore._contract.spec import MetricSpec

    MetricFactory = Callable[[MetricSpec, dict[str, Any], Origin], Metric]
    """What makes a metric from its spec, parameters and origin (a Metric class, or a function's wrapper)."""
    SpecLookup = Callable[[str, str], MetricSpec]
    """The spec of the metric ``key`` that distribution ``distribution`` provides."""

_UNSET = object()


class MetricInfo:
    """A registered metric: its spec, who provides it, and any distribution it conflicts with."""

    __slots__ = ("_spec", "_origin", "conflicts_with", "factory", "_data", "_lookup")

    def __init__(self, spec: MetricSpec, origin: Origin, conflicts_with: tuple[str, ...] = (),
                 factory: MetricFactory | None = None) -> None:
        for name, value in (("_spec", spec), ("_origin", origin), ("conflicts_with", tuple(conflicts_with)),
                            ("factory", factory), ("_data", None), ("_lookup", None)):
            object.__setattr__(self, name, value)

    @classmethod
    def from_listing(cls, data: dict[str, Any], lookup: SpecLookup) -> MetricInfo:
        """The info whose :meth:`to_dict` is ``data`` (a cached listing's entry); its spec is
        ``lookup(key, distribution)``, called on first access."""
        info = cls.__new__(cls)
        for name, value in (("_spec", _UNSET), ("_origin", _UNSET), ("conflicts_with", tuple(data["conflicts_with"])),
                            ("factory", None), ("_data", data), ("_lookup", lookup)):
            object.__setattr__(info, name, value)
        return info

    @property
    def spec(self) -> MetricSpec:
        if self._spec is _UNSET:
            object.__setattr__(self, "_spec", self._lookup(self._data["key"], self._data["distribution"]))
        return self._spec

    @property
    def origin(self) -> Origin:
        if self._origin is _UNSET:
            from evalcore._contract.origin import Origin

            object.__setattr__(self, "_origin", Origin(self._data["distribution"], self._data["version"]))
        return self._origin

    @property
    def key(self) -> str:
        return self._data["key"] if self._spec is _UNSET else self.spec.key

    @property
    def default_id(self) -> str:
        """The canonical id with every parameter at its default."""
        if self._spec is _UNSET:
            return self._data["id"]
        from evalcore._contract.errors import ParameterError
        from evalcore._contract.identity import canonical_id

        try:
            return canonical_id(self.spec, self.spec.bind_params({}))
        except ParameterError:
            return self.spec.key

    def in_family(self, family: str) -> bool:
        """Whether ``family`` is this metric's family or namespace."""
        if self._spec is _UNSET:
            return family in (self._data["family"], self._data["namespace"])
        return family in (self.spec.family, self.spec.namespace)

    def to_dict(self) -> dict[str, Any]:
        if self._spec is _UNSET:
            return _copy(self._data)
        spec = self.spec
        return {
            "id": self.default_id,
            "key": spec.key,
            "name": spec.name,
            "namespace": spec.namespace,
            "distribution": self.origin.distribution,
            "version": self.origin.version,
            "metric_version": spec.version,
            "family": spec.family,
            "summary": spec.summary,
            "description": spec.description,
            "target": spec.target.value if spec.target else None,
            "tier": spec.tier.value,
            "cost_msats": spec.cost_msats,
            "direction": spec.direction.value,
            "range": list(spec.value_range),
            "granularity": spec.granularity.value,
            "deterministic": spec.deterministic,
            "inputs": list(spec.inputs),
            "requires": list(spec.requires),
            "env": list(spec.env),
            "params": [{k: v for k, v in p.to_dict().items() if k != "aliases"} for p in spec.params],
            "implementation": spec.implementation,
            "conflicts_with": list(self.conflicts_with),
            "aggregate": spec.aggregate,
            "aliases": [a.name for a in spec.aliases],
            "verified_against": spec.verified_against,
            "tolerance": spec.tolerance,
        }

    # -- a frozen value: compared, hashed and shown by spec, origin and conflicts -----------

    def _fields(self) -> tuple[Any, ...]:
        return self.spec, self.origin, self.conflicts_with

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._fields() == other._fields()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((MetricInfo, *self._fields()))

    def __repr__(self) -> str:
        return (f"{type(self).__qualname__}(spec={self.spec!r}, origin={self.origin!r}, "
                f"conflicts_with={self.conflicts_with!r})")

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot set {name!r}: a MetricInfo is frozen")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete {name!r}: a MetricInfo is frozen")

    def __reduce__(self) -> tuple[Any, ...]:
        return MetricInfo, (self.spec, self.origin, self.conflicts_with, self.factory)


def _copy(value: Any) -> Any:
    """``value`` (JSON data) copied, so a caller's change never reaches the cached entry."""
    if isinstance(value, dict):
        return {key: _copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy(item) for item in value]
    return value


publish(globals())
