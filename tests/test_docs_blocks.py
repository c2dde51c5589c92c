"""Every fenced ``python`` and ``bash`` block in README.md, docs/, plugins/*/README.md and
extensions/*/README.md runs as written.

Blocks run in order, in a fresh folder holding a copy of ``examples/``: each ``bash`` block with
``bash -euo pipefail``, the ``python`` blocks of a file as one script (later blocks see earlier
names). A comment on the line before a block changes that:

* ``<!-- docs: skip REASON -->`` — the block is not meant to run (an install command, a server URL);
* ``<!-- docs: requires MODULE ... -->`` — it runs only where those modules can be imported.
"""

from __future__ import annotations

import importlib.util
import pathlib
import re
import shutil
import subprocess
import sys

import attrs
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
FILES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), *sorted(ROOT.glob("plugins/*/README.md")),
         *sorted(ROOT.glob("extensions/*/README.md"))]
FENCE = re.compile(r"^```(\w*)")
MARK = re.compile(r"^<!--\s*docs:\s*(skip|requires)\b(.*?)-->\s*$")
RUN = {"python", "bash"}


@attrs.frozen
class Block:
    path: pathlib.Path
    line: int
    language: str
    code: str
    mark: str = ""
    argument: str = ""

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def blocks(path: pathlib.Path) -> list[Block]:
    """The fenced blocks of ``path`` with their language and the mark before them."""
    found: list[Block] = []
    lines = path.read_text().splitlines()
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        start, language = i, match.group(1)
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        previous = next((lines[j] for j in range(start - 1, -1, -1) if lines[j].strip()), "")
        mark = MARK.match(previous.strip())
        found.append(Block(path, start + 1, language, "\n".join(lines[start + 1:end]) + "\n",
                           *((mark.group(1), mark.group(2).strip()) if mark else ())))
        i = end + 1
    return found


def _runnable(block: Block) -> bool:
    if block.language not in RUN or block.mark == "skip":
        return False
    if block.mark == "requires":
        return all(importlib.util.find_spec(name) is not None for name in block.argument.split())
    return True


def test_every_block_not_meant_to_run_says_why():
    unexplained = [b.where for path in FILES for b in blocks(path) if b.mark == "skip" and not b.argument]
    assert not unexplained


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_blocks_run(path, tmp_path):
    runnable = [b for b in blocks(path) if _runnable(b)]
    if not runnable:
        pytest.skip("no block to run here")
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    bin_dir = str(pathlib.Path(sys.executable).parent)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path), "EVALCORE_CACHE_DIR": str(tmp_path / "cache"),
           "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    for block in [b for b in runnable if b.language == "bash"]:
        proc = subprocess.run(["bash", "-euo", "pipefail", "-c", block.code], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, f"{block.where}:\n{block.code}\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}"
    python = [b for b in runnable if b.language == "python"]
    if python:
        script = "\n".join(f"# {b.where}\n{b.code}" for b in python)
        proc = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, f"{path.name}:\n{script}\n{proc.stdout[-2000:]}{proc.stderr[-3000:]}"
