"""Every bundled plugin is installed as its own distribution, loads, and ships complete specs."""

import json

import pytest


def bundled(root):
    return sorted(p.parent.name for p in (root / "plugins").glob("*/pyproject.toml"))


def test_every_bundled_plugin_is_an_installed_distribution_that_loads(root, evalcore_cli):
    proc = evalcore_cli("--strict", "plugins", "--json")
    assert proc.returncode == 0, proc.stderr
    plugins = {p["name"]: p for p in json.loads(proc.stdout)}
    for name in bundled(root):
        assert name in plugins, f"plugin {name} is not installed"
        plugin = plugins[name]
        assert (plugin["distribution"], plugin["status"]) == (f"evalcore-{name}", "loaded"), plugin
        assert plugin["metrics"], f"plugin {name} provides no metric"


def test_every_metric_spec_is_complete(evalcore_cli):
    listed = json.loads(evalcore_cli("list", "--json").stdout)
    incomplete = {}
    for entry in listed:
        missing = [f for f in ("summary", "description", "family", "target", "inputs", "metric_version")
                   if not entry[f]]
        if missing:
            incomplete[entry["id"]] = missing
    assert not incomplete


def test_describe_every_metric(evalcore_cli):
    listed = json.loads(evalcore_cli("list", "--json").stdout)
    ids = [entry["id"] for entry in listed]
    assert len(ids) == len(set(ids))
    for entry in listed[:: max(1, len(listed) // 10)]:
        proc = evalcore_cli("describe", entry["key"], "--json")
        required = [p["name"] for p in entry["params"] if p["required"]]
        if required:  # validated as evaluate validates it: the parameter must be given
            assert proc.returncode == 2 and f"needs parameter {required[0]!r}" in proc.stderr
        else:
            assert json.loads(proc.stdout)["key"] == entry["key"]


@pytest.mark.parametrize("family", ["retrieval"])
def test_list_by_family(evalcore_cli, family):
    listed = json.loads(evalcore_cli("list", "--family", family, "--json").stdout)
    assert listed and all(family in (e["family"], e["namespace"]) for e in listed)
