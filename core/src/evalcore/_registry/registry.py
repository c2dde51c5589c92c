"""The metric registry: plugin discovery through entry points, and metric id resolution.

Each entry point in the ``evalcore.plugins`` group names a plugin: the entry-point name is
its namespace, its value a light registration module implementing the
``evalcore_metrics`` hook. Loading a plugin never imports metric implementations; a
plugin that fails to load is recorded with its status and error and never hides the
others (unless strict mode asks for an error).

A registry over ``sys.path`` loads plugins on demand while the listing cache is valid (and
neither strict mode nor ``EVALCORE_NO_LIST_CACHE`` is on): resolving a metric id, expanding a
metric set or asking for the readers loads only the plugins the cached listing says provide
them (:mod:`.plugin_index`); everything else (listing, an id the listing does not name
unambiguously, suggestions) loads every plugin, as without a cache. Either way the same
plugins give the same specs, so the results are the same.
"""

from __future__ import annotations

import difflib
import re
import sys
import threading
from collections.abc import Iterable, Sequence
from enum import Enum
from typing import TYPE_CHECKING, Any, NamedTuple

import attrs

from evalcore._contract.components import COMPONENT_KINDS, ComponentSpec, collect_components
from evalcore._contract.env import list_cache_disabled, strict_from_env
from evalcore._contract.errors import (
    AmbiguousMetricError,
    EvalcoreError,
    MetricConflictError,
    MetricIdError,
    ParameterError,
    PluginError,
    SpecError,
    UnknownMetricError,
)
from evalcore._contract.hooks import (
    ENTRY_POINT_GROUP,
    PLUGIN_API_VERSION,
    RUN_HOOKS,
    SUPPORTED_API_VERSIONS,
    Contribution,
    PluginHooks,
    new_plugin_manager,
)
from evalcore._contract.identity import parse_metric_id
from evalcore._contract.origin import Origin
from evalcore._contract.references import import_object
from evalcore._contract.spec import MetricSpec
from evalcore._lazy import publish

from . import list_cache, listed
from .info import MetricInfo
from .plugin_index import PluginIndex, plugin_entry

if TYPE_CHECKING:
    from importlib import metadata

    import pluggy

    from evalcore._contract.metric import Metric

    from .info import MetricFactory
    from .plugin_index import PluginEntry

    EntryPoint = tuple[metadata.EntryPoint, str, str]
    """An entry point with its distribution's name and version."""

FOREIGN_DISTRIBUTION = "evalcore"  # an unrelated project on the package index with the same import name


class PluginStatus(str, Enum):
    """How loading a plugin went."""

    LOADED = "loaded"
    IMPORT_ERROR = "import_error"
    INVALID = "invalid"
    INCOMPATIBLE = "incompatible"
    CONFLICT = "conflict"


@attrs.frozen
class PluginInfo:
    """One discovered plugin: where it comes from, whether it loaded, what it provides."""

    name: str
    distribution: str
    version: str
    module: str
    status: PluginStatus
    error: str | None = None
    api_version: Any = None
    metrics: tuple[str, ...] = ()
    components: dict[str, tuple[str, ...]] = attrs.field(factory=dict)
    """The names of the readers, executors, trackers and commands it provides, by kind."""

    @property
    def ok(self) -> bool:
        return self.status is PluginStatus.LOADED

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name, "distribution": self.distribution, "version": self.version,
            "module": self.module, "status": self.status.value, "error": self.error,
            "api_version": self.api_version, "metrics": list(self.metrics),
            **{kind: list(self.components.get(kind, ())) for kind in COMPONENT_KINDS},
        }


@attrs.frozen
class _Loaded:
    """What loading one plugin gave: its info and, when it loaded, its metrics, sets and components,
    its registration module and the run hooks that module implements."""

    plugin: PluginInfo
    metrics: tuple[MetricInfo, ...] = ()
    sets: dict[str, list[str]] = attrs.field(factory=dict)
    components: dict[str, tuple[ComponentSpec, ...]] = attrs.field(factory=dict)
    module: Any = None
    hooks: tuple[str, ...] = ()


def _add(metrics: dict[str, list[MetricInfo]], info: MetricInfo) -> None:
    """Add ``info`` to ``metrics`` by key, once (a plugin may list a spec twice)."""
    entries = metrics.setdefault(info.key, [])
    for existing in entries:
        if existing.origin == info.origin and existing.spec == info.spec:
            return
    entries.append(info)


class _IndexedEntryPoint(NamedTuple):
    """An entry point as the listing cache keeps it: what loading a plugin needs of
    :class:`importlib.metadata.EntryPoint`, without importing ``importlib.metadata``."""

    name: str
    value: str

    def load(self) -> Any:
        """The object the value names."""
        return import_object(self.value)


def _entry_points_of(entries: list[PluginEntry]) -> list[EntryPoint]:
    """The entry points the index ``entries`` describe, with their distributions' names and versions."""
    return [(_IndexedEntryPoint(e["name"], e["module"]), e["distribution"], e["version"]) for e in entries]


def foreign_core_warning(path: Sequence[str] | None = None) -> str | None:
    """One line saying how to fix it when the unrelated ``evalcore`` distribution is installed."""
    from importlib import metadata

    found = next(iter(metadata.distributions(name=FOREIGN_DISTRIBUTION, path=list(path or sys.path))), None)
    if found is None:
        return None
    return (f"the unrelated package 'evalcore' {found.version} is installed and shares the import name "
            "'evalcore'; fix: pip uninstall -y evalcore && pip install --force-reinstall evalcore-core")


class Registry:
    """Discovers plugins and resolves metric ids to implementations.

    ``path`` restricts discovery to distributions found on those directories (default:
    ``sys.path``). Loading happens on first use and only once; over ``sys.path`` a valid listing
    cache lets a metric id load only its plugin (see the module's documentation), and a registry
    that looked for it and had to load every plugin writes it. ``listing_cache=False``: neither.
    """

    def __init__(self, *, path: Sequence[str] | None = None, strict: bool | None = None,
                 listing_cache: bool = True) -> None:
        self._path = list(path) if path is not None else None
        self._strict = strict_from_env() if strict is None else strict
        self._use_listing_cache = listing_cache
        self._lock = threading.RLock()
        self._loaded = False
        self._plugins: list[PluginInfo] = []
        self._components: dict[str, list[ComponentSpec]] = {}
        self._metrics: dict[str, list[MetricInfo]] = {}
        self._sets: dict[str, list[str]] = {}
        self._found: list[EntryPoint] | None = None
        self._done: dict[tuple[str, str, str], _Loaded] = {}  # by entry point, loaded or failed
        self._index: PluginIndex | None | bool = None  # False: looked, none usable
        self._missed: list_cache.Scan | None = None  # the environment of a listing cache lookup that missed
        self._cached_warning: str | None = None  # the foreign distribution warning of the cached listing

    # -- loading ---------------------------------------------------------------------

    @property
    def loaded(self) -> bool:
        """Whether the plugins have been loaded."""
        return self._loaded

    def _entry_points(self) -> list[EntryPoint]:
        """Each entry point of the group with its distribution's name and version, once (sorted)."""
        if self._found is None:
            self._found = self._discover()
        return self._found

    def _discover(self) -> list[EntryPoint]:
        from importlib import metadata

        if self._path is None:
            found = metadata.entry_points(group=ENTRY_POINT_GROUP)
        else:
            found = [
                ep for dist in metadata.distributions(path=self._path)
                for ep in dist.entry_points if ep.group == ENTRY_POINT_GROUP
            ]
        unique: dict[tuple[str, str, str], tuple[metadata.EntryPoint, str, str]] = {}
        for ep in found:
            name, version = _dist_name_version(ep)
            unique.setdefault((name, ep.name, ep.value), (ep, name, version))
        return sorted(unique.values(), key=lambda found: (found[0].name, found[1]))

    def load(self) -> Registry:
        """Discover and load every plugin (once). Returns ``self``.

        When the listing cache was looked up and missed, the listing is written, so the next
        process loads plugins on demand."""
        with self._lock:
            if not self._loaded:
                self._load_entry_points(self._entry_points(), self._entry_points())
                self._loaded = True
                if self._missed is not None:
                    list_cache.remember(self._missed, self, foreign_core_warning())
                    self._missed = None
            if self._strict:
                self.raise_for_failed_plugins()
        return self

    def _load_entry_points(self, chosen: list[EntryPoint], every: list[EntryPoint]) -> None:
        """Load the plugins of ``chosen`` not loaded yet; the registry then holds every plugin
        loaded so far in the order of ``every`` (all entry points), as if those alone were installed."""
        claimed: dict[str, list[str]] = {}
        for ep, distribution, _ in every:
            claimed.setdefault(ep.name, []).append(distribution)
        new = [found for found in chosen if (found[0].name, found[1], found[0].value) not in self._done]
        self._done.update(self._load_plugins(new, claimed))
        plugins: list[PluginInfo] = []
        components: dict[str, list[ComponentSpec]] = {kind: [] for kind in COMPONENT_KINDS}
        metrics: dict[str, list[MetricInfo]] = {}
        sets: dict[str, list[str]] = {}
        for ep, distribution, _ in every:
            done = self._done.get((ep.name, distribution, ep.value))
            if done is not None:
                plugins.append(done.plugin)
                for kind, specs in done.components.items():
                    components[kind].extend(specs)
                for info in done.metrics:
                    _add(metrics, info)
                for name, ids in done.sets.items():
                    sets.setdefault(name, ids)
                    sets.setdefault(f"{ep.name}/{name}", ids)
        self._plugins, self._components, self._metrics, self._sets = plugins, components, metrics, sets

    def _load_plugins(self, chosen: list[EntryPoint], claimed: dict[str, list[str]],
                      ) -> dict[tuple[str, str, str], _Loaded]:
        """Import the registration modules of ``chosen``, register those that import and target a
        supported plugin API with one plugin manager, and call each hook once for all of them
        (1:N); every plugin's contributions are then checked on their own, so one that fails is
        recorded with its error and the others load."""
        loaded: dict[tuple[str, str, str], _Loaded] = {}
        manager = new_plugin_manager()
        registered: dict[str, list[tuple[EntryPoint, Any]]] = {}  # entry points by the name their module has
        modules: dict[str, Any] = {}
        for ep, distribution, version in chosen:
            key, name = (ep.name, distribution, ep.value), f"{distribution}:{ep.name}"
            base = {"name": ep.name, "distribution": distribution, "version": version, "module": ep.value}
            try:
                module = ep.load()
            except BaseException as exc:  # noqa: BLE001 - a broken plugin is a state, not a crash
                _reraise_interrupt(exc)
                loaded[key] = _Loaded(PluginInfo(**base, status=PluginStatus.IMPORT_ERROR, error=_describe(exc)))
                continue
            api_version = getattr(module, "PLUGIN_API_VERSION", None)
            if api_version not in SUPPORTED_API_VERSIONS:
                loaded[key] = _Loaded(PluginInfo(**base, status=PluginStatus.INCOMPATIBLE, api_version=api_version,
                                                 error=_api_mismatch(ep.value, api_version)))
                continue
            if manager.is_registered(module):  # a module several entry points name: its results are each one's
                registered[manager.get_name(module) or name].append(((ep, distribution, version), api_version))
                continue
            error = _register(manager, module, name)
            if error is not None:
                loaded[key] = _Loaded(PluginInfo(**base, status=PluginStatus.INVALID, api_version=api_version,
                                                 error=error))
                continue
            registered[name], modules[name] = [((ep, distribution, version), api_version)], module
        given = _call_hooks(manager)
        for name, entries in registered.items():
            hooks = tuple(hook for hook in RUN_HOOKS
                          if any(impl.plugin_name == name for impl in getattr(manager.hook, hook).get_hookimpls()))
            for (ep, distribution, version), api_version in entries:
                done = self._checked(ep, distribution, version, claimed[ep.name], api_version, given.get(name, {}))
                loaded[ep.name, distribution, ep.value] = attrs.evolve(done, module=modules[name], hooks=hooks)
        return loaded

    def _checked(self, ep: metadata.EntryPoint, distribution: str, version: str, claimants: list[str],
                 api_version: int, given: dict[str, list[Contribution]]) -> _Loaded:
        """One plugin's contributions to every hook, validated: its metrics, sets and components."""
        base = {"name": ep.name, "distribution": distribution, "version": version, "module": ep.value}
        try:
            specs = _collect_specs(_results(given, "evalcore_metrics"), ep.name)
            components = {kind: tuple(collect_components(kind, _results(given, cls.hook), ep.name))
                          for kind, cls in COMPONENT_KINDS.items()}
            sets = _collect_sets(_results(given, "evalcore_metric_sets"), ep.name)
            if self._strict:
                _check_implementations(specs)
        except BaseException as exc:  # noqa: BLE001
            _reraise_interrupt(exc)
            return _Loaded(PluginInfo(
                **base, status=PluginStatus.INVALID, api_version=api_version, error=_describe(exc),
            ))
        origin = Origin(base["distribution"], base["version"])
        others = tuple(d for d in claimants if d != origin.distribution)
        status, error = PluginStatus.LOADED, None
        if others:
            status = PluginStatus.CONFLICT
            error = (f"namespace {ep.name!r} is claimed by several distributions: "
                     + ", ".join(sorted(claimants)))
        names = {kind: tuple(c.name for c in found) for kind, found in components.items() if found}
        plugin = PluginInfo(**base, status=status, error=error, api_version=api_version,
                            metrics=tuple(s.key for s in specs), components=names)
        infos = tuple(MetricInfo(spec, origin, conflicts_with=others) for spec in specs)
        return _Loaded(plugin, infos, sets, components)

    # -- loading on demand -----------------------------------------------------------

    def _cached_index(self) -> PluginIndex | None:
        """Which plugin provides what, from a valid listing cache, while plugins load on demand:
        over ``sys.path``, not strict, the cache not turned off, not every plugin loaded yet."""
        if (self._loaded or self._strict or self._path is not None or self._index is False
                or not self._use_listing_cache):
            return None
        if self._index is None:
            now = None if list_cache_disabled() else list_cache.scan()
            found = list_cache.load_index(now) if now is not None else None
            self._index = PluginIndex(found[0]) if found is not None else False
            self._missed = now if found is None else None
            self._cached_warning = found[1] if found is not None else None
        return self._index or None

    def foreign_core_warning(self) -> str | None:
        """:func:`foreign_core_warning` over this registry's path (from a valid listing cache, which
        keeps it, without looking at the installed distributions)."""
        if self._cached_index() is not None:
            return self._cached_warning
        return foreign_core_warning(self._path)

    def _load_only(self, index: PluginIndex, entries: list[PluginEntry]) -> bool:
        """Load just the plugins of the index ``entries`` (their entry points as the index has them:
        a valid cache means the installed ones are unchanged); ``False`` when every plugin is loaded."""
        with self._lock:
            if self._loaded:
                return False
            self._load_entry_points(_entry_points_of(entries), _entry_points_of(index.entries))
            return True

    def _resolve_on_demand(self, metric_id: Any) -> tuple[MetricInfo, dict[str, Any]] | None:
        """The metric ``metric_id`` names exactly (no alias, case as written), its plugin loaded
        alone; ``None`` when the cached listing does not tell that plugin."""
        index = self._cached_index()
        if index is None or not isinstance(metric_id, str):
            return None
        try:
            parsed = parse_metric_id(metric_id)
        except MetricIdError:
            return None
        found = index.metric_provider(parsed.namespace, parsed.name)
        if found is None:
            return None
        with self._lock:
            if not self._load_only(index, [found[1]]):
                return None
            entries = self._metrics.get(found[0], [])
        return (entries[0], parsed.params) if len(entries) == 1 else None

    def plugin_index(self) -> list[PluginEntry]:
        """Which plugin provides what (every plugin loaded), as the listing cache keeps it."""
        self.load()
        done = [self._done[p.name, p.distribution, p.module] for p in self._plugins]
        return [plugin_entry(d.plugin.name, d.plugin.distribution, d.plugin.version, d.plugin.module,
                             d.plugin.status.value, list(d.plugin.metrics), list(d.sets),
                             {kind: [spec.to_dict() for spec in specs] for kind, specs in d.components.items()},
                             list(d.hooks))
                for d in done]

    def call_run_hook(self, hook: str, **arguments: Any) -> list[Any]:
        """Call the run hook ``hook`` once for every plugin that
        implements it (1:N) with ``arguments``, loading those plugins alone where a valid listing cache
        tells which they are; their results, ``None`` left out. A plugin's error is raised."""
        index = self._cached_index()
        if index is not None:
            self._load_only(index, [entry for entry in index.entries if hook in entry["hooks"]])
        else:
            self.load()
        manager = new_plugin_manager()
        with self._lock:
            for done in self._done.values():
                if done.plugin.ok and hook in done.hooks and not manager.is_registered(done.module):
                    manager.register(done.module, name=f"{done.plugin.distribution}:{done.plugin.name}")
        results = []
        for contribution in getattr(manager.hook, hook)(**arguments):
            if contribution.error is not None:
                raise contribution.error
            if contribution.result is not None:
                results.append(contribution.result)
        return results

    def raise_for_failed_plugins(self) -> None:
        """Raise :class:`PluginError` describing every plugin that did not load cleanly."""
        failed = [p for p in self._plugins if not p.ok]
        if failed:
            raise PluginError("; ".join(
                f"plugin {p.name!r} from {p.distribution}: {p.status.value}: {p.error}" for p in failed
            ))

    # -- registering without a plugin ------------------------------------------------

    def register(self, spec: MetricSpec, factory: MetricFactory, *, replace: bool = False) -> MetricInfo:
        """Register a metric from code (function-style metrics). Same spec twice is a no-op."""
        self.load()
        info = MetricInfo(spec, Origin.local(), factory=factory)
        with self._lock:
            entries = self._metrics.get(spec.key, [])
            if entries and not replace:
                if all(e.origin == info.origin and e.spec == spec for e in entries):
                    return entries[0]
                owners = ", ".join(e.origin.distribution for e in entries)
                raise MetricConflictError(spec.key, [owners, "local registration"])
            self._metrics[spec.key] = [info]
        return info

    # -- queries ---------------------------------------------------------------------

    def readers(self) -> list[Any]:
        """The readers plugins provide that read the files their command-line options name
        (:class:`~evalcore.plugin.ReaderSpec`, ``--qrels`` / ``--run``); from a valid listing cache
        without loading a plugin (a reader imports its implementation when used). Readers of the data
        given itself (by its suffix or kind) are among ``components("readers")``."""
        return [r for r in self.components("readers") if any(o.kind == "path" for o in r.options)]

    def components(self, kind: str) -> list[Any]:
        """The components of ``kind`` (``readers``, ``executors``, ``trackers``, ``commands``) plugins
        provide, plugin by plugin; from a valid listing cache without loading a plugin (a component
        imports its implementation when used)."""
        cls = COMPONENT_KINDS[kind]
        index = self._cached_index()
        if index is not None:
            return [cls(**fields) for fields in index.components(kind)]
        self.load()
        return list(self._components[kind])

    def component(self, kind: str, name: str) -> Any:
        """The one component of ``kind`` called ``name``; an error names the installed ones, or
        every plugin that claims the name."""
        found = [spec for spec in self.components(kind) if spec.name == name]
        what = COMPONENT_KINDS[kind].kind
        if not found:
            known = ", ".join(sorted({spec.name for spec in self.components(kind)})) or "none installed"
            raise EvalcoreError(f"no {what} named {name!r} is installed ({kind}: {known})")
        if len(found) > 1:
            raise EvalcoreError(f"the {what} {name!r} is provided by several plugins: "
                                + ", ".join(sorted(spec.namespace for spec in found)) + "; uninstall all but one")
        return found[0]

    def plugins(self) -> list[PluginInfo]:
        """Every discovered plugin with its status."""
        self.load()
        return list(self._plugins)

    def metrics(self, family: str | None = None) -> list[MetricInfo]:
        """Every registered metric, sorted by key (conflicting ones appear once per claimant)."""
        self.load()
        infos = [info for key in sorted(self._metrics) for info in self._metrics[key]]
        if family is not None:
            infos = [i for i in infos if i.in_family(family)]
        return infos

    def expand(self, metric_id: str) -> list[str]:
        """The metric ids a name stands for: a metric set's members (``all_trec``), else itself."""
        name = metric_id.strip()
        index = self._cached_index()
        if index is None or not self._load_only(index, index.set_providers(name)):
            self.load()
        if "/" in name and name in self._metrics:  # a metric's own id, not the set of its name
            return [metric_id]
        return list(self._sets.get(name, [metric_id]))

    def metric_sets(self) -> dict[str, list[str]]:
        """Every metric set plugins declare, by ``namespace/name``."""
        self.load()
        return {name: list(ids) for name, ids in self._sets.items() if "/" in name}

    def resolve(self, metric_id: str) -> tuple[MetricInfo, dict[str, Any]]:
        """The metric an id or an alias names and the parameters it gives.

        A metric set's bare name (``all_trec``, trec_eval's ``P`` and ``recall``) names several
        metrics and is refused, in any case. An exact match wins; otherwise names and aliases are
        matched ignoring case (``MRR@10``, ``BLEU``, ``ROUGE-L``), where only one metric matches.
        Text that matches no metric (or does not even parse as an id) is reported with the closest
        known ids.
        """
        if isinstance(metric_id, str) and "/" not in metric_id:
            self._refuse_set(metric_id, metric_id.strip(), self.expand(metric_id))
        found = self._resolve_on_demand(metric_id)
        if found is not None:
            return found
        self.load()
        try:
            return self._resolve_exact(metric_id)
        except (UnknownMetricError, MetricIdError) as exc:
            found = self._resolve_ignoring_case(metric_id) if isinstance(metric_id, str) else None
            if found is not None:
                return found
            if isinstance(exc, UnknownMetricError) or not isinstance(metric_id, str):
                raise
            suggestions = self._suggest(_name_part(metric_id))
            if _parses(_lowered_name(metric_id)):  # an id but for its case: a name no metric has
                raise UnknownMetricError(metric_id, suggestions) from None
            if not suggestions:
                raise
            error = MetricIdError(f"{exc}; did you mean {', '.join(repr(s) for s in suggestions)}?")
            error.suggestions = suggestions
            raise error from None

    def _resolve_exact(self, metric_id: str) -> tuple[MetricInfo, dict[str, Any]]:
        """The metric ``metric_id`` names as written (case included)."""
        try:
            parsed = parse_metric_id(metric_id)
        except MetricIdError:
            found = self._resolve_alias(metric_id)
            if found is None:
                raise
            return found
        if parsed.key not in self._metrics and not any(
            v[0].spec.name == parsed.name for v in self._metrics.values()
        ):
            found = self._resolve_alias(metric_id)
            if found is not None:
                return found
        if parsed.namespace is not None:
            keys = [parsed.key] if parsed.key in self._metrics else []
        else:
            keys = sorted(k for k, v in self._metrics.items() if v[0].spec.name == parsed.name)
        if not keys:
            raise UnknownMetricError(metric_id, self._suggest(parsed.key))
        if len(keys) > 1:
            raise AmbiguousMetricError(metric_id, keys)
        entries = self._metrics[keys[0]]
        if len(entries) > 1:
            raise MetricConflictError(keys[0], sorted(e.origin.distribution for e in entries))
        return entries[0], parsed.params

    def _resolve_alias(self, text: str) -> tuple[MetricInfo, dict[str, Any]] | None:
        """The metric an alias names (``P_10``, ``retrieval/nDCG@10``), or ``None``."""
        return self._one_of(text, self._alias_matches(text, ignore_case=False))

    def _alias_matches(self, text: str, *, ignore_case: bool) -> dict[str, tuple[MetricInfo, dict[str, Any]]]:
        """Each metric an alias of which matches ``text``, with the parameters it gives."""
        namespace, sep, name = text.strip().rpartition("/")
        if sep and "(" in namespace:  # a '/' inside parameters, not a namespace
            namespace, name = "", text.strip()
        if ignore_case:
            namespace = namespace.lower()
        matches: dict[str, tuple[MetricInfo, dict[str, Any]]] = {}
        for key, entries in self._metrics.items():
            spec = entries[0].spec
            if namespace and spec.namespace != namespace:
                continue
            for alias in spec.aliases:
                params = alias.match(name, ignore_case=ignore_case)
                if params is not None:
                    matches.setdefault(key, (entries[0], params))
                    break
        return matches

    def _one_of(self, text: str, matches: dict[str, tuple[MetricInfo, dict[str, Any]]],
                ) -> tuple[MetricInfo, dict[str, Any]] | None:
        """The one match, ``None`` for none; several metrics are ambiguous."""
        if len(matches) > 1:
            raise AmbiguousMetricError(text, sorted(matches))
        if not matches:
            return None
        key, found = next(iter(matches.items()))
        if len(self._metrics[key]) > 1:
            raise MetricConflictError(key, sorted(e.origin.distribution for e in self._metrics[key]))
        return found

    @staticmethod
    def _refuse_set(text: str, name: str, members: list[str]) -> None:
        """Raise when ``members``, what the set ``name`` expands to, are a metric set's (not ``text`` itself)."""
        if members != [text]:
            raise AmbiguousMetricError(text.strip(), members, metric_set=name)

    def _resolve_ignoring_case(self, text: str) -> tuple[MetricInfo, dict[str, Any]] | None:
        """The metric ``text`` names when case is ignored in its namespace, name and aliases
        (parameter values keep their case); two different metrics matching are ambiguous, and
        so is a metric set's bare name in another case (``Recall``)."""
        sets = {name.casefold(): name for name in self._sets if "/" not in name}
        name = sets.get(text.strip().casefold())
        if name is not None:
            self._refuse_set(text, name, self._sets[name])
        matches = self._alias_matches(text, ignore_case=True)
        lowered = _lowered_name(text)
        if lowered != text:
            try:
                info, params = self._resolve_exact(lowered)
            except (UnknownMetricError, MetricIdError):
                pass
            except AmbiguousMetricError as exc:
                raise AmbiguousMetricError(text, exc.candidates) from None
            else:
                matches = {info.key: (info, params), **{k: v for k, v in matches.items() if k != info.key}}
        return self._one_of(text, matches)

    def _suggest(self, text: str) -> list[str]:
        text = text.lower()
        keys = list(self._metrics)
        names = {info.spec.name: key for key, infos in self._metrics.items() for info in infos}
        close = difflib.get_close_matches(text, keys, n=3, cutoff=0.6)
        close += [names[n] for n in difflib.get_close_matches(text.split("/")[-1], names, n=3, cutoff=0.6)]
        return list(dict.fromkeys(close))[:3]

    def describe(self, metric_id: str) -> MetricInfo:
        return self.resolve(metric_id)[0]

    def create(self, metric_id: str, **params: Any) -> Metric:
        """A ready-to-use metric for ``metric_id``; keyword parameters override the id's."""
        info, id_params = self.resolve(metric_id)
        for name, value in params.items():
            if name in id_params and id_params[name] != value:
                raise ParameterError(
                    f"parameter {name!r} given twice with different values: "
                    f"{id_params[name]!r} in {metric_id!r} and {value!r}"
                )
        merged = {**id_params, **params}
        factory = info.factory or load_implementation(info.spec)
        return factory(info.spec, merged, info.origin)


_NAME_HEAD = re.compile(r"\s*(?:[A-Za-z][A-Za-z0-9_]*/)?[A-Za-z][A-Za-z0-9_]*")
"""The namespace and name at the start of a metric id, in any case."""


def _name_part(text: str) -> str:
    """The namespace and name a metric id (even one that does not parse) starts with, else the text."""
    head = _NAME_HEAD.match(text)
    return head.group().strip() if head is not None else text.strip()


def _lowered_name(text: str) -> str:
    """``text`` with the namespace and name it starts with in lower case (parameters as they are)."""
    head = _NAME_HEAD.match(text)
    return text if head is None else head.group().lower() + text[head.end():]


def _parses(text: str) -> bool:
    try:
        parse_metric_id(text)
    except MetricIdError:
        return False
    return True


def load_implementation(spec: MetricSpec) -> MetricFactory:
    """Import the class named by ``spec.implementation``."""
    from evalcore._contract.metric import Metric

    try:
        target = import_object(spec.implementation)
    except BaseException as exc:  # noqa: BLE001 - also SystemExit from a broken module
        _reraise_interrupt(exc)
        raise EvalcoreError(
            f"cannot import the implementation of {spec.key} ({spec.implementation}): {_describe(exc)}"
        ) from exc
    if not (isinstance(target, type) and issubclass(target, Metric)):
        raise EvalcoreError(f"{spec.implementation} is not an evalcore Metric class")
    return target


def _register(manager: pluggy.PluginManager, module: Any, name: str) -> str | None:
    """Register ``module`` as the plugin ``name``; the error, as one line, when pluggy refuses it
    (a hook taking an argument no hook offers)."""
    try:
        manager.register(module, name=name)
    except BaseException as exc:  # noqa: BLE001
        _reraise_interrupt(exc)
        if manager.is_registered(module):
            manager.unregister(module)
        return _describe(exc)
    return None


def _call_hooks(manager: pluggy.PluginManager) -> dict[str, dict[str, list[Contribution]]]:
    """Each hook called once for every plugin registered with ``manager`` (1:N), with its
    arguments; what each plugin gave, ``{plugin name: {hook name: [contribution, ...]}}``."""
    given: dict[str, dict[str, list[Contribution]]] = {}
    for hook in PluginHooks.__dict__:
        if hook.startswith("evalcore_"):
            for contribution in getattr(manager.hook, hook)(api_version=PLUGIN_API_VERSION):
                given.setdefault(contribution.plugin, {}).setdefault(hook, []).append(contribution)
    return given


def _results(given: dict[str, list[Contribution]], hook: str) -> list[Any]:
    """A plugin's results of ``hook`` (none where it does not implement it); its error, raised."""
    results = []
    for contribution in given.get(hook, []):
        if contribution.error is not None:
            raise contribution.error
        if contribution.result is not None:
            results.append(contribution.result)
    return results


def _api_mismatch(module: str, api_version: Any) -> str:
    if api_version is None:
        return (f"{module} declares no PLUGIN_API_VERSION; add 'PLUGIN_API_VERSION = {PLUGIN_API_VERSION}' "
                "for the plugin API it is written for")
    supported = " and ".join(map(str, SUPPORTED_API_VERSIONS))
    return f"targets plugin API version {api_version!r}; this evalcore loads versions {supported}"


def _check_implementations(specs: Iterable[MetricSpec]) -> None:
    """Import every implementation (strict mode): a wrong ``implementation`` path shows at load time."""
    for spec in specs:
        load_implementation(spec)


def _collect_specs(results: list[Any], namespace: str) -> list[MetricSpec]:
    raw_specs: list[Any] = []
    for result in results:
        if not isinstance(result, Iterable) or isinstance(result, (str, bytes, dict)):
            raise SpecError(f"evalcore_metrics must return a list of specs, got {type(result).__name__}")
        raw_specs.extend(result)
    specs: dict[str, MetricSpec] = {}
    for raw in raw_specs:
        spec = _validate_spec(raw, namespace)
        if spec.name in specs and specs[spec.name] != spec:
            raise SpecError(f"metric {spec.key!r} is registered twice with different specs")
        specs[spec.name] = spec
    return list(specs.values())


def _collect_sets(results: list[Any], namespace: str) -> dict[str, list[str]]:
    sets: dict[str, list[str]] = {}
    for result in results:
        if not isinstance(result, dict):
            raise SpecError(f"evalcore_metric_sets must return a dict, got {type(result).__name__}")
        for name, ids in result.items():
            if not isinstance(name, str) or isinstance(ids, (str, bytes)) or not isinstance(ids, Iterable):
                raise SpecError(f"metric set {name!r} must map a name to a list of metric ids")
            sets[name] = [i if "/" in i.split("(")[0] else f"{namespace}/{i}" for i in ids]
    return sets


def _validate_spec(raw: Any, namespace: str) -> MetricSpec:
    """``raw`` as a spec of ``namespace``: a :class:`MetricSpec` (validated when it was made) is
    taken as it is, or with the namespace filled in; a mapping is validated here."""
    if isinstance(raw, MetricSpec) and raw.namespace in ("", namespace):
        return raw if raw.namespace else raw.evolve(namespace=namespace)
    try:
        data = raw.to_dict() if isinstance(raw, MetricSpec) else dict(raw)
    except (TypeError, ValueError):
        raise SpecError(f"a metric spec must be a MetricSpec or a mapping, got {type(raw).__name__}") from None
    if data.get("namespace") and data["namespace"] != namespace:
        raise SpecError(
            f"spec {data.get('name')!r} declares namespace {data['namespace']!r}, "
            f"but its plugin's entry point is named {namespace!r}"
        )
    data["namespace"] = namespace
    try:
        return MetricSpec.from_dict(data)
    except SpecError as exc:
        raise SpecError(f"invalid spec {data.get('name')!r}: {exc}") from None


def _dist_name_version(ep: metadata.EntryPoint) -> tuple[str, str]:
    """The name and version of the distribution ``ep`` comes from (its metadata read once)."""
    dist = ep.dist
    if dist is None:
        return "<unknown>", ""
    found = dist.metadata
    return found["Name"], found["Version"]


def _describe(exc: BaseException) -> str:
    if isinstance(exc, SystemExit):
        return f"SystemExit: the module called sys.exit({exc.code!r:.80}) while importing"
    return f"{type(exc).__name__}: {str(exc)[:2000]}"


def _reraise_interrupt(exc: BaseException) -> None:
    """Let a Ctrl-C through; every other exception of a plugin is recorded, not raised."""
    if isinstance(exc, KeyboardInterrupt):
        raise exc


_default: Registry | None = None
_default_lock = threading.Lock()


def default_registry() -> Registry:
    """The process-wide registry over ``sys.path`` (created on first use)."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Registry()
        return _default


def default_registry_loaded() -> bool:
    """Whether the process-wide registry has loaded its plugins (or had metrics registered)."""
    with _default_lock:
        return _default is not None and _default.loaded


def reset_default_registry() -> None:
    """Forget the process-wide registry (plugins are discovered again on next use) and the
    metrics ``list_metrics`` read from the listing cache."""
    global _default
    with _default_lock:
        _default = None
        listed.forget()


publish(globals())
