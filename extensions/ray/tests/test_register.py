"""evalcore-ray is a plugin as a third party would write it: listed without importing Ray, and
built on evalcore's public namespaces alone."""

from __future__ import annotations

import ast
import pathlib

import evalcore
import pytest
from evalcore.testing import heavy_modules_after_listing

pytest.importorskip("evalcore_ray")
PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "src" / "evalcore_ray"
PUBLIC = {"evalcore", "evalcore.plugin", "evalcore.testing"}


def test_the_ray_executor_is_listed_with_its_option():
    [spec] = [s for s in evalcore.Registry().components("executors") if s.name == "ray"]
    assert spec.namespace == "ray" and spec.implementation == "evalcore_ray.executor:RayExecutor"
    assert [(o.flag, o.dest) for o in spec.options] == [("--ray-address", "address")]


def test_listing_imports_neither_ray_nor_the_executor():
    assert heavy_modules_after_listing("evalcore_ray", heavy=("ray", "numpy")) == []


@pytest.mark.parametrize("module", sorted(PACKAGE.glob("*.py")), ids=lambda p: p.name)
def test_only_public_evalcore_namespaces_are_imported(module):
    tree = ast.parse(module.read_text(encoding="utf-8"))
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    assert sorted(m for m in imported if m.split(".")[0] == "evalcore" and m not in PUBLIC) == []
