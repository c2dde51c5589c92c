"""The public surface: each namespace lists every name once (its stub), has an explicit ``__all__``
that the reference page documents, and its classes and functions say they live there."""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import pathlib
import pickle
import subprocess
import sys
import zipfile

import evalcore
import pytest
from evalcore._lazy import stub_exports

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "core" / "src" / "evalcore"
REFERENCE = ROOT / "docs" / "reference.md"
PUBLIC = ["evalcore", "evalcore.plugin", "evalcore.testkit", "evalcore.testing", "evalcore.dspy", "evalcore.engine",
          "evalcore.judge", "evalcore.http", "evalcore.cache", "evalcore.text", "evalcore.vectors"]


def run_python(code: str) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def home(name: str, value: object) -> str:
    """The public module that documents ``value``: its own module when an extension defines it, else the
    first of evalcore, evalcore.plugin, then the others (alphabetically) that exports it under ``name``."""
    if value.__module__.partition(".")[0] != "evalcore":
        return value.__module__
    ordered = PUBLIC[:2] + sorted(PUBLIC[2:])
    return next(m for m in ordered if name in importlib.import_module(m).__all__
                and getattr(importlib.import_module(m), name) is value)


def reference_section(module: str) -> str:
    """The text of the reference page under the heading ``## `module```, up to the next such heading."""
    text = REFERENCE.read_text(encoding="utf-8")
    start = text.index(f"## `{module}`\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end != -1 else len(text)]


@pytest.mark.parametrize("module", PUBLIC)
def test_every_public_module_has_an_explicit_all_of_names_it_has(module):
    namespace = importlib.import_module(module)
    names = namespace.__all__
    assert names and len(names) == len(set(names)), f"{module}.__all__ repeats a name"
    missing = [name for name in names if not hasattr(namespace, name)]
    assert missing == []


@pytest.mark.parametrize("module", PUBLIC)
def test_every_public_name_is_on_the_reference_page(module):
    section = reference_section(module)
    undocumented = [name for name in importlib.import_module(module).__all__ if f"`{name}`" not in section]
    assert undocumented == [], f"names of {module} missing from its section of docs/reference.md"


@pytest.mark.parametrize("stub", sorted(PACKAGE.glob("*.pyi")), ids=lambda p: p.name)
def test_a_stub_lists_each_name_once_and_is_the_all_of_its_module(stub):
    module = "evalcore" if stub.stem == "__init__" else f"evalcore.{stub.stem}"
    names = [alias.name for node in ast.parse(stub.read_text(encoding="utf-8")).body
             if isinstance(node, ast.ImportFrom) for alias in node.names]
    assert len(names) == len(set(names))
    assert importlib.import_module(module).__all__ == names
    # the module itself names nothing: no second list to keep in step with the stub
    source = stub.with_suffix(".py").read_text(encoding="utf-8")
    assert not [n for n in names if n != "__version__" and f'"{n}"' in source]


@pytest.mark.parametrize("module", PUBLIC)
def test_public_classes_and_functions_say_which_public_module_documents_them(module):
    namespace = importlib.import_module(module)
    wrong = {}
    for name in namespace.__all__:
        value = getattr(namespace, name)
        if inspect.isclass(value) or inspect.isfunction(value):
            # a name an extension defines keeps its module: the one its stub line names
            extension = value.__module__.partition(".")[0] != "evalcore"
            expected = stub_exports(module)[name] if extension else home(name, value)
            if value.__module__ != expected:
                wrong[name] = value.__module__
    assert wrong == {}


def test_the_defining_modules_publish_their_names_when_imported_first():
    """Whatever imports a private module first, its public names already say where they live (an
    extension's names, such as evalcore-stats', say it once they are reached through ``evalcore``)."""
    code = (
        "import importlib, inspect, json\n"
        "from evalcore._lazy import home_modules\n"
        "wrong = []\n"
        "for module, names in home_modules().items():\n"
        "    if not module.startswith('evalcore.'):\n"
        "        continue  # an extension's: its names say where they live once reached through evalcore\n"
        "    loaded = importlib.import_module(module)\n"
        "    for name, public in names.items():\n"
        "        value = getattr(loaded, name, None)\n"
        "        if (inspect.isclass(value) or inspect.isfunction(value)) and value.__module__ != public:\n"
        "            wrong.append(f'{module}.{name}: {value.__module__}, not {public}')\n"
        "print(json.dumps(wrong))\n"
    )
    proc = run_python(code)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == []


def test_names_that_left_the_surface_stay_importable_from_their_homes():
    for name in ("hookimpl", "PLUGIN_API_VERSION", "Origin", "aggregate_all", "aggregate_metric_values"):
        assert name not in evalcore.__all__
        with pytest.raises(AttributeError):
            getattr(evalcore, name)
    plugin, engine = importlib.import_module("evalcore.plugin"), importlib.import_module("evalcore.engine")
    assert plugin.hookimpl and plugin.PLUGIN_API_VERSION
    assert callable(engine.aggregate_all)
    assert "as_record" not in plugin.__all__ and "parse_record" not in plugin.__all__
    assert sorted(dir(evalcore)) == sorted(evalcore.__all__)


def test_names_that_moved_answer_as_deprecated_aliases_of_their_new_homes():
    code = (
        "import warnings, evalcore, evalcore.plugin\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    assert evalcore.read_records is evalcore.plugin.read_records\n"
        "    assert evalcore.aggregate is evalcore.plugin.aggregate\n"
        "    evalcore.read_records\n"
        "print([str(w.message) for w in caught if issubclass(w.category, FutureWarning)])\n"
        "print('read_records' in dir(evalcore), 'aggregate' in evalcore.__all__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    assert out == ["['evalcore.read_records is deprecated: use evalcore.plugin.read_records', "
                   "'evalcore.aggregate is deprecated: use evalcore.plugin.aggregate']", "False False"]


def test_a_name_of_a_missing_extension_says_which_distribution_to_install():
    """With evalcore-dropins hidden, its names fail on use with one line naming it; the rest works."""
    code = (
        "import sys\n"
        "class Hide:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.partition('.')[0] == 'evalcore_dropins':\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, Hide())\n"
        "import evalcore, evalcore.dspy\n"
        "from evalcore import engine\n"
        "for use in (lambda: evalcore.dspy.Evaluate, lambda: engine.get_metric, lambda: evalcore.Scorer):\n"
        "    try:\n"
        "        use()\n"
        "    except ModuleNotFoundError as exc:\n"
        "        print(exc)\n"
        "result = evalcore.evaluate(examples=[{'v': 1}], program=lambda e: {'v': e.v}, metrics=[lambda g, p: p['v']])\n"
        "print([m.value for m in result.metrics.values()])\n"
    )
    proc = run_python(code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        f"evalcore.{name} is part of evalcore-dropins, which is not installed: pip install evalcore-dropins"
        for name in ("dspy.Evaluate", "engine.get_metric", "Scorer")] + ["[1.0]"]


def test_scores_specs_and_results_pickle_through_the_public_names():
    score = evalcore.Score(0.5, details={"k": 1})
    spec = evalcore.MetricSpec(name="m", implementation="x:M", summary="s", params=(evalcore.ParamSpec(name="k"),))
    for value in (score, evalcore.Score.skipped("no gold"), spec, evalcore.Status.ERROR):
        data = pickle.dumps(value)
        assert b"evalcore._" not in data  # the private modules are not named
        assert pickle.loads(data) == value
    result = evalcore.evaluate([{"id": "a", "example": {"reference_answer": "x y"}, "prediction": {"response": "x"}}],
                               ["overlap/token_f1"], seed=0)
    again = pickle.loads(pickle.dumps(result))
    assert type(again) is evalcore.EvaluationResult
    assert again.metrics["overlap/token_f1"].value == result.metrics["overlap/token_f1"].value
    info = evalcore.describe("overlap/token_f1")
    assert pickle.loads(pickle.dumps(info)) == info


def test_the_wheel_ships_the_stubs_and_the_typed_marker(tmp_path):
    hatchling = pytest.importorskip("hatchling.builders.wheel")
    [wheel] = hatchling.WheelBuilder(str(ROOT / "core")).build(directory=str(tmp_path), versions=["standard"])
    names = set(zipfile.ZipFile(wheel).namelist())
    stubs = {f"evalcore/{p.name}" for p in PACKAGE.glob("*.pyi")}
    assert {"evalcore/__init__.pyi", "evalcore/plugin.pyi", "evalcore/py.typed"} <= names and stubs <= names


def test_importing_evalcore_reads_the_stub_but_imports_nothing_else():
    proc = run_python("import sys, evalcore; print(sorted(m for m in sys.modules if m.startswith('evalcore')))")
    assert proc.returncode == 0, proc.stderr
    assert eval(proc.stdout) == ["evalcore", "evalcore._lazy", "evalcore._version"]
    assert sys.modules["evalcore"].__version__


@pytest.mark.parametrize(("module", "name"), [("evalcore.testing", "ScriptedServer"),
                                              ("evalcore.testkit", "PluginConformance")])
def test_a_name_from_a_missing_extension_says_which_distribution_to_install(module, name):
    code = (
        "import sys\n"
        "class Refuse:\n"
        "    def find_spec(self, fullname, path=None, target=None):\n"
        "        if fullname.partition('.')[0] == 'evalcore_pytest':\n"
        "            raise ModuleNotFoundError(f'No module named {fullname!r}', name=fullname)\n"
        "sys.meta_path.insert(0, Refuse())\n"
        f"import {module}\n"
        f"assert {name!r} in {module}.__all__\n"
        f"from {module} import {name}\n"
    )
    proc = run_python(code)
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[-1] == (
        f"ModuleNotFoundError: {module}.{name} is part of evalcore-pytest, which is not installed: "
        "pip install evalcore-pytest")
