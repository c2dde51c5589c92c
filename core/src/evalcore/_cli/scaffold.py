"""``evalcore new-plugin NAME [--kind KIND]``: a plugin package that builds, installs, is listed and
passes its tests: metrics (the default), an executor, a tracker or a command.

The files are written from the templates in ``templates/``: ``common/`` for every kind and one
folder per kind, ``PACKAGE`` in a path standing for the import package ``evalcore_NAME``.
"""

from __future__ import annotations

import pathlib
import re

from evalcore._contract.errors import EvalcoreError
from evalcore._contract.hooks import PLUGIN_API_VERSION
from evalcore._version import __version__

NAME = re.compile(r"^[a-z][a-z0-9_]*$")
TEMPLATES = pathlib.Path(__file__).with_name("templates")
KINDS = {"metrics": "metrics", "executor": "an executor", "tracker": "a tracker", "command": "a command"}
"""Each kind of plugin the scaffold writes, with what its description calls it."""


def scaffold(given: str, parent: pathlib.Path, kind: str = "metrics",
             taken: frozenset[str] = frozenset()) -> pathlib.Path:
    """Write the package ``evalcore-NAME`` of ``kind`` under ``parent``; returns its folder.

    ``given`` is the namespace or the distribution's name: ``acme-bar`` (or ``evalcore-acme-bar``)
    makes the distribution ``evalcore-acme-bar`` with the namespace and package suffix ``acme_bar``.
    ``taken``: the namespaces of the installed plugins, which a new one must not reuse.
    """
    name = given.removeprefix("evalcore-").replace("-", "_")
    if not NAME.match(name):
        raise EvalcoreError(f"new-plugin: {given!r} cannot be a namespace: use lower case letters, digits, "
                            "'-' or '_', starting with a letter (e.g. acme-bar)")
    if kind not in KINDS:
        raise EvalcoreError(f"new-plugin: --kind must be one of {', '.join(KINDS)}; got {kind!r}")
    if name in taken:
        raise EvalcoreError(f"new-plugin: the namespace {name!r} belongs to an installed plugin; choose another name")
    root = parent / f"evalcore-{name.replace('_', '-')}"
    if root.exists():
        raise EvalcoreError(f"new-plugin: {root} already exists")
    major, minor = (int(part) for part in __version__.split(".")[:2])
    values = {"name": name, "dash": name.replace("_", "-"), "flag": name.replace("_", "-"),
              "cmd": name.replace("_", "-"), "title": name.replace("_", " ").capitalize(), "what": KINDS[kind],
              "api": PLUGIN_API_VERSION, "core_minor": f"{major}.{minor}", "core_next": f"{major}.{minor + 1}"}
    for folder in (TEMPLATES / "common", TEMPLATES / kind):
        for template in sorted(folder.rglob("*.tmpl")):
            relative = template.relative_to(folder).with_suffix("")  # x.py.tmpl -> x.py
            path = root / str(relative).replace("PACKAGE", f"evalcore_{name}")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(template.read_text(encoding="utf-8").format(**values), encoding="utf-8")
    return root
