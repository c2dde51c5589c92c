"""Hooks are called 1:N, as pluggy intends: one call per hook for every plugin loaded together,
with arguments, each result attributed to its plugin and each failure kept to its plugin."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from evalcore._cli.main import main
from evalcore._contract.errors import EvalcoreError, PluginError
from evalcore._contract.hooks import PLUGIN_API_VERSION, PluginManager
from evalcore._registry.registry import PluginStatus

_METRICS = '''
    from evalcore.plugin import hookimpl

    PLUGIN_API_VERSION = {api}

    @hookimpl
    def evalcore_metrics({args}):
        {body}
        return [{{"name": "{name}", "implementation": "x:Y", "family": "toy", "target": "retrieval_relevance",
                 "tier": "proxy", "summary": "given api_version=" + str({arg_value})}}]
'''


def _plugin(name: str, *, api: int = 2, args: str = "", body: str = "pass", arg_value: str = "None") -> str:
    return _METRICS.format(api=api, args=args, body=body, name=name, arg_value=arg_value)


def test_a_hook_receives_its_arguments_and_a_version_1_hook_without_them(make_distribution, registry_at):
    make_distribution("evalcore-asks", plugins={"asks": "asks_reg"},
                      modules={"asks_reg": _plugin("m", args="api_version", arg_value="api_version")})
    make_distribution("evalcore-old", plugins={"old": "old_reg"}, modules={"old_reg": _plugin("m", api=1)})
    registry = registry_at()
    summaries = {info.key: info.spec.summary for info in registry.metrics()}
    assert summaries == {"asks/m": f"given api_version={PLUGIN_API_VERSION}", "old/m": "given api_version=None"}
    assert all(p.ok for p in registry.plugins())


def test_a_hook_asking_for_an_argument_no_hook_offers_is_its_plugins_error(make_distribution, registry_at):
    make_distribution("evalcore-odd", plugins={"odd": "odd_reg"}, modules={"odd_reg": _plugin("m", args="record")})
    make_distribution("evalcore-fine", plugins={"fine": "fine_reg"}, modules={"fine_reg": _plugin("m")})
    registry = registry_at()
    status = {p.name: (p.status, p.error) for p in registry.plugins()}
    assert status["fine"] == (PluginStatus.LOADED, None)
    assert status["odd"][0] is PluginStatus.INVALID and "record" in status["odd"][1]
    assert [info.key for info in registry.metrics()] == ["fine/m"]


def test_one_failing_plugin_loses_only_its_own_results(make_distribution, registry_at):
    for name in ("alpha", "omega"):
        make_distribution(f"evalcore-{name}", plugins={name: f"{name}_reg"}, modules={f"{name}_reg": _plugin("m")})
    make_distribution("evalcore-boom", plugins={"boom": "boom_reg"},
                      modules={"boom_reg": _plugin("m", body="raise RuntimeError('no listing today')")})
    registry = registry_at()
    assert [info.key for info in registry.metrics()] == ["alpha/m", "omega/m"]
    boom = next(p for p in registry.plugins() if p.name == "boom")
    assert boom.status is PluginStatus.INVALID
    assert boom.error == "RuntimeError: no listing today"
    with pytest.raises(PluginError, match="plugin 'boom' from evalcore-boom: invalid: RuntimeError: no listing today"):
        registry_at(strict=True).load()


def test_the_cli_lists_a_failing_plugin_beside_the_others(make_distribution, site, monkeypatch):
    make_distribution("evalcore-alpha", plugins={"alpha": "alpha_reg"}, modules={"alpha_reg": _plugin("m")})
    make_distribution("evalcore-boom", plugins={"boom": "boom_reg"},
                      modules={"boom_reg": _plugin("m", body="raise RuntimeError('no listing today')")})
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("EVALCORE_NO_LIST_CACHE", "1")
    out = CliRunner().invoke(main, ["plugins", "--json"])
    assert out.exit_code == 0, out.output
    plugins = {p["name"]: p for p in json.loads(out.output)}
    assert plugins["alpha"]["status"] == "loaded" and plugins["alpha"]["metrics"] == ["alpha/m"]
    assert plugins["boom"]["status"] == "invalid" and plugins["boom"]["error"] == "RuntimeError: no listing today"


def test_the_results_of_n_plugins_come_from_one_call_each_attributed(make_distribution, registry_at, monkeypatch):
    names = ["p1", "p2", "p3", "p4"]
    for name in names:
        make_distribution(f"evalcore-{name}", plugins={name: f"{name}_reg"}, modules={f"{name}_reg": _plugin("m")})
    calls: list[tuple[str, int]] = []
    real = PluginManager._hookexec

    def counting(self, hook_name, methods, kwargs, firstresult):  # type: ignore[no-untyped-def]
        calls.append((hook_name, len(methods)))
        return real(self, hook_name, methods, kwargs, firstresult)

    monkeypatch.setattr(PluginManager, "_hookexec", counting)
    registry = registry_at()
    assert [info.key for info in registry.metrics()] == [f"{name}/m" for name in names]
    assert calls.count(("evalcore_metrics", len(names))) == 1
    assert [hook for hook, _ in calls].count("evalcore_metrics") == 1
    assert {info.origin.distribution for info in registry.metrics()} == {f"evalcore-{name}" for name in names}


def test_a_hook_wrapper_is_its_plugins_error(make_distribution, registry_at):
    make_distribution("evalcore-wrap", plugins={"wrap": "wrap_reg"}, modules={"wrap_reg": '''
        from evalcore.plugin import hookimpl

        PLUGIN_API_VERSION = 2

        @hookimpl(wrapper=True)
        def evalcore_metrics():
            return (yield)
    '''})
    make_distribution("evalcore-fine", plugins={"fine": "fine_reg"}, modules={"fine_reg": _plugin("m")})
    registry = registry_at()
    wrap = next(p for p in registry.plugins() if p.name == "wrap")
    assert wrap.status is PluginStatus.INVALID and "takes no hook wrapper" in wrap.error
    assert [info.key for info in registry.metrics()] == ["fine/m"]


def test_two_distributions_naming_one_module_are_a_conflict_naming_both(make_distribution, registry_at):
    make_distribution("evalcore-first", plugins={"same": "same_reg"}, modules={"same_reg": _plugin("m")})
    make_distribution("evalcore-second", plugins={"same": "same_reg"})
    registry = registry_at()
    plugins = registry.plugins()
    assert [(p.distribution, p.status) for p in plugins] == [
        ("evalcore-first", PluginStatus.CONFLICT), ("evalcore-second", PluginStatus.CONFLICT)]
    assert all(p.error == "namespace 'same' is claimed by several distributions: evalcore-first, evalcore-second"
               for p in plugins)
    with pytest.raises(EvalcoreError, match="evalcore-first.*evalcore-second"):
        registry.create("same/m")
