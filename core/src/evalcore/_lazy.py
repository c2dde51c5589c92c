"""Public namespaces that list each name once, in a type stub, and import it on first access.

A public module that re-exports names of the private layers or of an extension (``evalcore``, ``evalcore.plugin``,
``evalcore.cache``, ``evalcore.http``, ``evalcore.judge``, ``evalcore.dspy``, ``evalcore.engine``,
``evalcore.testing``, ``evalcore.testkit``)
is a type stub ``<module>.pyi`` of explicit re-exports, one name a line::

    from evalcore._contract.spec import MetricSpec as MetricSpec

beside a ``.py`` that reads it with :func:`attach_stub`, as scientific-python's ``lazy_loader``
does: the stub is read line by line (one ``from M import X as X`` a line; not with :mod:`ast`,
whose import costs more than the rest of ``import evalcore``), each name is mapped to the module
that defines it, ``__all__`` is the stub's names in the stub's order, and a name is imported from its module on
first access (PEP 562), so importing the namespace loads nothing else. A private module may be
re-exported whole (``from evalcore._contract import inputs as inputs``). Type checkers, IDEs and
the API reference read the same stub. A name may come from an extension's package
(``from evalcore_pytest.testing import ScriptedServer as ScriptedServer``): without that
distribution, using the name raises a :class:`ModuleNotFoundError` that names the distribution to
install; with it, the name keeps the extension's module as its ``__module__``.

Where a public object says it lives: a private module that defines public classes or functions
ends with ``publish(globals())``, which sets their ``__module__`` to the public module that
documents them, whatever imports the private module first. Reprs, tracebacks and pickles then name
``evalcore.Score``, not ``evalcore._contract.scores.Score``, and pickles load through the public
namespace. A name exported by several public modules belongs to the first of them in this order:
``evalcore``, then ``evalcore.plugin``, then the others alphabetically. So ``MetricSpec``, which
both ``evalcore`` and ``evalcore.plugin`` export, is ``evalcore.MetricSpec``, and the reference
documents it there. A name an extension defines keeps its own module (``evalcore_http.client.OpenAIClient``),
which is public in that distribution.
"""

from __future__ import annotations

import importlib
import os
import types

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

_PACKAGE = __name__.rpartition(".")[0]
_FOLDER = os.path.dirname(os.path.abspath(__file__))
_STUBS: dict[str, dict[str, str]] = {}
_HOMES: dict[str, dict[str, str]] = {}


def stub_exports(public: str) -> dict[str, str]:
    """``{name: defining module}`` for each re-export (``from m import X as X``) in the stub of the
    public module ``public``, in the stub's order."""
    exports = _STUBS.get(public)
    if exports is None:
        path = _stub_path(public)
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
        exports = {}
        for number, line in enumerate(lines, 1):
            code = line.partition("#")[0].strip()
            if not code:
                continue
            match code.split():
                case ["from", module, "import", name, "as", alias] if not module.startswith(".") and alias == name:
                    exports[name] = module
                case _:
                    raise SyntaxError(f"{path}:{number}: a stub line must read 'from module import name as name'")
        _STUBS[public] = exports
    return exports


def attach_stub(namespace: dict[str, object]) -> tuple[Callable[[str], object], Callable[[], list[str]], list[str]]:
    """``__getattr__``, ``__dir__`` and ``__all__`` for the module whose globals are ``namespace``,
    from its stub; a name is kept in ``namespace`` once loaded."""
    public = str(namespace["__name__"])
    exports = stub_exports(public)

    def __getattr__(name: str) -> object:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {public!r} has no attribute {name!r}")
        loaded = _import_provider(module, f"{public}.{name}")
        if not hasattr(loaded, name):  # a submodule exported whole (``evalcore.plugin.inputs``)
            loaded = importlib.import_module(f"{module}.{name}")
            value: object = loaded
        else:
            value = getattr(loaded, name)
        publish(vars(loaded))
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(exports)

    return __getattr__, __dir__, list(exports)


def _import_provider(module: str, public: str) -> types.ModuleType:
    """The module that defines ``public``: evalcore's own, or an extension's (``evalcore_stats``),
    which, when its distribution is missing, is a :class:`ModuleNotFoundError` naming it."""
    top = module.partition(".")[0]
    if top == _PACKAGE:
        return importlib.import_module(module)
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name is None or exc.name.partition(".")[0] != top:
            raise
        distribution = top.replace("_", "-")
        raise ModuleNotFoundError(f"{public} is part of {distribution}, which is not installed: "
                                  f"pip install {distribution}", name=top) from None


def with_deprecated_aliases(getattr_: Callable[[str], object], public: str,
                            aliases: dict[str, str]) -> Callable[[str], object]:
    """``getattr_`` that also answers the names in ``aliases`` (``{old name: the public module it moved
    to}``), with a ``FutureWarning`` naming the new home the first time each is used. They stay out
    of ``__all__`` and ``dir()``."""
    warned: set[str] = set()

    def __getattr__(name: str) -> object:
        home = aliases.get(name)
        if home is None:
            return getattr_(name)
        if name not in warned:
            warned.add(name)
            import warnings

            warnings.warn(f"{public}.{name} is deprecated: use {home}.{name}", FutureWarning, stacklevel=2)
        return getattr(importlib.import_module(home), name)

    return __getattr__


def publish(namespace: dict[str, object]) -> None:
    """Set the ``__module__`` of the public classes and functions that the module whose globals are
    ``namespace`` defines to the public module that documents them (see the module docstring)."""
    module = namespace["__name__"]
    for name, public in home_modules().get(str(module), {}).items():
        value = namespace.get(name)
        if (isinstance(value, type) or type(value) is types.FunctionType) and value.__module__ == module:
            value.__module__ = public


def home_modules() -> dict[str, dict[str, str]]:
    """``{defining module: {name: public module}}`` over every stub of the package, for evalcore's own
    modules: a name an extension defines keeps its extension's module, whichever path imports it."""
    if not _HOMES:
        publics = sorted((_public_name(f) for f in os.listdir(_FOLDER) if f.endswith(".pyi")), key=_rank)
        for public in publics:
            for name, module in stub_exports(public).items():
                if module.partition(".")[0] == _PACKAGE:
                    _HOMES.setdefault(module, {}).setdefault(name, public)
    return _HOMES


def _public_name(filename: str) -> str:
    stem = filename[:-len(".pyi")]
    return _PACKAGE if stem == "__init__" else f"{_PACKAGE}.{stem}"


def _rank(public: str) -> tuple[int, str]:
    return {_PACKAGE: 0, f"{_PACKAGE}.plugin": 1}.get(public, 2), public


def _stub_path(public: str) -> str:
    stem = "__init__" if public == _PACKAGE else public.rpartition(".")[2]
    return os.path.join(_FOLDER, stem + ".pyi")

