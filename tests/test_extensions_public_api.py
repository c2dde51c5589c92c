"""The extensions use evalcore as a third party would: only its public namespaces, never ``evalcore._*``."""

from __future__ import annotations

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]
SOURCES = sorted(ROOT.glob("extensions/*/src/**/*.py"))
PUBLIC = {"evalcore", "evalcore.plugin", "evalcore.testing", "evalcore.vectors", "evalcore.text"}
"""The public namespaces, and the two helper modules plugins share (vectors and text normalisation)."""


def evalcore_imports(path: pathlib.Path) -> list[tuple[str, int]]:
    """``(module, line)`` of every import of an evalcore module in ``path`` (inside functions too)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.module, node.lineno))
        elif isinstance(node, ast.Import):
            found.extend((alias.name, node.lineno) for alias in node.names)
    return [(module, line) for module, line in found if module.split(".")[0] == "evalcore"]


def test_extensions_import_only_public_evalcore_namespaces():
    assert {p.parts[len(ROOT.parts) + 1] for p in SOURCES} >= {"mlflow", "wandb"}
    private = [f"{path.relative_to(ROOT)}:{line} imports {module}" for path in SOURCES
               for module, line in evalcore_imports(path) if module not in PUBLIC]
    assert private == []
