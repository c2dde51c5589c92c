"""Readers that plugins add: a format-specific way to read records (e.g. TREC qrels + run).

A plugin's registration module implements the ``evalcore_readers`` hook and returns
:class:`ReaderSpec` objects (or dicts of their fields). Like metric specs they are plain
data: the reader itself is imported only when its options are used.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import attrs

from evalcore._lazy import publish

from .errors import EvalcoreError, SpecError
from .references import import_object


@attrs.frozen
class ReaderOption:
    """A command-line option of a reader (``--qrels``), passed to it as keyword ``dest``."""

    flag: str
    dest: str
    help: str = ""
    kind: str = "path"
    """``"path"`` (a file that must exist), ``"int"`` or ``"str"``."""


def _options(raw: Iterable[Any]) -> tuple[ReaderOption, ...]:
    return tuple(o if isinstance(o, ReaderOption) else ReaderOption(**o) for o in raw)


@attrs.frozen
class ReaderSpec:
    """A reader: its name, ``"module:callable"`` building a source from the option values,
    and the options it takes. The reader is used when all its options are given."""

    name: str
    implementation: str
    options: tuple[ReaderOption, ...] = attrs.field(converter=_options)
    summary: str = ""
    namespace: str = ""

    def load(self) -> Any:
        """The callable named by ``implementation``."""
        try:
            return import_object(self.implementation)
        except Exception as exc:  # noqa: BLE001 - named below
            raise EvalcoreError(f"cannot load reader {self.name!r} ({self.implementation}): {exc}") from exc

    def open(self, **values: Any) -> Any:
        """The source reading the given option values."""
        return self.load()(**values)


def collect_readers(results: Iterable[Any], namespace: str) -> list[ReaderSpec]:
    """The reader specs in what a plugin module's ``evalcore_readers`` hook returned."""
    specs = []
    for result in results:
        for raw in result or ():
            try:
                spec = raw if isinstance(raw, ReaderSpec) else ReaderSpec(**raw)
            except TypeError as exc:
                raise SpecError(f"invalid reader spec from plugin {namespace!r}: {exc}") from None
            specs.append(attrs.evolve(spec, namespace=namespace))
    return specs


publish(globals())
