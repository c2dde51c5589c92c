"""The cached listing of ``evalcore list``, in subprocesses over real (unpacked) distributions.

Each toy registration module notes in a file that it was imported, so a test can tell a listing
read from the cache (no plugin imported) from one made by loading the plugins.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

REGISTRATION = '''
import os

with open(os.environ["EVALCORE_TEST_IMPORTS"], "a") as marks:
    marks.write("{package}\\n")

from evalcore.plugin import MetricSpec, ParamSpec, hookimpl

PLUGIN_API_VERSION = 1


@hookimpl
def evalcore_metrics():
    return [MetricSpec(name="{name}", implementation="{package}.metrics:Toy", summary="{summary}", family="toy",
                       params=(ParamSpec(name="k", type="int", default=3, identity=True),))]
'''


@pytest.fixture
def add_plugin(make_distribution):
    """Install ``dist`` (``version``) whose namespace and package are ``namespace`` / ``NAMESPACE_pkg``."""

    def add(dist, namespace, version="1.0", summary="A toy metric.", name="overlap"):
        package = f"{namespace}_pkg"
        source = REGISTRATION.format(package=package, name=name, summary=summary)
        return make_distribution(dist, version, plugins={namespace: f"{package}._register"},
                                 modules={f"{package}._register": source})

    return add


class Lister:
    """Runs ``python -m evalcore ARGS`` (or ``program ARGS``) over the distributions in ``site``."""

    def __init__(self, site, tmp_path):
        self.marks = tmp_path / "imports.txt"
        self.cache = tmp_path / "cache"
        self.pythonpath = str(site)
        self.cwd = tmp_path

    def __call__(self, *args, env=None, program=(sys.executable, "-m", "evalcore")):
        environment = {**os.environ, "PYTHONPATH": self.pythonpath, "EVALCORE_CACHE_DIR": str(self.cache),
                       "EVALCORE_TEST_IMPORTS": str(self.marks), "EVALCORE_STRICT_PLUGINS": "",
                       "EVALCORE_NO_LIST_CACHE": "", **(env or {})}
        proc = subprocess.run([*program, *args], capture_output=True, text=True,
                              env=environment, cwd=self.cwd, timeout=120)
        return proc.returncode, proc.stdout, proc.stderr

    def imported(self):
        """The plugin packages imported since the last call."""
        found = self.marks.read_text().split() if self.marks.exists() else []
        self.marks.write_text("")
        return found

    def cache_files(self):
        folder = self.cache / "listing"
        return sorted(folder.iterdir()) if folder.is_dir() else []

    def toy(self, *args, env=None):
        """``list --json`` (plus ``args``): the toy family's (id, version, summary), checked against a
        listing made without the cache."""
        code, out, err = self("list", "--json", *args, env=env)
        assert code == 0, err
        assert (code, out, err) == self("list", "--json", "--no-cache", *args, env=env)
        return [(e["id"], e["version"], e["summary"]) for e in json.loads(out) if e["family"] == "toy"]


@pytest.fixture
def lister(site, tmp_path):
    return Lister(site, tmp_path)


ARGUMENTS = [("list",), ("list", "--json"), ("list", "--family", "toy"), ("list", "--family", "toy", "--json"),
             ("list", "--family", "nope")]


def test_a_cached_listing_prints_what_loading_the_plugins_prints(lister, add_plugin, registry_at, monkeypatch):
    add_plugin("evalcore-toy", "toy")
    for args in ARGUMENTS:
        loaded = lister(*args, "--no-cache")
        assert lister(*args) == loaded and lister(*args) == loaded
    assert lister.imported() == ["toy_pkg"] * (len(ARGUMENTS) + 1)  # only the first run with the cache loaded it
    assert len(lister.cache_files()) == 1
    assert lister("list", "--family", "nope")[0] == 2
    # the JSON read from the cache is the registry's own description of each metric
    cached = [e for e in json.loads(lister("list", "--json")[1]) if e["family"] == "toy"]
    monkeypatch.setenv("EVALCORE_TEST_IMPORTS", str(lister.marks))
    assert cached == [info.to_dict() for info in registry_at().metrics()]


def test_plugins_installed_upgraded_or_removed_after_caching_show_at_once(lister, add_plugin, site):
    old = add_plugin("evalcore-toy", "toy")
    assert lister.toy() == [("toy/overlap@3", "1.0", "A toy metric.")]
    assert lister.toy() == [("toy/overlap@3", "1.0", "A toy metric.")]
    lister.imported()

    other = add_plugin("evalcore-other", "other", summary="Another toy.")
    assert lister.toy() == [("other/overlap@3", "1.0", "Another toy."), ("toy/overlap@3", "1.0", "A toy metric.")]
    assert sorted(lister.imported()) == ["other_pkg", "other_pkg", "toy_pkg", "toy_pkg"]

    shutil.rmtree(old)  # an upgrade: the old version's metadata goes, the new one's comes with new specs
    add_plugin("evalcore-toy", "toy", version="2.0", summary="A better toy metric.")
    assert lister.toy() == [("other/overlap@3", "1.0", "Another toy."),
                            ("toy/overlap@3", "2.0", "A better toy metric.")]

    shutil.rmtree(other)
    shutil.rmtree(site / "other_pkg")
    assert lister.toy() == [("toy/overlap@3", "2.0", "A better toy metric.")]
    lister.imported()
    assert lister.toy() == [("toy/overlap@3", "2.0", "A better toy metric.")]
    assert lister.imported() == ["toy_pkg"]  # only the run without the cache loaded it


def test_editing_a_plugin_in_place_shows_at_once(lister, add_plugin, site):
    add_plugin("evalcore-toy", "toy", summary="A toy metric.")
    assert lister.toy() == [("toy/overlap@3", "1.0", "A toy metric.")]
    register = site / "toy_pkg" / "_register.py"
    register.write_text(register.read_text().replace("A toy metric.", "A toy metric!"))  # same size
    assert lister.toy() == [("toy/overlap@3", "1.0", "A toy metric!")]
    (site / "toy_pkg" / "__init__.py").write_text("raise ImportError('broken on purpose')\n")
    code, out, err = lister("list")
    assert code == 0 and "toy/" not in out and "note: 1 plugin(s) did not load cleanly" in err


def test_a_module_that_shadows_a_plugin_or_a_missing_package_that_appears(lister, add_plugin, site, tmp_path):
    earlier = tmp_path / "earlier"
    earlier.mkdir()
    lister.pythonpath = f"{earlier}{os.pathsep}{site}"
    add_plugin("evalcore-toy", "toy")
    add_plugin("evalcore-ghost", "ghost", summary="Ghost.")
    shutil.rmtree(site / "ghost_pkg")  # its metadata is installed, its package is not
    assert lister.toy() == [("toy/overlap@3", "1.0", "A toy metric.")]
    code, _, err = lister("list")
    assert code == 0 and "note: 1 plugin(s) did not load cleanly" in err

    shutil.copytree(site / "toy_pkg", earlier / "toy_pkg")
    register = earlier / "toy_pkg" / "_register.py"
    register.write_text(register.read_text().replace("A toy metric.", "Shadowing toy."))
    assert lister.toy() == [("toy/overlap@3", "1.0", "Shadowing toy.")]

    shutil.copytree(site / "toy_pkg", earlier / "ghost_pkg")
    register = earlier / "ghost_pkg" / "_register.py"
    register.write_text(register.read_text().replace("toy_pkg", "ghost_pkg").replace("A toy metric.", "Ghost."))
    assert lister.toy() == [("ghost/overlap@3", "1.0", "Ghost."), ("toy/overlap@3", "1.0", "Shadowing toy.")]
    assert lister("list")[2] == ""


def edited(text, head=None, rest=None):
    """A cache file's text with fields of its first line (what it was made from) or its second
    (the metrics' listing) replaced."""
    first, second = text.split("\n", 1)
    return json.dumps({**json.loads(first), **(head or {})}) + "\n" + (json.dumps(rest) if rest else second)


@pytest.mark.parametrize("corrupt", [
    lambda text: "{not json",
    lambda text: text[: len(text) // 2],
    lambda text: text[: text.index("\n") // 2],
    lambda text: "[1, 2, 3]",
    lambda text: edited(text, rest=[[{"family": "toy", "row": 1}], 0]),
    lambda text: edited(text, head={"plugins": [{"name": 1}]}),
    lambda text: edited(text, head={"files": [["/", "not a stamp"]]}),
    lambda text: edited(text, head={"packages": [[1, 2]]}),
], ids=["not-json", "truncated", "truncated-first-line", "not-an-object", "bad-listing", "bad-index", "bad-files",
        "bad-packages"])
def test_a_corrupt_cache_file_is_a_miss_and_is_written_again(lister, add_plugin, corrupt):
    add_plugin("evalcore-toy", "toy")
    loaded = lister("list", "--no-cache")
    assert lister("list") == loaded
    [path] = lister.cache_files()
    path.write_text(corrupt(path.read_text()))
    lister.imported()
    assert lister("list") == loaded
    assert lister.imported() == ["toy_pkg"]
    assert lister("list") == loaded
    assert lister.imported() == []


def test_an_unwritable_cache_folder_never_breaks_the_command(lister, add_plugin, tmp_path):
    add_plugin("evalcore-toy", "toy")
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    env = {"EVALCORE_CACHE_DIR": str(blocker / "cache")}
    loaded = lister("list", "--no-cache")
    assert lister("list", env=env) == loaded and lister("list", env=env) == loaded
    assert lister.imported() == ["toy_pkg"] * 3


def test_no_cache_and_the_environment_variable_bypass_the_cache(lister, add_plugin):
    add_plugin("evalcore-toy", "toy")
    lister("list", env={"EVALCORE_NO_LIST_CACHE": "1"})
    assert lister.cache_files() == []
    lister("list")
    lister("list", "--no-cache")
    lister("list", env={"EVALCORE_NO_LIST_CACHE": "1"})
    assert lister.imported() == ["toy_pkg"] * 4
    assert len(lister.cache_files()) == 1


def test_failed_plugins_are_reported_the_same_way_with_a_cache(lister, add_plugin, make_distribution):
    add_plugin("evalcore-toy", "toy")
    make_distribution("evalcore-bad", plugins={"bad": "bad_pkg._register"}, modules={"bad_pkg._register": (
        "from evalcore.plugin import hookimpl\nPLUGIN_API_VERSION = 1\n\n@hookimpl\n"
        "def evalcore_metrics():\n    return [{'name': 'Bad Name', 'implementation': 'x:y', 'summary': 's'}]\n")})
    loaded = lister("list", "--no-cache")
    assert "note: 1 plugin(s) did not load cleanly; run 'evalcore plugins'" in loaded[2]
    assert lister("list") == loaded and lister("list") == loaded
    [bad] = [p for p in json.loads(lister("plugins", "--json")[1]) if p["name"] == "bad"]
    assert bad["status"] == "invalid" and "invalid spec 'Bad Name': name:" in bad["error"]
    for strict in [lister("--strict", "list"), lister("list", env={"EVALCORE_STRICT_PLUGINS": "1"})]:
        assert strict[0] == 2
        assert "plugin 'bad' from evalcore-bad: invalid: SpecError: invalid spec 'Bad Name'" in strict[2]


def test_the_warning_about_a_foreign_evalcore_is_printed_from_the_cache_too(lister, add_plugin, make_distribution):
    add_plugin("evalcore-toy", "toy")
    make_distribution("evalcore", "2.6.1")
    loaded = lister("list", "--no-cache")
    assert loaded[2].startswith("warning: the unrelated package 'evalcore' 2.6.1 is installed")
    assert lister("list") == loaded and lister("list") == loaded
    assert lister.imported() == ["toy_pkg", "toy_pkg"]


def test_a_listing_read_from_the_cache_imports_neither_the_registry_nor_a_plugin(lister, add_plugin):
    add_plugin("evalcore-toy", "toy")
    code = ("import sys\nfrom evalcore._cli.main import main\nsys.argv = ['evalcore', 'list']\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\nprint(sorted(sys.modules), file=sys.stderr)")
    first, second = (lister("-c", code, program=[sys.executable]) for _ in range(2))
    heavy = {"pluggy", "attr", "importlib.metadata", "toy_pkg._register", "evalcore._registry.registry",
             "evalcore._contract.spec"}
    assert heavy <= set(eval(first[2].splitlines()[-1]))  # loading the plugins
    assert first[1] == second[1]
    reading_the_cache = set(eval(second[2].splitlines()[-1]))
    assert not (heavy | {"asyncio", "evalcore._contract.metric"}) & reading_the_cache


FINDER = '''
import importlib.util
import sys


class EditableFinder:
    """Maps one package to a folder outside sys.path, as an editable install's import hook does."""

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name != "hooked_pkg":
            return None
        return importlib.util.spec_from_file_location(
            name, {init!r}, submodule_search_locations=[{folder!r}])


sys.meta_path.append(EditableFinder)
'''


def test_a_plugin_behind_an_editable_install_hook_is_cached_and_its_edits_show(lister, make_distribution, site,
                                                                                tmp_path):
    package = tmp_path / "elsewhere" / "hooked_pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    register = package / "_register.py"
    register.write_text(REGISTRATION.format(package="hooked_pkg", name="overlap", summary="Hooked."))
    (site / "sitecustomize.py").write_text(FINDER.format(init=str(package / "__init__.py"), folder=str(package)))
    make_distribution("evalcore-hooked", plugins={"hooked": "hooked_pkg._register"})
    assert lister.toy() == [("hooked/overlap@3", "1.0", "Hooked.")]
    lister.imported()
    assert lister.toy() == [("hooked/overlap@3", "1.0", "Hooked.")]
    assert lister.imported() == ["hooked_pkg"]  # the run without the cache; the other read it
    register.write_text(register.read_text().replace("Hooked.", "Edited."))
    assert lister.toy() == [("hooked/overlap@3", "1.0", "Edited.")]


def test_the_cache_file_lives_under_the_cache_folder_the_environment_names(lister, add_plugin, tmp_path):
    add_plugin("evalcore-toy", "toy")
    home = tmp_path / "home"
    lister("list", env={"EVALCORE_CACHE_DIR": "", "XDG_CACHE_HOME": "", "HOME": str(home)})
    lister("list", env={"EVALCORE_CACHE_DIR": "", "XDG_CACHE_HOME": str(tmp_path / "xdg")})
    lister("list")
    found = sorted(str(p.relative_to(tmp_path).parent) for p in tmp_path.rglob("listing/*.json"))
    assert found == ["cache/listing", "home/.cache/evalcore/listing", "xdg/evalcore/listing"]
