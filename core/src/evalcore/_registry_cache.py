"""The cache of ``evalcore list``: the listing kept until the Python environment changes.

Listing every metric means importing each plugin's registration module and validating its
specs (pydantic, importlib.metadata), most of the command's start-up. The listing is plain
data, so it is kept as JSON in ``listing/`` under the cache folder (``$EVALCORE_CACHE_DIR``,
else ``$XDG_CACHE_HOME/evalcore``, else ``~/.cache/evalcore``), one file per interpreter.
A cached listing is used only while its fingerprint still holds:

* the same interpreter, evalcore version and ``sys.path``;
* every ``sys.path`` folder with the same modification time (installing, upgrading or
  removing a distribution there changes it), and the same ``entry_points.txt`` in each of its
  ``*.dist-info`` / ``*.egg-info`` folders;
* every file and folder of evalcore's and of each plugin's package unchanged.

Checking this takes ``os.stat`` and ``os.scandir`` alone. A file that cannot be read, is
malformed or is stale is a miss; one that cannot be written is left alone.
"""

from __future__ import annotations

import json
import os
import sys
import zlib
from collections.abc import Iterable
from typing import Any

from ._env import cache_root
from ._listing import Listing, is_listing

FORMAT = 1
_DIST_SUFFIXES = (".dist-info", ".egg-info")

Stamp = list[int] | None


def cache_file() -> str:
    """The cache file of this interpreter."""
    tag = zlib.crc32(f"{sys.executable}\0{sys.prefix}".encode())
    return os.path.join(cache_root(), "listing", f"{tag:08x}.json")


def fingerprint() -> list[Any] | None:
    """What the installed distributions look like now; ``None`` when it cannot be told cheaply
    (an import hook that provides distributions of its own)."""
    from importlib.machinery import PathFinder

    if any(hasattr(f, "find_distributions") and f is not PathFinder for f in sys.meta_path):
        return None
    from ._version import __version__

    return [FORMAT, __version__, sys.version, sys.executable,
            [[entry, *_folder(os.path.abspath(entry or "."))] for entry in sys.path]]


def load(key: list[Any]) -> Listing | None:
    """The cached listing when its fingerprint is ``key`` and its package files are unchanged."""
    try:
        with open(cache_file(), encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("key") != key or not is_listing(data.get("listing")):
        return None
    files = data.get("files")
    if not isinstance(files, list) or not all(_unchanged(item) for item in files):
        return None
    return Listing(*data["listing"])


def store(key: list[Any], listing: Listing, packages: Iterable[str]) -> None:
    """Keep ``listing`` under ``key``, watching the files of ``packages`` (never raises for I/O)."""
    path = cache_file()
    files = sorted({f for package in packages for f in _package_files(package)})
    data = {"key": key, "files": [[f, _stamp(f)] for f in files], "listing": list(listing)}
    temporary = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(temporary, "w", encoding="utf-8") as handle:
            json.dump(data, handle)
        os.replace(temporary, path)
    except (OSError, TypeError, ValueError):
        try:
            os.unlink(temporary)
        except OSError:
            pass


def _stamp(path: str) -> Stamp:
    try:
        found = os.stat(path)
    except OSError:
        return None
    return [found.st_mtime_ns, found.st_size]


def _folder(path: str) -> list[Any]:
    """A ``sys.path`` entry's stamp and, for a folder, its distributions' entry-point files."""
    try:
        with os.scandir(path) as entries:
            names = sorted(e.name for e in entries if e.name.endswith(_DIST_SUFFIXES))
    except OSError:  # a zip file, a file or nothing
        return [_stamp(path)]
    return [_stamp(path), [[name, _stamp(os.path.join(path, name, "entry_points.txt"))] for name in names]]


def _unchanged(item: Any) -> bool:
    return isinstance(item, list) and len(item) == 2 and isinstance(item[0], str) and _stamp(item[0]) == item[1]


def _package_files(name: str) -> list[str]:
    """Every file and folder of the top-level module or package ``name`` (nothing is imported)."""
    from importlib.util import find_spec

    try:
        spec = find_spec(name)
    except (ImportError, ValueError):
        return []
    if spec is None:
        return []
    found = [spec.origin] if spec.origin and os.path.isfile(spec.origin) else []
    for root in spec.submodule_search_locations or ():
        for folder, subfolders, names in os.walk(root):
            subfolders[:] = [s for s in subfolders if s != "__pycache__"]
            found.append(folder)
            found.extend(os.path.join(folder, n) for n in names)
    return found
