"""Names users type (aliases), metric sets, and how per-record values aggregate."""

import math

import pytest
from evalcore import (
    AmbiguousMetricError,
    MetricAlias,
    MetricIdError,
    MetricSpec,
    ParameterError,
    ParamSpec,
    Registry,
    UnknownMetricError,
)
from evalcore.plugin import MIN_GEO_MEAN, aggregate_values

PLUGIN = '''
from evalcore.plugin import PLUGIN_API_VERSION, MetricAlias, MetricSpec, ParamSpec, hookimpl

@hookimpl
def evalcore_metrics():
    return [
        MetricSpec(
            name="{name}", implementation="{module}:Overlap", summary="Share of words in common.",
            params=(ParamSpec(name="k", type="int", default=3, minimum=1, identity=True),),
            aliases=(MetricAlias(name="Overlap_(?P<k>[0-9]+)", regex=True), MetricAlias(name="OV", params={{"k": 2}})),
        ),
    ]

@hookimpl
def evalcore_metric_sets():
    return {{"everything": ["{name}@1", "OV"]}}
'''


@pytest.fixture
def registry(make_distribution, toy_plugin, site, monkeypatch):
    monkeypatch.syspath_prepend(str(site))
    modules = {**toy_plugin("toy_pkg"), "toy_pkg._register": PLUGIN.format(name="overlap", module="toy_pkg.metrics")}
    make_distribution("evalcore-toy", plugins={"toy": "toy_pkg._register"}, modules=modules)
    return Registry(path=[str(site)])


@pytest.mark.parametrize(("text", "expected"), [
    ("Overlap_5", "toy/overlap@5"), ("toy/Overlap_1", "toy/overlap@1"), ("OV", "toy/overlap@2"),
    ("overlap", "toy/overlap@3"),
])
def test_aliases_resolve_to_one_canonical_id(registry, text, expected):
    assert registry.create(text).id == expected


def test_an_alias_takes_keyword_parameters_it_does_not_fix(registry):
    assert registry.create("OV", k=2).id == "toy/overlap@2"
    with pytest.raises(ParameterError, match="given twice"):
        registry.create("OV", k=4)
    for text in ("Overlap_x", "other/Overlap_5", "Overlap_5x"):
        with pytest.raises((UnknownMetricError, MetricIdError)):
            registry.create(text)


def test_a_metric_set_expands_to_namespaced_ids(registry):
    assert registry.expand("everything") == ["toy/overlap@1", "toy/OV"]
    assert registry.expand("toy/everything") == registry.expand("everything")
    assert [registry.create(i).id for i in registry.expand("everything")] == ["toy/overlap@1", "toy/overlap@2"]
    assert registry.expand("overlap@2") == ["overlap@2"]
    assert registry.metric_sets() == {"toy/everything": ["toy/overlap@1", "toy/OV"]}


def test_two_metrics_claiming_one_alias_is_ambiguous(registry):
    for name in ("a", "b"):
        spec = MetricSpec(name=name, implementation="m:C", summary="s", aliases=(MetricAlias(name="Same"),))
        registry.register(spec, lambda s, p, o: None)
    with pytest.raises(AmbiguousMetricError):
        registry.resolve("Same")


@pytest.mark.parametrize(("text", "expected"), [
    ("overlap_5", "toy/overlap@5"), ("OVERLAP_5", "toy/overlap@5"), ("ov", "toy/overlap@2"),
    ("OVERLAP", "toy/overlap@3"), ("Toy/Overlap@4", "toy/overlap@4"), ("TOY/ov", "toy/overlap@2"),
    ("Overlap(k=4)", "toy/overlap@4"),
])
def test_names_and_aliases_resolve_ignoring_case(registry, text, expected):
    assert registry.create(text).id == expected


def test_parameter_values_keep_their_case(registry):
    spec = MetricSpec(name="pick", implementation="m:C", summary="s",
                      params=(ParamSpec(name="variant", type="str", required=True, identity=True, choices=("L", "l")),))
    registry.register(spec, lambda s, p, o: None)
    assert registry.resolve("PICK(variant='L')")[1] == {"variant": "L"}
    assert registry.resolve("Pick(variant='l')")[1] == {"variant": "l"}


def test_an_exact_match_wins_over_one_ignoring_case(registry):
    for name, alias in (("upper", "SAME"), ("lower", "same")):
        spec = MetricSpec(name=name, implementation="m:C", summary="s", aliases=(MetricAlias(name=alias),))
        registry.register(spec, lambda s, p, o: None)
    assert registry.resolve("SAME")[0].key == "upper"
    assert registry.resolve("same")[0].key == "lower"
    with pytest.raises(AmbiguousMetricError, match="'Same'.*'lower', 'upper'"):
        registry.resolve("Same")


def test_a_name_and_an_alias_of_two_metrics_matching_ignoring_case_are_ambiguous(registry):
    registry.register(MetricSpec(name="foo", implementation="m:C", summary="s"), lambda s, p, o: None)
    registry.register(MetricSpec(name="bar", implementation="m:C", summary="s", aliases=(MetricAlias(name="FOO"),)),
                      lambda s, p, o: None)
    assert registry.resolve("foo")[0].key == "foo"
    assert registry.resolve("FOO")[0].key == "bar"
    with pytest.raises(AmbiguousMetricError, match="'Foo' is ambiguous; use one of 'bar', 'foo'"):
        registry.resolve("Foo")


def test_a_bare_name_of_two_namespaces_stays_ambiguous_in_any_case(registry, make_distribution, toy_plugin):
    make_distribution("evalcore-other", plugins={"other": "other_pkg._register"}, modules=toy_plugin("other_pkg"))
    for text in ("overlap", "Overlap", "OVERLAP@2"):
        with pytest.raises(AmbiguousMetricError, match="'other/overlap', 'toy/overlap'"):
            registry.resolve(text)


@pytest.mark.parametrize("text", ["overlap@", "overlap(k=", "overlap)", "Overlap(k=3", "toy/overlap(k=3))"])
def test_an_id_that_does_not_parse_comes_with_the_closest_ids(registry, text):
    with pytest.raises(MetricIdError, match="did you mean 'toy/overlap'") as info:
        registry.resolve(text)
    assert info.value.suggestions == ["toy/overlap"]
    assert "\n" not in str(info.value)


def test_pattern_groups_are_python_literals_else_text():
    alias = MetricAlias(name=r"X\((?P<a>[^,]+),(?P<b>[^)]+)\)", regex=True, params={"c": 1})
    assert alias.match("X(0.5,L)") == {"a": 0.5, "b": "L", "c": 1}
    assert alias.match("x(0.5,L)") is None and alias.match("x(0.5,L)", ignore_case=True) == {"a": 0.5, "b": "L", "c": 1}
    assert MetricAlias(name="ROUGE-L").match("rouge-l", ignore_case=True) == {}
    assert alias.match("X(0.5,L)y") is None
    with pytest.raises(ValueError, match="not a regular expression"):
        MetricAlias(name="(", regex=True)


@pytest.mark.parametrize(("how", "values", "expected"), [
    ("mean", [1.0, 2.0, 6.0], 3.0),
    ("sum", [1.0, 2.0, 6.0], 9.0),
    ("gmean", [1.0, 4.0], 2.0),
    # trec_eval's gm_map: values floored at MIN_GEO_MEAN before the logarithm
    ("gmean", [0.0, 1.0], math.sqrt(MIN_GEO_MEAN)),
    ("mean", [], None),
])
def test_aggregate_values(how, values, expected):
    result = aggregate_values(values, how)
    assert result == (None if expected is None else pytest.approx(expected))


def test_spec_aggregate_defaults_to_mean_and_is_checked():
    assert MetricSpec(name="m", implementation="m:C", summary="s").aggregate == "mean"
    with pytest.raises(ValueError):
        MetricSpec(name="m", implementation="m:C", summary="s", aggregate="median")
