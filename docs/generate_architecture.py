"""Regenerate the parts of ``docs/architecture.md`` that the code decides: the distributions, every
plugin hook with the distributions that implement it, and every module of the core with what it does.

``python docs/generate_architecture.py`` rewrites the sections between ``<!-- generated: NAME -->``
and ``<!-- end: NAME -->``; ``--check`` exits 1, naming the sections, when the page is not what the
code gives (``tests/test_architecture_doc.py`` runs it). Everything is read from the source, without
importing it: the distributions' ``pyproject.toml``, their registration modules (``_register.py``),
the hook specifications (``core/src/evalcore/_contract/hooks.py``) and each module's docstring.
"""

from __future__ import annotations

import ast
import pathlib
import re
import sys
import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "architecture.md"
CORE = ROOT / "core" / "src" / "evalcore"
HOOKS = CORE / "_contract" / "hooks.py"
LAYERS = ["_cli", "_engine", "_registry", "_contract"]
"""The core's private packages, top layer first (the import contract in ``pyproject.toml`` keeps them so)."""


def first_sentence(doc: str | None) -> str:
    """The first sentence of a docstring, on one line (no trailing period)."""
    text = " ".join((doc or "").strip().split("\n\n")[0].split())
    match = re.match(r"(.+?[.:])(\s|$)", text)
    return (match.group(1) if match else text).rstrip(".:")


def distributions() -> list[tuple[str, str, str, pathlib.Path]]:
    """``(kind, distribution, description, folder)`` of the core, each extension and each metric family."""
    found = []
    for kind, folders in (("core", [ROOT / "core"]), ("extension", sorted(ROOT.glob("extensions/*/"))),
                          ("metric family", sorted(ROOT.glob("plugins/*/")))):
        for folder in folders:
            if (folder / "pyproject.toml").is_file():
                project = tomllib.loads((folder / "pyproject.toml").read_text(encoding="utf-8"))["project"]
                found.append((kind, project["name"], project.get("description", ""), folder))
    return found


def implemented_hooks(folder: pathlib.Path) -> list[str]:
    """The hooks the distribution in ``folder`` implements, in its registration module."""
    hooks = []
    for register in sorted(folder.glob("src/*/_register.py")):
        tree = ast.parse(register.read_text(encoding="utf-8"))
        hooks += [node.name for node in tree.body if isinstance(node, ast.FunctionDef)
                  and node.name.startswith("evalcore_")]
    return hooks


def hook_specs() -> list[tuple[str, str]]:
    """``(hook, first sentence of its documentation)`` for each hook specification, in their order: the
    listing hooks, then those called around a run."""
    tree = ast.parse(HOOKS.read_text(encoding="utf-8"))
    specs = [node for node in tree.body if isinstance(node, ast.ClassDef) and node.name in ("PluginHooks", "RunHooks")]
    return [(node.name, first_sentence(ast.get_docstring(node))) for spec in specs for node in spec.body
            if isinstance(node, ast.FunctionDef)]


def modules() -> list[tuple[str, str]]:
    """``(path under core/src/evalcore, first sentence of its docstring)`` for every module of the core."""
    found = []
    for path in sorted(CORE.rglob("*.py")):
        if "__pycache__" in path.parts or "templates" in path.parts:
            continue
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
        found.append((path.relative_to(CORE).as_posix(), first_sentence(doc)))
    return found


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def section_distributions() -> str:
    rows = ["| distribution | kind | hooks it implements | what it is |", "|---|---|---|---|"]
    for kind, name, description, folder in distributions():
        hooks = ", ".join(f"`{hook}`" for hook in implemented_hooks(folder)) or "—"
        where = folder.relative_to(ROOT).as_posix()
        rows.append(f"| `{name}` (`{where}/`) | {kind} | {hooks} | {_cell(description)} |")
    return "\n".join(rows)


def section_hooks() -> str:
    implementers: dict[str, list[str]] = {}
    for _, name, _, folder in distributions():
        for hook in implemented_hooks(folder):
            implementers.setdefault(hook, []).append(name)
    rows = ["| hook | what it returns | implemented by |", "|---|---|---|"]
    for hook, summary in hook_specs():
        by = ", ".join(f"`{name}`" for name in implementers.get(hook, [])) or "no distribution of this repository"
        rows.append(f"| `{hook}` | {_cell(summary)} | {by} |")
    return "\n".join(rows)


def section_modules() -> str:
    groups: dict[str, list[tuple[str, str]]] = {}
    for path, summary in modules():
        head = path.split("/")[0] if "/" in path else ""
        groups.setdefault(head, []).append((path, summary))
    lines = []
    for head in [*LAYERS, ""]:
        title = f"`{head}/`" if head else "public namespaces and leaf helpers"
        lines += [f"**{title}**", "", "| module | what it does |", "|---|---|"]
        lines += [f"| `{path}` | {_cell(summary)} |" for path, summary in groups.pop(head, [])]
        lines.append("")
    if groups:
        raise SystemExit(f"packages outside the layers {LAYERS}: {sorted(groups)}; add them to LAYERS")
    return "\n".join(lines).rstrip()


SECTIONS = {"distributions": section_distributions, "hooks": section_hooks, "modules": section_modules}


def regenerated(page: str) -> str:
    """``page`` with every generated section as the code gives it now."""
    for name, make in SECTIONS.items():
        pattern = re.compile(rf"(<!-- generated: {name} -->\n)(?:.*?\n)?(<!-- end: {name} -->)", re.S)
        if not pattern.search(page):
            raise SystemExit(f"{PAGE}: no section '<!-- generated: {name} -->' ... '<!-- end: {name} -->'")
        text = make()
        page = pattern.sub(lambda match, text=text: match.group(1) + text + "\n" + match.group(2), page)
    return page


def main() -> int:
    page = PAGE.read_text(encoding="utf-8")
    new = regenerated(page)
    if "--check" in sys.argv:
        if new != page:
            print(f"{PAGE} is not what the code gives: run python docs/generate_architecture.py")
            return 1
        return 0
    PAGE.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
