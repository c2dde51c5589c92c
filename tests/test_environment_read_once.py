"""The environment is read once, where a run starts: no metric, backend or engine code reads it.

The core reads environment variables in one module (``evalcore._contract.env``); the run context
carries what a run started with. (The test helpers of ``evalcore.testing`` prepare the environment
of the commands they start, and are no part of a run.) Every other source file of the core, of the
bundled plugins and of the extensions is searched for a read of ``os.environ`` / ``os.getenv`` /
``os.environb`` / ``posix.environ``.
"""

from __future__ import annotations

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]
ALLOWED = {
    ROOT / "core" / "src" / "evalcore" / "_contract" / "env.py",  # the one place a run's environment is read
    ROOT / "extensions" / "pytest" / "src" / "evalcore_pytest" / "testing.py",  # test helpers: the environment
    # of a command they start, and whether a plugin's compiled part must have been built
}
SOURCES = sorted([*(ROOT / "core" / "src").rglob("*.py"), *ROOT.glob("plugins/*/src/**/*.py"),
                  *ROOT.glob("extensions/*/src/**/*.py")])


def environment_reads(path: pathlib.Path, root: pathlib.Path = ROOT) -> list[str]:
    """``file:line`` (relative to ``root``) of every place ``path`` reads the process environment."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in ("environ", "environb", "getenv", "getenvb") \
                and isinstance(node.value, ast.Name) and node.value.id in ("os", "posix"):
            found.append(f"{path.relative_to(root)}:{node.lineno}")
        elif isinstance(node, ast.ImportFrom) and node.module in ("os", "posix") \
                and any(alias.name in ("environ", "environb", "getenv", "getenvb") for alias in node.names):
            found.append(f"{path.relative_to(root)}:{node.lineno}")
    return found


def test_only_the_environment_module_reads_the_environment():
    assert len(SOURCES) > 150  # the core and every plugin were searched
    reads = [where for path in SOURCES if path not in ALLOWED for where in environment_reads(path)]
    assert reads == []


def test_the_search_finds_each_way_of_reading_it(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("import os\nfrom os import getenv\na = os.environ['A']\nb = os.getenv('B')\n"
                      "c = os.environ.get('C')\nd = os.path.join('x', 'y')\n")
    assert environment_reads(sample, tmp_path) == ["sample.py:2", "sample.py:3", "sample.py:4", "sample.py:5"]
