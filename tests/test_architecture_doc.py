"""docs/architecture.md names every distribution, every hook with the distributions implementing it,
and every module of the core, as the code gives them (docs/generate_architecture.py)."""

from __future__ import annotations

import importlib.util
import pathlib
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
GENERATOR = ROOT / "docs" / "generate_architecture.py"


def _generator():
    spec = importlib.util.spec_from_file_location("generate_architecture", GENERATOR)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_page_is_what_the_code_gives():
    proc = subprocess.run([sys.executable, str(GENERATOR), "--check"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_module_or_hook_missing_from_the_page_fails_the_check(tmp_path, monkeypatch):
    generator = _generator()
    core = tmp_path / "evalcore"
    shutil.copytree(generator.CORE, core, ignore=shutil.ignore_patterns("__pycache__"))
    (core / "_engine" / "new_stage.py").write_text('"""A stage added without a word in the architecture page."""\n')
    hooks = core / "_contract" / "hooks.py"
    hooks.write_text(hooks.read_text().replace(
        "\n\ndef new_plugin_manager", "\n\n    @hookspec\n    def evalcore_gadgets(self) -> list:\n"
        '        """Return the plugin\'s gadgets."""\n\n\ndef new_plugin_manager', 1))
    monkeypatch.setattr(generator, "CORE", core)
    monkeypatch.setattr(generator, "HOOKS", hooks)
    page = generator.PAGE.read_text(encoding="utf-8")
    assert "_engine/new_stage.py" not in page and "evalcore_gadgets" not in page
    new = generator.regenerated(page)
    assert new != page
    assert "| `_engine/new_stage.py` | A stage added without a word in the architecture page |" in new
    assert "| `evalcore_gadgets` | Return the plugin's gadgets | no distribution of this repository |" in new


def test_every_hook_lists_the_distributions_that_implement_it():
    generator = _generator()
    page = generator.PAGE.read_text(encoding="utf-8")
    for _, name, _, folder in generator.distributions():
        for hook in generator.implemented_hooks(folder):
            row = next(line for line in page.splitlines() if line.startswith(f"| `{hook}` |"))
            assert f"`{name}`" in row, (hook, name)
