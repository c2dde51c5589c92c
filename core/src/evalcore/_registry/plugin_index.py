"""Which plugin provides what, as plain data kept with the cached listing (:mod:`.list_cache`).

With a valid cached listing the registry loads only the plugin a metric id, a metric set or the
readers or a run hook need (their entry points alone) instead of every plugin. Each plugin's entry is
a dict: its entry point (``name``, ``module``, its ``distribution`` and ``version``), ``status`` (a
:class:`~evalcore.registry.PluginStatus` value), the metric keys and metric-set names it provides, the
run hooks its module implements (``hooks``),
and the fields of its components, by kind: ``readers``, ``executors``, ``trackers``, ``commands``,
``settings`` and ``backends`` (a :class:`~evalcore.plugin.ReaderSpec` and its siblings as dicts:
the command line adds their options and commands without loading the plugin).

Imports nothing at module level but the standard library, so reading the listing stays cheap.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    PluginEntry = dict[str, Any]

_TEXT_FIELDS = ("name", "distribution", "version", "module", "status")
_LOADED = "loaded"


_COMPONENT_FIELDS = ("name", "implementation", "summary", "namespace")
_OPTION_FIELDS = ("flag", "dest", "help", "kind")
_KINDS = ("readers", "executors", "trackers", "commands", "programs", "views", "settings", "backends")


def plugin_entry(name: str, distribution: str, version: str, module: str, status: str, metrics: list[str],
                 sets: list[str], components: dict[str, list[dict[str, Any]]], hooks: list[str]) -> PluginEntry:
    """The index entry of one discovered plugin (``components``: each component spec's fields, by kind;
    ``hooks``: the run hooks its registration module implements)."""
    return {"name": name, "distribution": distribution, "version": version, "module": module, "status": status,
            "metrics": list(metrics), "sets": list(sets), "hooks": list(hooks),
            **{kind: list(components.get(kind, ())) for kind in _KINDS}}


def is_index(value: Any) -> bool:
    """Whether ``value`` (read from a cache file) is a list of plugin entries."""
    return isinstance(value, list) and all(map(_is_entry, value))


class PluginIndex:
    """The plugins of a cached listing, asked which of them provide a metric, a set or readers."""

    def __init__(self, entries: list[PluginEntry]) -> None:
        self.entries = entries
        """Every discovered plugin, in the order the registry loads them."""
        self._by_key: dict[str, list[PluginEntry]] = {}
        self._by_name: dict[str, list[str]] = {}
        for entry in entries:
            for key in entry["metrics"]:
                self._by_key.setdefault(key, []).append(entry)
                names = self._by_name.setdefault(key.rpartition("/")[2], [])
                if key not in names:
                    names.append(key)

    def metric_provider(self, namespace: str | None, name: str) -> tuple[str, PluginEntry] | None:
        """The key and the one plugin of the metric ``namespace/name`` (any namespace for ``None``),
        where exactly one metric has that name and one plugin, loaded cleanly, provides it."""
        keys = self._by_name.get(name, []) if namespace is None else [f"{namespace}/{name}"]
        if len(keys) != 1:
            return None
        providers = self._by_key.get(keys[0], [])
        if len(providers) != 1 or providers[0]["status"] != _LOADED:
            return None
        return keys[0], providers[0]

    def set_providers(self, name: str) -> list[PluginEntry]:
        """The plugins declaring a metric set called ``name`` (bare or ``namespace/name``)."""
        return [entry for entry in self.entries
                if any(name in (bare, f"{entry['name']}/{bare}") for bare in entry["sets"])]

    def components(self, kind: str) -> list[dict[str, Any]]:
        """The fields of every component of ``kind`` (``readers``, ...), plugin by plugin in loading order."""
        return [fields for entry in self.entries for fields in entry[kind]]


def _is_entry(entry: Any) -> bool:
    return (isinstance(entry, dict) and all(isinstance(entry.get(f), str) for f in _TEXT_FIELDS)
            and all(isinstance(v := entry.get(f), list) and all(isinstance(s, str) for s in v)
                    for f in ("metrics", "sets", "hooks"))
            and all(isinstance(found := entry.get(kind), list) and all(map(_is_component, found)) for kind in _KINDS))


def _is_component(spec: Any) -> bool:
    return (isinstance(spec, dict) and all(isinstance(spec.get(f), str) for f in _COMPONENT_FIELDS)
            and isinstance(options := spec.get("options"), list)
            and all(isinstance(o, dict) and all(isinstance(o.get(f), str) for f in _OPTION_FIELDS) for o in options))
