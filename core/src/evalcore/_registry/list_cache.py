"""The cache of ``evalcore list``: the listing kept until the Python environment changes.

Listing every metric means importing each plugin's registration module and validating its
specs (pydantic, importlib.metadata), most of the command's start-up; ``list_metrics()`` reads
the same cache (:mod:`.listed`), and the registry reads which plugin provides each metric, set
and reader from it, to load only the plugins a run needs. The listing is plain data, so it is kept as JSON in
``listing/`` under the cache folder (``$EVALCORE_CACHE_DIR``, else ``$XDG_CACHE_HOME/evalcore``,
else ``~/.cache/evalcore``), one file per interpreter and ``sys.path``.
A cached listing is used only while everything it was made from is unchanged:

* the interpreter, evalcore's version and ``sys.path``;
* the distributions in each ``sys.path`` folder: every ``*.dist-info`` / ``*.egg-info`` by
  name (installing, upgrading or removing one changes the names) and its ``entry_points.txt``;
* every file and folder of evalcore's package and of each plugin's package, and no module of
  the same name in a folder earlier on ``sys.path`` (nor, for a package that was missing or came
  from an import hook, in any).

Checking this takes ``os.scandir`` and ``os.stat`` alone. A cache file that cannot be read, is
malformed or is stale is a miss; one that cannot be written is left alone.

The file holds two lines of JSON: first what it was made from with which plugin provides what
(all that a run, loading only the plugins it needs, reads: :func:`load_index`), then the metrics'
listing (:func:`load`), which is most of the file.
"""

from __future__ import annotations

import json
import os
import sys
import zlib
from collections import namedtuple

from evalcore._contract.env import cache_root

from .listing import Listing, is_listing, listing_from_registry, plugin_packages
from .plugin_index import is_index

TYPE_CHECKING = False  # typing itself is not imported: ``list_metrics()`` reads this cache at start-up
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any, NamedTuple

    from .listing import Registry
    from .plugin_index import PluginEntry

FORMAT = 10
"""Bumped when the cached listing's shape changes (2: ``verified_against`` and ``tolerance``;
3: which plugin provides what; 4: the readers' fields; 5: executors, trackers and commands;
6: program adapters; 7: record views; 8: settings groups and backends; 9: readers' suffixes and objects;
10: which plugin provides what on a first line of its own)."""
_DIST_SUFFIXES = (".dist-info", ".egg-info")
_MODULE_SUFFIXES = (".py", ".pyc", ".so", ".pyd")


if TYPE_CHECKING:
    class Scan(NamedTuple):
        """The environment as the cache sees it: ``key`` (compared whole) and the entries of each
        ``sys.path`` folder (to tell where a module would be imported from)."""

        key: list[Any]
        folders: list[tuple[str, frozenset[str]]]
else:  # the same named tuple, made without importing typing
    Scan = namedtuple("Scan", ["key", "folders"])


def cache_file() -> str:
    """The cache file of this interpreter and import path (a script's folder comes first on
    ``sys.path``, so ``evalcore list`` and each script's ``list_metrics()`` keep their own)."""
    tag = zlib.crc32("\0".join([sys.executable, sys.prefix, *sys.path]).encode())
    return os.path.join(cache_root(), "listing", f"{tag:08x}.json")


def scan() -> Scan | None:
    """The installed distributions now; ``None`` when they cannot be told this way (an import
    hook that provides distributions of its own)."""
    from importlib.machinery import PathFinder

    if any(hasattr(f, "find_distributions") and f is not PathFinder for f in sys.meta_path):
        return None
    from evalcore._version import __version__

    entries, folders = [], []
    for entry in sys.path:
        folder = os.path.abspath(entry or ".")
        try:
            with os.scandir(folder) as found:
                names = frozenset(e.name for e in found)
        except OSError:  # a zip file, a file or nothing
            entries.append([entry, folder, _stamp(folder)])
            continue
        folders.append((folder, names))
        dists = sorted(n for n in names if n.endswith(_DIST_SUFFIXES))
        entries.append([entry, folder, [[n, _stamp(os.path.join(folder, n, "entry_points.txt"))] for n in dists]])
    return Scan([FORMAT, __version__, sys.version, sys.executable, entries], folders)


def load(now: Scan) -> Listing | None:
    """The cached listing when it was made in the environment ``now`` describes."""
    found = _read(now, whole=True)
    if found is None:
        return None
    head, rest = found
    if not (isinstance(rest, list) and len(rest) == 2):
        return None
    listing = [*rest, head["warning"], head["plugins"]]
    return Listing(*listing) if is_listing(listing) else None


def load_index(now: Scan) -> tuple[list[PluginEntry], str | None] | None:
    """Which plugin provides what, and the warning about a foreign ``evalcore`` distribution, of
    the cached listing made in the environment ``now`` describes (its first line alone is read)."""
    found = _read(now, whole=False)
    return None if found is None else (found[0]["plugins"], found[0]["warning"])


def _read(now: Scan, *, whole: bool) -> tuple[dict[str, Any], Any] | None:
    """The cache file's first line, checked against ``now``, and (``whole``) its second."""
    try:
        with open(cache_file(), encoding="utf-8") as handle:
            head = json.loads(handle.readline())
            rest = json.loads(handle.read()) if whole else None
    except (OSError, ValueError):
        return None
    if not (isinstance(head, dict) and head.get("key") == now.key and is_index(head.get("plugins"))
            and (head.get("warning") is None or isinstance(head.get("warning"), str))):
        return None
    files, packages = head.get("files"), head.get("packages")
    modules: dict[str, frozenset[str]] = {}
    if not (isinstance(files, list) and all(map(_unchanged, files))
            and isinstance(packages, list) and all(_same_origin(p, now, modules) for p in packages)):
        return None
    return head, rest


def store(now: Scan, listing: Listing, packages: Iterable[str]) -> None:
    """Keep ``listing``, made in the environment ``now`` describes from ``packages`` (the
    top-level modules of evalcore and of the plugins); I/O errors are ignored."""
    path = cache_file()
    origins = {name: _origin_folder(name) for name in packages}
    files = sorted({f for name in origins for f in _package_files(name)})
    head = {"key": now.key, "files": [[f, _stamp(f)] for f in files],
            "packages": [[name, folder] for name, folder in sorted(origins.items())],
            "plugins": listing.plugins, "warning": listing.warning}
    temporary = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(temporary, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(head) + "\n")
            json.dump([listing.metrics, listing.failed], handle)
        os.replace(temporary, path)
    except (OSError, TypeError, ValueError):
        try:
            os.unlink(temporary)
        except OSError:
            pass


def remember(now: Scan, registry: Registry, warning: str | None) -> None:
    """Keep the listing of ``registry`` (loaded in the environment ``now`` describes), with the
    warning about a foreign ``evalcore`` distribution."""
    store(now, listing_from_registry(registry, warning), plugin_packages(registry))


def _stamp(path: str) -> list[int] | None:
    try:
        found = os.stat(path)
    except OSError:
        return None
    return [found.st_mtime_ns, found.st_size]


def _unchanged(item: Any) -> bool:
    return isinstance(item, list) and len(item) == 2 and isinstance(item[0], str) and _stamp(item[0]) == item[1]


def _same_origin(item: Any, now: Scan, modules: dict[str, frozenset[str]]) -> bool:
    """Whether the top-level module ``item[0]`` would still come from where it came from, ``item[1]``:
    a ``sys.path`` folder, a folder elsewhere (an import hook of an editable install) or nowhere
    (``None``). It would not when a folder earlier on ``sys.path`` holds a module of that name, or a
    package (for a module that came from outside ``sys.path``, even a folder without ``__init__.py``)."""
    if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)):
        return False
    name, origin = item
    on_path = any(folder == origin for folder, _ in now.folders)
    for folder, names in now.folders:
        if folder == origin:
            return True
        if name in _module_names(modules, folder, names):
            return False
        if name in names and (not on_path or os.path.isfile(os.path.join(folder, name, "__init__.py"))):
            return False
    return True


def _module_names(found: dict[str, frozenset[str]], folder: str, names: frozenset[str]) -> frozenset[str]:
    """The top-level modules that files among ``names`` (the entries of ``folder``) define (``name.py``,
    ``name.cpython-311-x86_64-linux-gnu.so``), kept in ``found`` so each folder is gone through once."""
    if folder not in found:
        found[folder] = frozenset(n.partition(".")[0] for n in names if n.endswith(_MODULE_SUFFIXES))
    return found[folder]


def _spec(name: str) -> Any:
    from importlib.util import find_spec

    try:
        return find_spec(name)
    except (ImportError, ValueError):
        return None


def _origin_folder(name: str) -> str | None:
    """The ``sys.path`` folder the top-level module ``name`` is imported from (``None``: none)."""
    spec = _spec(name)
    if spec is None:
        return None
    locations = list(spec.submodule_search_locations or ())
    place = locations[0] if locations else spec.origin
    return os.path.dirname(os.path.abspath(place)) if place else None


def _package_files(name: str) -> list[str]:
    """Every file and folder of the top-level module or package ``name`` (nothing is imported)."""
    spec = _spec(name)
    if spec is None:
        return []
    found = [spec.origin] if spec.origin and os.path.isfile(spec.origin) else []
    for root in spec.submodule_search_locations or ():
        for folder, subfolders, names in os.walk(root):
            subfolders[:] = [s for s in subfolders if s != "__pycache__"]
            found.append(folder)
            found.extend(os.path.join(folder, n) for n in names)
    return found
