"""Syntax validation with tree-sitter grammars installed as packages (offline; extra ``syntax``).

Each language's grammar comes from its own wheel (``tree-sitter-rust`` and so on), so
nothing is downloaded at run time. :func:`check_tree_sitter` answers ``None`` when the code
parses without an error node, else where the first error is.
"""

from __future__ import annotations

import functools
import importlib
from typing import Any

# language -> (grammar module, function returning the language pointer)
GRAMMARS = {
    "rust": ("tree_sitter_rust", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "java": ("tree_sitter_java", "language"),
    "c": ("tree_sitter_c", "language"),
    "cpp": ("tree_sitter_cpp", "language"),
    "bash": ("tree_sitter_bash", "language"),
}
ALIASES = {"js": "javascript", "ts": "typescript", "c++": "cpp", "sh": "bash", "shell": "bash", "golang": "go"}
INSTALL_HINT = "pip install 'evalcore-checks[syntax]'"


def grammar_name(language: str) -> str | None:
    """The grammar for ``language`` (aliases resolved), or ``None`` when there is none."""
    name = ALIASES.get(language, language)
    return name if name in GRAMMARS else None


@functools.cache
def parser(name: str) -> Any:
    """A tree-sitter parser for grammar ``name``; ImportError names the package to install."""
    from tree_sitter import Language, Parser

    module, function = GRAMMARS[name]
    grammar = importlib.import_module(module)
    return Parser(Language(getattr(grammar, function)()))


def available(name: str) -> bool:
    """Whether tree-sitter and the grammar of ``name`` are installed."""
    try:
        parser(name)
    except ImportError:
        return False
    return True


def check_tree_sitter(code: str, name: str) -> str | None:
    """``None`` when ``code`` parses as ``name`` without errors, else where the first error is."""
    root = parser(name).parse(code.encode("utf-8")).root_node
    if not root.has_error:
        return None
    node = _first_error(root) or root
    row, column = node.start_point
    what = f"missing {node.type!r}" if node.is_missing else "unexpected syntax"
    return f"{name} syntax error: {what} at line {row + 1}, column {column + 1}"


def _first_error(node: Any) -> Any:
    if node.is_error or node.is_missing:
        return node
    for child in node.children:
        if child.has_error or child.is_missing:
            found = _first_error(child)
            if found is not None:
                return found
    return None
