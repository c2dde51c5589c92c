"""Fixtures that build real (unpacked) distributions with entry points in a temporary folder."""

from __future__ import annotations

import importlib
import pathlib
import sys
import textwrap
from collections.abc import Callable, Iterator

import pytest
from evalcore._registry.registry import Registry, reset_default_registry

DistributionMaker = Callable[..., pathlib.Path]


@pytest.fixture
def registry_at(site: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> Callable[..., Registry]:
    """A fresh :class:`Registry` that discovers the distributions in ``site``."""
    monkeypatch.syspath_prepend(str(site))

    def make(**kwargs: object) -> Registry:
        return Registry(path=[str(site)], **kwargs)  # type: ignore[arg-type]

    return make


@pytest.fixture
def site(tmp_path: pathlib.Path) -> Iterator[pathlib.Path]:
    """An empty folder to install distributions into (add it to a path to discover them)."""
    folder = tmp_path / "site"
    folder.mkdir()
    yield folder
    for name, module in list(sys.modules.items()):
        if str(getattr(module, "__file__", None) or "").startswith(str(folder)):
            del sys.modules[name]


@pytest.fixture
def make_distribution(site: pathlib.Path) -> DistributionMaker:
    """Write ``NAME-VERSION.dist-info`` with entry points, plus the given module sources."""

    def make(name: str, version: str = "1.0", *, plugins: dict[str, str] | None = None,
             modules: dict[str, str] | None = None) -> pathlib.Path:
        info = site / f"{name.replace('-', '_')}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
        lines = ["[evalcore.plugins]", *(f"{ep} = {target}" for ep, target in (plugins or {}).items())]
        (info / "entry_points.txt").write_text("\n".join(lines) + "\n")
        for module, source in (modules or {}).items():
            path = site / (module.replace(".", "/") + ".py")
            path.parent.mkdir(parents=True, exist_ok=True)
            for parent in path.relative_to(site).parents:
                if str(parent) != ".":
                    (site / parent / "__init__.py").touch()
            path.write_text(textwrap.dedent(source))
        importlib.invalidate_caches()
        return info

    return make


@pytest.fixture(autouse=True)
def fresh_default_registry():
    """Each test starts with an undiscovered process-wide registry."""
    reset_default_registry()
    yield
    reset_default_registry()


REGISTRATION = '''
from evalcore.plugin import PLUGIN_API_VERSION, MetricSpec, ParamSpec, hookimpl

@hookimpl
def evalcore_metrics():
    return [
        MetricSpec(
            name="{name}", implementation="{module}:Overlap", summary="Share of words in common.",
            family="toy", params=(ParamSpec(name="k", type="int", default=3, minimum=1, identity=True),),
        ),
    ]
'''

IMPLEMENTATION = '''
from evalcore.plugin import SampleMetric, SkipSample

class Overlap(SampleMetric):
    def score(self, example, prediction):
        reference = example.get("reference_answer")
        if reference is None:
            raise SkipSample("no reference")
        words = prediction["response"].split()[: self.params["k"]]
        return sum(w in reference.split() for w in words) / max(len(words), 1)
'''


def _toy_plugin(package: str, name: str = "overlap") -> dict[str, str]:
    return {
        f"{package}._register": REGISTRATION.format(name=name, module=f"{package}.metrics"),
        f"{package}.metrics": IMPLEMENTATION,
    }


@pytest.fixture
def toy_plugin() -> Callable[..., dict[str, str]]:
    """Module sources of a working plugin: ``toy_plugin(package, name="overlap")``."""
    return _toy_plugin


@pytest.fixture(autouse=True)
def private_cache_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Caches (the listing of ``evalcore list``, model answers) go to a fresh folder, not the user's."""
    monkeypatch.setenv("EVALCORE_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
