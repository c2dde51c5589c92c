"""Metric ids: parsing and the canonical form."""

import pytest
from evalcore import MetricIdError, MetricSpec, ParamSpec
from evalcore._contract.identity import canonical_id, parse_metric_id

SPEC = MetricSpec(
    name="ndcg", namespace="retrieval", implementation="m:C", summary="s",
    params=(
        ParamSpec(name="k", type="int", default=10, nullable=True, minimum=1, identity=True),
        ParamSpec(name="gain", type="str", default="linear", choices=("linear", "exp2"), identity=True),
        ParamSpec(name="batch_size", type="int", default=64),
    ),
)


@pytest.mark.parametrize(("text", "expected"), [
    ("retrieval/ndcg@10", ("retrieval", "ndcg", {"k": 10})),
    ("ndcg", (None, "ndcg", {})),
    ("retrieval/ndcg(gain='exp2')@5", ("retrieval", "ndcg", {"gain": "exp2", "k": 5})),
    ("overlap/rouge(variant='L', use_stemmer=True)", ("overlap", "rouge", {"variant": "L", "use_stemmer": True})),
    ("ndcg(k=3)", (None, "ndcg", {"k": 3})),
    ("  retrieval/map  ", ("retrieval", "map", {})),
])
def test_parse(text, expected):
    parsed = parse_metric_id(text)
    assert (parsed.namespace, parsed.name, parsed.params) == expected


@pytest.mark.parametrize("text", ["", "Retrieval/NDCG", "a/b/c", "ndcg(k=)", "ndcg(3)", "ndcg(k=3)@4",
                                  "ndcg(gain=exp2)", "ndcg@ten", "ndcg(**x)"])
def test_parse_rejects(text):
    with pytest.raises(MetricIdError):
        parse_metric_id(text)


def test_unquoted_string_parameter_gets_a_hint():
    with pytest.raises(MetricIdError, match="gain='exp2'"):
        parse_metric_id("ndcg(gain=exp2)")


@pytest.mark.parametrize(("params", "expected"), [
    ({}, "retrieval/ndcg@10"),
    ({"k": 5}, "retrieval/ndcg@5"),
    ({"gain": "exp2", "k": 5}, "retrieval/ndcg(gain='exp2')@5"),
    ({"k": None}, "retrieval/ndcg(k=None)"),
    ({"batch_size": 8}, "retrieval/ndcg@10"),  # not an identity parameter
])
def test_canonical_id(params, expected):
    assert canonical_id(SPEC, SPEC.bind_params(params)) == expected


@pytest.mark.parametrize("given", [{"gain": "exp2", "k": 7}, {"k": None}])
def test_canonical_id_round_trips(given):
    params = SPEC.bind_params(given)
    text = canonical_id(SPEC, params)
    assert SPEC.bind_params(parse_metric_id(text).params) == params


GAINS_SPEC = MetricSpec(
    name="ndcg", namespace="retrieval", implementation="m:C", summary="s",
    params=(ParamSpec(name="gains", type="dict", default=None, nullable=True, identity=True),
            ParamSpec(name="weights", type="list", default=(1.0, -1.0), identity=True)),
)


@pytest.mark.parametrize("params", [
    {"gains": {1: 3.0, 2: 7.0}, "weights": (2.0, -1.0)},
    {"gains": {"a": 1, "$t": 2}, "weights": ()},
    {"gains": {(1, 2): {3: "x"}, 0.5: None}, "weights": (1.0,)},
    {"gains": None, "weights": (1.0, -1.0)},
])
def test_parameters_survive_json_with_their_keys(params):
    import orjson
    from evalcore._contract.identity import params_from_json, params_to_json

    bound = GAINS_SPEC.bind_params(params)
    read = params_from_json(orjson.loads(orjson.dumps(params_to_json(bound))))
    assert GAINS_SPEC.bind_params(read) == bound
    assert canonical_id(GAINS_SPEC, GAINS_SPEC.bind_params(read)) == canonical_id(GAINS_SPEC, bound)


def test_plain_json_parameters_read_back_as_they_are():
    from evalcore._contract.identity import params_from_json

    plain = {"k": 10, "gains": {"1": 3.0}, "v": [1, [2]]}
    assert params_from_json(plain) == plain


def test_a_mapping_with_integer_keys_round_trips_through_the_id():
    params = GAINS_SPEC.bind_params({"gains": {1: 3.0, 2: 7.0}})
    text = canonical_id(GAINS_SPEC, params)
    assert text == "retrieval/ndcg(gains={1: 3.0, 2: 7.0})"
    assert GAINS_SPEC.bind_params(parse_metric_id(text).params) == params
