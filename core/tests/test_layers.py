"""The core's import structure: layers that import downward only, and no import cycles.

Both checks read every import statement, including those inside functions and under
``TYPE_CHECKING``, so a lazy import cannot hide an arrow that runs back up.
"""

from __future__ import annotations

import pathlib
import sys
import textwrap

import grimp
import pytest
from importlinter import cli

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONTRACTS = ROOT / "pyproject.toml"


def import_cycles(package: str) -> list[list[str]]:
    """Every group of ``package``'s modules that import each other, directly or through others."""
    graph = grimp.build_graph(package, include_external_packages=False, cache_dir=None)
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(module: str) -> None:  # Tarjan's strongly connected components
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for target in edges[module]:
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in on_stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == module:
                    break
            if len(group) > 1 or module in edges[module]:
                cycles.append(sorted(group))

    for module in sorted(edges):
        if module not in index:
            visit(module)
    return cycles


def lint(config: pathlib.Path) -> int:
    return cli.lint_imports(str(config), no_cache=True, no_logo=True)


def test_the_core_keeps_its_layer_contract():
    assert lint(CONTRACTS) == cli.EXIT_STATUS_SUCCESS


def test_the_core_has_no_import_cycles():
    assert import_cycles("evalcore") == []


@pytest.fixture
def toy_package(tmp_path, monkeypatch):
    """A package ``toylayers`` with a low and a high module; the low one imports upward inside a function."""
    package = tmp_path / "toylayers"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "high.py").write_text("from toylayers import low\n")
    (package / "low.py").write_text(textwrap.dedent("""
        def late():
            from toylayers import high  # an import inside a function still counts
            return high
    """))
    (tmp_path / "pyproject.toml").write_text(textwrap.dedent("""
        [tool.importlinter]
        root_package = "toylayers"

        [[tool.importlinter.contracts]]
        name = "toy layers"
        type = "layers"
        layers = ["toylayers.high", "toylayers.low"]
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in [m for m in sys.modules if m.startswith("toylayers")]:
        del sys.modules[name]


def test_the_checks_see_an_upward_import_inside_a_function(toy_package):
    assert lint(toy_package / "pyproject.toml") == cli.EXIT_STATUS_ERROR
    assert import_cycles("toylayers") == [["toylayers.high", "toylayers.low"]]
