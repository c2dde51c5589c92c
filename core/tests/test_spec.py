"""Metric specs and parameter validation."""

import pytest
from evalcore import Direction, MetricSpec, ParameterError, ParamSpec
from pydantic import ValidationError


def spec(**fields):
    base = {"name": "m", "namespace": "ns", "implementation": "mod:Cls", "summary": "s"}
    return MetricSpec(**{**base, **fields})


@pytest.mark.parametrize(("param", "value", "message"), [
    (ParamSpec(name="k", type="int", minimum=1, default=1), 0, "must be >= 1; got 0"),
    (ParamSpec(name="k", type="int", minimum=1, default=1), "ten", "must be an integer; got 'ten'"),
    (ParamSpec(name="k", type="int", default=1), True, "must be an integer"),
    (ParamSpec(name="q", type="float", maximum=1, default=0.5), 1.5, "must be <= 1"),
    (ParamSpec(name="q", type="float", default=0.5), float("nan"), "NaN"),
    (ParamSpec(name="v", type="str", choices=("a", "b"), default="a"), "c", "one of 'a', 'b'"),
    (ParamSpec(name="flag", type="bool", default=False), "yes", "true or false"),
    (ParamSpec(name="items", type="list", default=()), "abc", "must be a list"),
    (ParamSpec(name="k", type="int", default=1), None, "must not be None"),
])
def test_bad_parameter_values_are_named(param, value, message):
    with pytest.raises(ParameterError, match=message) as info:
        spec(params=(param,)).bind_params({param.name: value})
    assert f"parameter {param.name!r} of ns/m" in str(info.value)


def test_bind_fills_defaults_and_coerces():
    s = spec(params=(ParamSpec(name="k", type="int", default=3), ParamSpec(name="q", type="float", default=1),
                     ParamSpec(name="items", type="list", default=())))
    assert s.bind_params({"q": 2, "items": ["a"]}) == {"k": 3, "q": 2.0, "items": ("a",)}


def test_unknown_and_missing_parameters():
    s = spec(params=(ParamSpec(name="k", type="int", required=True),))
    with pytest.raises(ParameterError, match="has no parameter 'z'; its parameters are k"):
        s.bind_params({"k": 1, "z": 2})
    with pytest.raises(ParameterError, match="needs parameter 'k'"):
        s.bind_params({})


@pytest.mark.parametrize("fields", [
    {"name": "Bad-Name"}, {"implementation": "no_colon"}, {"cost_msats": -1},
    {"params": (ParamSpec(name="k"), ParamSpec(name="k"))}, {"unknown_field": 1},
])
def test_invalid_specs_are_rejected(fields):
    with pytest.raises(ValidationError):
        spec(**fields)


def test_pass_fail_follows_direction_and_threshold():
    assert spec().passes(1.0) and not spec().passes(0.99)
    assert spec(pass_threshold=0.66).passes(0.7)
    lower = spec(direction=Direction.LOWER, value_range=(0, None), pass_threshold=100)
    assert lower.passes(90) and not lower.passes(101)
