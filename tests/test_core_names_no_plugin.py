"""The core names no plugin: no installed plugin's namespace, settings group, setting, option flag or
backend appears in its source as a string or an identifier (docstrings and comments aside)."""

import ast
import pathlib

import pytest
from evalcore._registry.registry import Registry

CORE = pathlib.Path(__file__).resolve().parents[1] / "core" / "src" / "evalcore"
SKIPPED = {("_cli", "main.py")}
"""``_cli/main.py`` holds ``EXTENSION_COMMANDS``, the table naming the distribution of each extension
command on purpose; its other names are checked through the modules it calls."""

ALLOWED = {
    "backend": "the core's name for the component kind (BackendSpec, evalcore.plugin.backend)",
    "model": "a parameter of the OpenAI-compatible client and the model-call cache key (evalcore.http, "
             "evalcore.cache), and the key under which a row's details name the model in the report",
    "base_url": "a parameter of the OpenAI-compatible client (RunContext.client, evalcore.http); a setting "
                "that does not change a value when compare checks parameters",
    "api_key_env": "as base_url",
    "callable": "Python's builtin callable()",
    "dspy": "DSPy, the library: every metric can be called DSPy-style, and evalcore.dspy is a public drop-in",
    "embedding": "a field of the OpenAI embeddings API's JSON, spoken by evalcore.http and evalcore.testing",
    "transformers": "a library the conformance kit checks that registration modules do not import",
    "robustness": "a metric key of the benchmark engine's registry, which its drop-in maps to a metric id",
    "system": "an ordinary word of comparisons: each compared run is a system",
    "outcome": "an ordinary word: a gate's outcome",
    "report": "the JSON report every run writes (-o result.json), a local variable's name for it",
    "batch": "the core's word for the records a metric scores together (SampleMetric.score_batch, _contract/batch.py)",
    "seed": "the run's own random seed (evaluate(seed=...), --seed: bootstrap and permutation draws), which the "
            "judge's settings group also has for its sampling",
}
"""Words a plugin also uses that the core cannot avoid, with the reason."""


def plugin_words() -> dict[str, str]:
    """Each name installed plugins declare, with what it is."""
    registry = Registry(listing_cache=False)
    words = {plugin.name: "plugin namespace" for plugin in registry.plugins()}
    for group in registry.components("settings"):
        words[group.name] = "settings group"
        words.update({setting: f"setting of {group.name}" for setting in group.variables})
        words.update({option.flag: f"option of {group.name}" for option in group.options})
        words.update({option.dest: f"setting of {group.name}" for option in group.options})
    for backend in registry.components("backends"):
        words[backend.name] = f"{backend.group} backend"
    return words


def _docstrings(tree: ast.AST) -> set[int]:
    bodies = (n.body for n in ast.walk(tree)
              if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)))
    return {id(body[0].value) for body in bodies
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)}


def names_in(source: str) -> set[str]:
    """The string constants (not docstrings) and identifiers of a module."""
    tree = ast.parse(source)
    docstrings = _docstrings(tree)
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            found.add(node.value)
        elif isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, (ast.arg, ast.keyword)) and node.arg:
            found.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, ast.alias):
            found.update(filter(None, (*node.name.split("."), node.asname)))
    return found


def test_the_core_source_names_no_plugin():
    words = plugin_words()
    assert {"judge", "embedding", "--judge-model", "http"} <= set(words), "the judge and semantic plugins declare these"
    named = []
    for path in sorted(CORE.rglob("*.py")):
        if path.relative_to(CORE).parts[-2:] in SKIPPED:
            continue
        for name in sorted(names_in(path.read_text(encoding="utf-8")) & set(words) - set(ALLOWED)):
            named.append(f"{path.relative_to(CORE)}: {name!r} ({words[name]})")
    assert named == []


@pytest.mark.parametrize("source, expected", [
    ('"""judge"""\nx = "judge"', {"x", "judge"}),
    ('def f(judge=1):\n    """embedding"""\n    return g(embedding=judge)', {"f", "judge", "g", "embedding"}),
    ("import evalcore.dspy as d", {"evalcore", "dspy", "d"}),
])
def test_names_are_strings_and_identifiers_not_docstrings(source, expected):
    assert names_in(source) == expected
