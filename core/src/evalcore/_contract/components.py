"""What plugins contribute beside metrics: readers, executors, trackers, commands, program adapters,
record views, settings groups and backends.

Each kind comes from its own hook (``evalcore_readers``, ``evalcore_executors``,
``evalcore_trackers``, ``evalcore_commands``, ``evalcore_programs``, ``evalcore_record_views``,
``evalcore_settings``, ``evalcore_backends``) as plain data: a name, the ``"module:attr"`` of its
implementation, the command-line options it adds and a summary. Like metric specs they list
without importing anything: the implementation is imported when the component is used.

* a **reader** builds a source of records from its options' values (TREC qrels and run files), or
  from the data given to ``evaluate`` when it declares the file suffixes or the object types it reads
  (CSV files, DataFrames);
* an **executor** scores a run's chunks somewhere else (``--executor NAME``): its implementation
  is called with the run's plan and program and returns a :class:`~evalcore.plugin.ChunkExecutor`;
* a **tracker** logs finished runs (``--log-to NAME``): its implementation is called with the
  values of its options and returns a :class:`~evalcore.plugin.Tracker`;
* a **command** is a click command added under ``evalcore`` (``evalcore NAME``);
* a **program** adapter lets :func:`evalcore.evaluate` run programs of another kind (a DSPy
  module): its implementation is called with the program given and returns a callable of one
  record, or ``None`` when the program is not of its kind;
* a **record view** shows what a plugin knows of a record in the report (a trace's tool calls):
  its implementation is called with the record and returns a :class:`~evalcore.plugin.RecordView`
  (evalcore-report defines views and shows them);
* a **settings group** is a named set of run settings (the run context's ``settings[NAME]``): its
  options set them on the command line, the keyword ``NAME={...}`` of ``evaluate`` in Python, and
  the environment variables it declares when neither does;
* a **backend** is a model backend a plugin provides for a settings group: the plugin that owns
  the group looks it up by name (:func:`evalcore.plugin.backend`) and calls its implementation.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

import attrs

from evalcore._lazy import publish

from .env import settings_from
from .errors import EvalcoreError, SpecError
from .references import import_object

OPTION_KINDS = ("path", "int", "str", "float", "flag")


@attrs.frozen
class ReaderOption:
    """A command-line option of a component (``--qrels``, ``--ray-address``), passed to it as keyword ``dest``."""

    flag: str
    dest: str
    help: str = ""
    kind: str = attrs.field(default="path")
    """``"path"`` (a file that must exist), ``"int"``, ``"float"``, ``"str"`` or ``"flag"`` (on or off)."""

    @kind.validator
    def _known_kind(self, _: Any, value: str) -> None:
        if value not in OPTION_KINDS:
            raise SpecError(f"option {self.flag}: kind must be one of {', '.join(OPTION_KINDS)}; got {value!r}")


def _options(raw: Iterable[Any]) -> tuple[ReaderOption, ...]:
    return tuple(o if isinstance(o, ReaderOption) else ReaderOption(**o) for o in raw)


@attrs.frozen
class ComponentSpec:
    """A component a plugin contributes: its name, ``"module:attr"`` of its implementation, the
    command-line options it takes and a one-line summary. ``namespace`` is filled in with the
    plugin's entry-point name."""

    kind: ClassVar[str] = "component"
    hook: ClassVar[str] = ""

    name: str
    implementation: str
    options: tuple[ReaderOption, ...] = attrs.field(default=(), converter=_options)
    summary: str = ""
    namespace: str = ""

    @property
    def key(self) -> str:
        """What no two components of a kind may share: the name (a backend's is ``group/name``)."""
        return self.name

    def load(self) -> Any:
        """The object named by ``implementation``."""
        try:
            return import_object(self.implementation)
        except Exception as exc:  # noqa: BLE001 - named below
            raise EvalcoreError(f"cannot load {self.kind} {self.name!r} ({self.implementation}): {exc}") from exc

    def to_dict(self) -> dict[str, Any]:
        """The fields as plain data (the listing cache keeps them)."""
        return attrs.asdict(self)


def _as_tuple(values: Iterable[str]) -> tuple[str, ...]:
    """``tuple(values)``, as a function of Python's: attrs reads each converter's signature when it
    builds the class, which takes milliseconds for a builtin type such as ``tuple``."""
    return tuple(values)


@attrs.frozen
class ReaderSpec(ComponentSpec):
    """A reader: builds a source of records from its options' values; used when all its file
    options are given (``--qrels`` and ``--run``)."""

    kind: ClassVar[str] = "reader"
    hook: ClassVar[str] = "evalcore_readers"

    suffixes: tuple[str, ...] = attrs.field(default=(), converter=_as_tuple)
    """File suffixes (``".csv"``) it reads when such a file is the data: ``implementation(path,
    columns=..., field_map=...)`` returns the source."""
    objects: tuple[str, ...] = attrs.field(default=(), converter=_as_tuple)
    """Top-level modules of the Python objects (``"pandas"``) it reads when one is the data, called as
    for ``suffixes``; it returns ``None`` for an object of the module that is not of its kind."""

    def open(self, **values: Any) -> Any:
        """The source reading the given option values; it keeps which reader made it and how
        (``source.reader``: :meth:`recorded`), so a run's journal can say how its records were read."""
        source = self.load()(**values)
        try:
            source.reader = self.recorded(values)
        except AttributeError:  # a source that takes no new attribute (slots, frozen) is not described
            pass
        return source

    def recorded(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """``{"name": ..., "options": {dest: value}}``: this reader and the values it was opened with,
        files as absolute paths, as a journal keeps them to read the records again."""
        options = {}
        for dest, value in values.items():
            if isinstance(value, os.PathLike) or (isinstance(value, str) and os.path.isfile(value)):
                value = os.path.abspath(value)
            if value is not None:
                options[dest] = value
        return {"name": self.name, "options": options}

    def read(self, data: Any, columns: Mapping[str, str] | None = None, field_map: Any = None) -> Any:
        """The source reading ``data`` (a file of one of its ``suffixes`` or an object of its ``objects``)."""
        return self.load()(data, columns=columns, field_map=field_map)


@attrs.frozen
class ExecutorSpec(ComponentSpec):
    """An executor (``--executor NAME``): ``implementation(plan, program)`` returns a
    :class:`~evalcore.plugin.ChunkExecutor`; its options' values are the run's ``executor_options``."""

    kind: ClassVar[str] = "executor"
    hook: ClassVar[str] = "evalcore_executors"


@attrs.frozen
class TrackerSpec(ComponentSpec):
    """A tracker (``--log-to NAME``): ``implementation(**option values)`` returns a
    :class:`~evalcore.plugin.Tracker`, checked before the run starts."""

    kind: ClassVar[str] = "tracker"
    hook: ClassVar[str] = "evalcore_trackers"


@attrs.frozen
class CommandSpec(ComponentSpec):
    """A command under ``evalcore``: ``implementation`` names a :class:`click.Command`."""

    kind: ClassVar[str] = "command"
    hook: ClassVar[str] = "evalcore_commands"


@attrs.frozen
class ProgramSpec(ComponentSpec):
    """A program adapter: ``implementation(program)`` returns a callable of one record that runs
    ``program`` (a DSPy module), or ``None`` when ``program`` is not of its kind."""

    kind: ClassVar[str] = "program adapter"
    hook: ClassVar[str] = "evalcore_programs"


@attrs.frozen
class RecordViewSpec(ComponentSpec):
    """A view of a record in the report: ``implementation(record)`` returns a
    :class:`~evalcore.plugin.RecordView` (or a dict of its fields), or ``None`` where it has nothing to
    show. ``applies_to``: a field path (``"prediction.trajectory"``) the record must have for the view
    to be called; empty: every record."""

    kind: ClassVar[str] = "view"
    hook: ClassVar[str] = "evalcore_record_views"

    applies_to: str = ""


def _variables(raw: Mapping[str, Any]) -> dict[str, tuple[str, ...]]:
    if not isinstance(raw, Mapping):
        raise SpecError(f"variables must map each setting to its environment variables; got {raw!r}")
    found = {}
    for setting, names in raw.items():
        names = (names,) if isinstance(names, str) else tuple(names)
        if not isinstance(setting, str) or not names or not all(isinstance(n, str) and n for n in names):
            raise SpecError(f"variables of {setting!r}: a list of environment variable names; got {names!r}")
        found[setting] = names
    return found


@attrs.frozen
class SettingsSpec(ComponentSpec):
    """A group of run settings (the run context's ``settings[name]``): each option sets the setting
    ``dest`` (``--judge-model`` sets ``model``); ``variables`` maps a setting to the environment
    variables read, first set wins, when neither an option nor the keyword ``name={...}`` of
    ``evaluate`` sets it. A group has no implementation: the plugins that use it read it."""

    kind: ClassVar[str] = "settings group"
    hook: ClassVar[str] = "evalcore_settings"

    implementation: str = ""
    variables: Mapping[str, tuple[str, ...]] = attrs.field(factory=dict, converter=_variables)

    def from_environment(self, environ: Mapping[str, str]) -> dict[str, str]:
        """The settings ``environ`` gives: per setting, the first of its variables that is set."""
        return settings_from(environ, self.variables)


def _group_name(_: Any, attribute: Any, value: str) -> None:
    if not isinstance(value, str) or not value:
        raise SpecError(f"a backend names the settings group it serves (group=...); got {value!r}")


@attrs.frozen
class BackendSpec(ComponentSpec):
    """A model backend for the settings group ``group``: the plugin owning the group calls
    ``implementation`` as its documentation says (a factory returning the backend object)."""

    kind: ClassVar[str] = "backend"
    hook: ClassVar[str] = "evalcore_backends"

    group: str = attrs.field(kw_only=True, validator=_group_name)

    @property
    def key(self) -> str:
        return f"{self.group}/{self.name}"


COMPONENT_KINDS: dict[str, type[ComponentSpec]] = {
    "readers": ReaderSpec, "executors": ExecutorSpec, "trackers": TrackerSpec, "commands": CommandSpec,
    "programs": ProgramSpec,
    "views": RecordViewSpec,
    "settings": SettingsSpec, "backends": BackendSpec,
}
"""Each kind of component by the plural its hook and the listing use."""


def collect_components(kind: str, results: Iterable[Any], namespace: str) -> list[ComponentSpec]:
    """The specs of ``kind`` in what one plugin's hook returned (specs or dicts of their fields)."""
    cls = COMPONENT_KINDS[kind]
    specs: list[ComponentSpec] = []
    for result in results:
        if result is None:
            continue
        if isinstance(result, (str, bytes, dict)) or not isinstance(result, Iterable):
            raise SpecError(f"{cls.hook} must return a list of {cls.__name__} (or dicts); got {type(result).__name__}")
        for raw in result:
            try:
                spec = raw if isinstance(raw, cls) else cls(**raw)
            except (TypeError, SpecError) as exc:
                raise SpecError(f"invalid {cls.kind} spec from plugin {namespace!r}: {exc}") from None
            specs.append(attrs.evolve(spec, namespace=namespace))
    names = [s.key for s in specs]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise SpecError(f"plugin {namespace!r} declares the {cls.kind} {', '.join(map(repr, twice))} twice")
    return specs


publish(globals())
