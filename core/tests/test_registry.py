"""Plugin discovery through distributions' entry points, failures as states, resolution."""

import pytest
from evalcore import (
    AmbiguousMetricError,
    MetricConflictError,
    ParameterError,
    PluginError,
    UnknownMetricError,
)
from evalcore._registry.registry import PluginStatus


def test_discovers_a_plugin_through_its_distribution(make_distribution, toy_plugin, registry_at):
    make_distribution("evalcore-toy", "2.1", plugins={"toy": "toy_pkg._register"}, modules=toy_plugin("toy_pkg"))
    registry = registry_at()
    [plugin] = registry.plugins()
    assert (plugin.name, plugin.distribution, plugin.version, plugin.status) == \
        ("toy", "evalcore-toy", "2.1", PluginStatus.LOADED)
    [info] = registry.metrics()
    assert info.key == "toy/overlap" and info.default_id == "toy/overlap@3"
    assert (info.origin.distribution, info.origin.version) == ("evalcore-toy", "2.1")


def test_creating_a_metric_binds_params_and_records_origin(make_distribution, toy_plugin, registry_at):
    make_distribution("evalcore-toy", plugins={"toy": "toy_pkg._register"}, modules=toy_plugin("toy_pkg"))
    metric = registry_at().create("toy/overlap@2")
    assert metric.id == "toy/overlap@2" and metric.params == {"k": 2}
    assert metric.origin.distribution == "evalcore-toy"
    score = metric.score_one({"reference_answer": "a b"}, {"response": "a c d"})
    assert score.value == 0.5  # first 2 words "a c": one of two in the reference


@pytest.mark.parametrize(("modules", "status", "error"), [
    ({"broken._register": "raise RuntimeError('boom at import')"}, PluginStatus.IMPORT_ERROR,
     "RuntimeError: boom at import"),
    ({"broken._register": "PLUGIN_API_VERSION = 99\n"}, PluginStatus.INCOMPATIBLE,
     "targets plugin API version 99; this evalcore loads versions 1 and 2"),
    ({"broken._register": "x = 1\n"}, PluginStatus.INCOMPATIBLE,
     "broken._register declares no PLUGIN_API_VERSION; add 'PLUGIN_API_VERSION = 2'"),
    ({"broken._register": """
from evalcore.plugin import PLUGIN_API_VERSION, hookimpl
@hookimpl
def evalcore_metrics():
    return [{"name": "Bad Name", "implementation": "x:y", "summary": "s"}]
"""}, PluginStatus.INVALID, "invalid spec 'Bad Name'"),
    ({"broken._register": """
from evalcore.plugin import PLUGIN_API_VERSION, hookimpl
@hookimpl
def evalcore_metrics(unexpected_argument):
    return []
"""}, PluginStatus.INVALID, "unexpected_argument"),
    ({"broken._register": """
from evalcore.plugin import PLUGIN_API_VERSION, hookimpl
@hookimpl
def evalcore_metrics():
    return [{"name": "m", "namespace": "other", "implementation": "x:y", "summary": "s"}]
"""}, PluginStatus.INVALID, "declares namespace 'other'"),
])
def test_a_failing_plugin_is_a_state_and_never_hides_the_others(
        make_distribution, toy_plugin, registry_at, modules, status, error):
    make_distribution("evalcore-toy", plugins={"toy": "toy_pkg._register"}, modules=toy_plugin("toy_pkg"))
    make_distribution("evalcore-broken", plugins={"broken": "broken._register"}, modules=modules)
    registry = registry_at()
    by_name = {p.name: p for p in registry.plugins()}
    assert by_name["broken"].status is status
    assert error in by_name["broken"].error
    assert by_name["toy"].ok
    assert [i.key for i in registry.metrics()] == ["toy/overlap"]


def test_a_missing_module_is_an_import_error(make_distribution, registry_at):
    make_distribution("evalcore-ghost", plugins={"ghost": "ghost_pkg._register"})
    [plugin] = registry_at().plugins()
    assert plugin.status is PluginStatus.IMPORT_ERROR
    assert "ModuleNotFoundError" in plugin.error and "ghost_pkg" in plugin.error


def test_strict_mode_turns_failures_into_errors(make_distribution, registry_at, monkeypatch):
    make_distribution("evalcore-ghost", plugins={"ghost": "ghost_pkg._register"})
    with pytest.raises(PluginError, match="plugin 'ghost' from evalcore-ghost: import_error"):
        registry_at(strict=True).metrics()
    monkeypatch.setenv("EVALCORE_STRICT_PLUGINS", "1")
    with pytest.raises(PluginError):
        registry_at().plugins()


def test_same_namespace_from_two_distributions_is_a_conflict_naming_both(make_distribution, toy_plugin, registry_at):
    make_distribution("evalcore-toy", plugins={"toy": "toy_a._register"}, modules=toy_plugin("toy_a"))
    make_distribution("evalcore-toy-fork", plugins={"toy": "toy_b._register"}, modules=toy_plugin("toy_b"))
    registry = registry_at()
    plugins = registry.plugins()
    assert {p.status for p in plugins} == {PluginStatus.CONFLICT}
    assert all("evalcore-toy, evalcore-toy-fork" in p.error for p in plugins)
    assert len(registry.metrics()) == 2  # both listed, each marked
    assert all(i.conflicts_with for i in registry.metrics())
    with pytest.raises(MetricConflictError, match="evalcore-toy, evalcore-toy-fork"):
        registry.create("toy/overlap")


def test_the_same_spec_registered_twice_is_harmless(make_distribution, toy_plugin, registry_at):
    modules = toy_plugin("toy_pkg")
    modules["toy_pkg._register"] += "\n_first = evalcore_metrics\n" \
        "@hookimpl\ndef evalcore_metrics():\n    return _first() + _first()\n"
    make_distribution("evalcore-toy", plugins={"toy": "toy_pkg._register"}, modules=modules)
    registry = registry_at()
    assert registry.plugins()[0].ok
    assert len(registry.metrics()) == 1
    registry.create("toy/overlap")


def test_bare_names_resolve_when_unambiguous(make_distribution, toy_plugin, registry_at):
    make_distribution("evalcore-toy", plugins={"toy": "toy_a._register"}, modules=toy_plugin("toy_a"))
    make_distribution("evalcore-other", plugins={"other": "toy_b._register"},
                      modules=toy_plugin("toy_b", name="overlap"))
    make_distribution("evalcore-third", plugins={"third": "toy_c._register"},
                      modules=toy_plugin("toy_c", name="unique_overlap"))
    registry = registry_at()
    assert registry.create("unique_overlap@2").id == "third/unique_overlap@2"
    with pytest.raises(AmbiguousMetricError, match="'other/overlap', 'toy/overlap'"):
        registry.create("overlap")


def test_unknown_ids_come_with_suggestions(make_distribution, toy_plugin, registry_at):
    make_distribution("evalcore-toy", plugins={"toy": "toy_pkg._register"}, modules=toy_plugin("toy_pkg"))
    with pytest.raises(UnknownMetricError, match="did you mean 'toy/overlap'") as info:
        registry_at().create("toy/overlop")
    assert info.value.suggestions == ["toy/overlap"]
    with pytest.raises(UnknownMetricError, match="'toy/overlap'"):
        registry_at().create("overlapp")


def test_parameters_from_id_and_keywords(make_distribution, toy_plugin, registry_at):
    make_distribution("evalcore-toy", plugins={"toy": "toy_pkg._register"}, modules=toy_plugin("toy_pkg"))
    registry = registry_at()
    assert registry.create("toy/overlap", k=5).id == "toy/overlap@5"
    assert registry.create("toy/overlap@5", k=5).id == "toy/overlap@5"
    with pytest.raises(ParameterError, match="given twice"):
        registry.create("toy/overlap@5", k=4)
    for bad in ("toy/overlap@0", "toy/overlap(k='ten')"):
        with pytest.raises(ParameterError):
            registry.create(bad)


def test_listing_imports_no_implementation(make_distribution, toy_plugin, registry_at):
    import sys

    make_distribution("evalcore-toy", plugins={"toy": "lazy_pkg._register"}, modules=toy_plugin("lazy_pkg"))
    registry = registry_at()
    registry.metrics()
    assert "lazy_pkg._register" in sys.modules and "lazy_pkg.metrics" not in sys.modules
    registry.create("toy/overlap")
    assert "lazy_pkg.metrics" in sys.modules


def test_strict_mode_imports_every_implementation_at_load_time(make_distribution, toy_plugin, registry_at):
    modules = toy_plugin("toy_pkg")
    modules["toy_pkg._register"] = modules["toy_pkg._register"].replace("toy_pkg.metrics:Overlap",
                                                                        "toy_pkg.metrics:Missing")
    make_distribution("evalcore-toy", plugins={"toy": "toy_pkg._register"}, modules=modules)
    assert registry_at().plugins()[0].ok  # without strict, nothing is imported at load time
    with pytest.raises(PluginError, match=r"invalid: .*cannot import the implementation of toy/overlap"):
        registry_at(strict=True).load()


def test_the_unrelated_evalcore_distribution_is_reported_with_the_fix(site):
    from evalcore._registry.registry import foreign_core_warning

    assert foreign_core_warning([str(site)]) is None
    info = site / "evalcore-2.6.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: evalcore\nVersion: 2.6.1\n")
    warning = foreign_core_warning([str(site)])
    assert "unrelated package 'evalcore' 2.6.1" in warning
    assert "pip uninstall -y evalcore && pip install --force-reinstall evalcore-core" in warning
    assert "\n" not in warning


def test_one_plugin_manager_serves_every_plugin_and_each_spec_is_validated_once(
        make_distribution, toy_plugin, registry_at, monkeypatch):
    from evalcore._contract.spec import MetricSpec
    from evalcore._registry import registry as registry_module

    make_distribution("evalcore-toy", plugins={"toy": "toy_pkg._register"}, modules=toy_plugin("toy_pkg"))
    make_distribution("evalcore-other", plugins={"other": "other_pkg._register"}, modules=toy_plugin("other_pkg"))
    managers, validations = [], []
    real_manager, real_validate = registry_module.new_plugin_manager, MetricSpec.from_dict
    monkeypatch.setattr(registry_module, "new_plugin_manager", lambda: managers.append(1) or real_manager())
    monkeypatch.setattr(MetricSpec, "from_dict",
                        classmethod(lambda cls, data: validations.append(data) or real_validate(data)))
    registry = registry_at()
    assert {info.key for info in registry.metrics()} == {"toy/overlap", "other/overlap"}
    assert len(managers) == 1  # one manager; each hook called once for every plugin
    assert validations == []  # the MetricSpec objects were validated when the plugins made them
    assert [p.metrics for p in registry.plugins()] == [("other/overlap",), ("toy/overlap",)]
