"""Metric specs and parameter validation."""

import pytest
from evalcore import Direction, MetricSpec, ParameterError, ParamSpec, SpecError


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


@pytest.mark.parametrize(("fields", "message"), [
    ({"name": "Bad-Name"}, "^name: 'Bad-Name' must match"),
    ({"implementation": "no_colon"}, "^implementation: implementation must be 'module:attr'"),
    ({"cost_msats": -1}, "^cost_msats: must be >= 0, got -1"),
    ({"cost_msats": 2.5}, "^cost_msats: must be an integer"),
    ({"tier": "gold"}, "^tier: must be one of 'proxy', 'truth', got 'gold'"),
    ({"value_range": (0,)}, "^value_range: must be a pair"),
    ({"inputs": "query"}, "^inputs: must be a list of strings"),
    ({"params": (ParamSpec(name="k"), ParamSpec(name="k"))}, "^params: duplicate parameters: k"),
    ({"params": ({"name": "k", "type": "integer"},)}, r"^params\[0\]\.type: must be one of 'int'"),
    ({"params": ({"type": "int"},)}, r"^params\[0\]\.name: required"),
    ({"tolerance": -1e-9}, "^tolerance: must be >= 0"),
])
def test_invalid_specs_are_rejected_naming_the_field(fields, message):
    with pytest.raises(SpecError, match=message):
        spec(**fields)
    assert issubclass(SpecError, ValueError)


def test_an_unknown_field_is_a_type_error_in_code_and_a_spec_error_from_data():
    with pytest.raises(TypeError, match="unknown_field"):
        spec(unknown_field=1)
    with pytest.raises(SpecError, match="^unknown_field: unknown field"):
        MetricSpec.from_dict({"name": "m", "implementation": "mod:Cls", "summary": "s", "unknown_field": 1})
    with pytest.raises(SpecError, match="^summary: required"):
        MetricSpec.from_dict({"name": "m", "implementation": "mod:Cls"})


def test_fields_are_converted_and_a_spec_survives_its_plain_data():
    made = spec(value_range=[0, 1], tier="truth", direction="lower", inputs=["query"], cost_msats=2.0,
                params=[{"name": "k", "type": "int", "default": 3, "choices": [1, 3], "minimum": 1}],
                aliases=[{"name": "P_(?P<k>[0-9]+)", "regex": True}])
    assert made.value_range == (0.0, 1.0) and all(type(v) is float for v in made.value_range)
    assert (made.tier.value, made.direction, made.inputs, made.cost_msats) == ("truth", Direction.LOWER, ("query",), 2)
    assert made.params == (ParamSpec(name="k", type="int", default=3, choices=(1, 3), minimum=1.0),)
    data = made.to_dict()
    assert data["tier"] == "truth" and data["params"][0]["choices"] == [1, 3] and data["value_range"] == [0.0, 1.0]
    assert MetricSpec.from_dict(data) == made
    # a list parameter's default is a tuple, as a given value becomes one (so an id leaves it out)
    listed = ParamSpec(name="items", type="list", default=[])
    assert listed.default == () and listed.coerce([]) == listed.default
    plain = made.evolve(aliases=())
    assert hash(MetricSpec.from_dict(plain.to_dict())) == hash(plain)  # frozen values, usable as keys


def test_pass_fail_follows_direction_and_threshold():
    assert spec().passes(1.0) and not spec().passes(0.99)
    assert spec(pass_threshold=0.66).passes(0.7)
    lower = spec(direction=Direction.LOWER, value_range=(0, None), pass_threshold=100)
    assert lower.passes(90) and not lower.passes(101)
