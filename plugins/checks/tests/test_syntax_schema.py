"""syntax and json_schema, checked against the reference parsers/validators on generated data."""

from __future__ import annotations

import ast
import json

import jsonschema
import pytest
from evalcore import Status
from evalcore_checks.syntax import check_delimiters
from hypothesis import given, settings
from hypothesis import strategies as st

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=15,
)


def test_syntax_seed_cases(metric) -> None:
    # Seed 000: balanced brackets (), [], {} and quotes; unmatched delimiters fail.
    m = metric("checks/syntax")
    assert m.score_one({}, {"response": 'fn main() { let v = [1, 2]; println!("{}", v[0]); }'}).value == 1.0
    assert m.score_one({}, {"response": "fn main() { let v = [1, 2; }"}).value == 0.0
    unclosed = m.score_one({}, {"response": 'let s = "abc;'})
    assert unclosed.value == 0.0 and "unclosed" in unclosed.feedback
    assert m.score_one({}, {"response": 'x = "a ) b"'}).value == 1.0  # brackets inside quotes ignored
    assert m.score_one({}, {"response": r'x = "a \" b"'}).value == 1.0  # escaped quote
    assert m.score_one({}, {"response": ""}).value == 0.0  # "no code found", as in dsrs
    loose = metric("checks/syntax", check_balanced_quotes=False)
    assert loose.score_one({}, {"response": 'say "hi'}).value == 1.0
    # with quotes off an apostrophe starts no string, so the bracket after it counts
    assert loose.score_one({}, {"response": "don't do (this"}).value == 0.0
    assert m.score_one({}, {"response": "don't do (this"}).value == 0.0
    # the document's quotes are " and '; a backtick is a quote only when asked
    assert m.score_one({}, {"response": "run `ls (x"}).value == 0.0
    assert m.score_one({}, {"response": "run `ls (x`"}).value == 0.0
    ticks = metric("checks/syntax", backtick_quotes=True)
    assert ticks.score_one({}, {"response": "run `ls (x`"}).value == 1.0
    assert ticks.score_one({}, {"response": "run `ls"}).value == 0.0


def test_syntax_python_and_json(metric) -> None:
    py = metric("checks/syntax", language="python")
    assert py.score_one({}, {"response": "def f(x):\n    return x  # it's fine\n"}).value == 1.0
    bad = py.score_one({}, {"response": "def f(x) return x"})
    assert bad.value == 0.0 and "Python syntax error" in bad.feedback
    js = metric("checks/syntax", language="json")
    assert js.score_one({}, {"response": '{"a": [1, 2]}'}).value == 1.0
    assert js.score_one({}, {"response": "{'a': 1}"}).value == 0.0
    assert py.score_one({}, {"response": 7}).status is Status.ERROR


PY_ALPHABET = st.sampled_from(
    ["x", "1", " ", "\n", "    ", "(", ")", "[", "]", "{", "}", ":", "=", "+", "def ", "return ",
     "if ", "else", "'", '"', "#", ",", "lambda ", "f", "."]
)


@pytest.mark.filterwarnings("ignore::SyntaxWarning")
@settings(max_examples=300)
@given(st.lists(PY_ALPHABET, max_size=25).map("".join))
def test_python_check_agrees_with_ast(code: str) -> None:
    from evalcore_checks.syntax import check_python

    try:
        ast.parse(code)
        expected = True
    except SyntaxError:
        expected = False
    assert (check_python(code) is None) == expected


@settings(max_examples=200)
@given(JSON)
def test_json_check_and_delimiters_accept_json_dumps(value) -> None:
    from evalcore_checks.syntax import check_json

    text = json.dumps(value)
    assert check_json(text) is None
    assert check_delimiters(text) is None  # every JSON document is balanced


@settings(max_examples=300)
@given(st.text(alphabet="()[]{}", max_size=20))
def test_delimiters_agree_with_stack_reduction(text: str) -> None:
    reduced = text
    while any(p in reduced for p in ("()", "[]", "{}")):
        for pair in ("()", "[]", "{}"):
            reduced = reduced.replace(pair, "")
    assert (check_delimiters(text) is None) == (reduced == "")


@settings(max_examples=200)
@given(st.text(max_size=30))
def test_json_check_agrees_with_json_loads(text: str) -> None:
    from evalcore_checks.syntax import check_json

    try:
        json.loads(text)
        expected = True
    except ValueError:
        expected = False
    assert (check_json(text) is None) == expected


# -- json_schema ---------------------------------------------------------------------

SCHEMA = {
    "type": "object",
    "properties": {"path": {"type": "string"}, "line": {"type": "integer", "minimum": 1}},
    "required": ["path"],
}


def test_json_schema_cases(metric) -> None:
    # Seed 000 ToolParamsSchemaMetric: valid params 1.0, invalid 0.0.
    m = metric("checks/json_schema", schema=SCHEMA, field="params")
    assert m.score_one({}, {"params": {"path": "a.py", "line": 3}}).value == 1.0
    bad = m.score_one({}, {"params": {"line": 0}})
    assert bad.value == 0.0 and "'path' is a required property" in bad.feedback
    assert m.score_one({}, {"params": '{"path": "x"}'}).value == 1.0  # JSON string parsed
    assert m.score_one({}, {"params": "{not json"}).value == 0.0
    assert m.score_one({}, {}).status is Status.SKIPPED


def test_json_schema_from_example_and_invalid_schema(metric) -> None:
    m = metric("checks/json_schema")
    assert m.score_one({"schema": {"type": "string"}}, {"response": '"hi"'}).value == 1.0
    assert m.score_one({}, {"response": "1"}).status is Status.SKIPPED
    broken = m.score_one({"schema": {"type": "no-such-type"}}, {"response": "1"})
    assert broken.status is Status.ERROR and "invalid JSON schema" in broken.error_message
    param = metric("checks/json_schema", schema={"minimum": "zero"})
    assert param.score_one({}, {"response": "1"}).status is Status.ERROR
    seed = metric("checks/json_schema", schema={"minimum": "zero"}, invalid_schema_score=0.5)
    assert seed.score_one({}, {"response": "1"}).value == 0.5  # seed 000: schema error -> 0.5


SIMPLE_SCHEMAS = st.fixed_dictionaries({}, optional={
    "type": st.sampled_from(["object", "array", "string", "integer", "number", "boolean", "null"]),
    "minimum": st.integers(-5, 5),
    "maxLength": st.integers(0, 5),
    "maxItems": st.integers(0, 3),
    "required": st.lists(st.sampled_from(["a", "b"]), unique=True, max_size=2),
})


@settings(max_examples=200)
@given(SIMPLE_SCHEMAS, JSON)
def test_json_schema_agrees_with_jsonschema(schema, instance) -> None:
    from evalcore.plugin import schema_validator

    expected = jsonschema.Draft202012Validator(schema).is_valid(instance)
    assert schema_validator(schema, check_formats=False).is_valid(instance) == expected
    import evalcore

    parsed = evalcore.get_metric("checks/json_schema", schema=schema)
    assert parsed.score_one({}, {"response": json.dumps(instance)}).value == float(expected)
    if instance is not None:  # a null field counts as missing
        raw = evalcore.get_metric("checks/json_schema", schema=schema, parse_json=False, field="v")
        assert raw.score_one({}, {"v": instance}).value == float(expected)


@pytest.mark.parametrize("schema", [None, [1, 2], "string"])
def test_json_schema_rejects_non_schemas(metric, schema) -> None:
    m = metric("checks/json_schema")
    result = m.score_one({"schema": schema}, {"response": "1"})
    assert result.status in (Status.SKIPPED, Status.ERROR)


RUST_OK = 'fn main() { let v = vec![1, 2]; println!("{}", v[0]); }'
RUST_BAD = "fn main() { let v = [1, 2; }"


@pytest.mark.parametrize(("language", "good", "bad"), [
    ("rust", RUST_OK, RUST_BAD),
    ("rust", "fn f() -> u8 { 1 }", "fn f( -> u8 { 1 }"),
    ("javascript", "const f = (x) => x + 1;", "const f = (x) => ;"),
    ("typescript", "let x: number = 1;", "let x: = 1;"),
    ("go", "package main\nfunc main() {}\n", "package main\nfunc main( {}\n"),
    ("java", "class A { void f() {} }", "class A { void f() { }"),
    ("c", "int main(void) { return 0; }", "int main(void) { return 0 }"),
    ("cpp", "int main() { std::vector<int> v; }", "int main() { std::vector<int v; }"),
    ("bash", "if [ -f x ]; then echo hi; fi", "if [ -f x ]; then echo hi;"),
])
def test_tree_sitter_grammars(metric, language, good, bad) -> None:
    pytest.importorskip("tree_sitter")
    m = metric("checks/syntax", language=language, parser="tree_sitter")
    ok = m.score_one({}, {"response": good})
    assert ok.value == 1.0 and ok.details["checker"] == "tree_sitter", ok.feedback
    wrong = m.score_one({}, {"response": bad})
    assert wrong.value == 0.0 and f"{language} syntax error" in wrong.feedback and "line " in wrong.feedback


def test_tree_sitter_catches_what_the_delimiter_scan_cannot(metric) -> None:
    pytest.importorskip("tree_sitter_rust")
    code = "fn main() { let = ; }"  # balanced, but not Rust
    assert metric("checks/syntax", language="rust", parser="delimiters").score_one({}, {"response": code}).value == 1.0
    assert metric("checks/syntax", language="rust").score_one({}, {"response": code}).value == 0.0  # auto
    unknown = metric("checks/syntax", language="cobol", parser="tree_sitter").score_one({}, {"response": code})
    assert unknown.status is Status.ERROR and "no tree-sitter grammar for 'cobol'" in unknown.error_message
