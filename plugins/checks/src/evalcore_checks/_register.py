"""Metric specs of the checks plugin (imports only ``evalcore.plugin``)."""

from __future__ import annotations

from evalcore.plugin import MetricSpec, ParamSpec, TargetCategory, hookimpl

__all__ = ["PLUGIN_API_VERSION", "evalcore_metrics"]

PLUGIN_API_VERSION = 1  # the evalcore plugin API these specs are written for

_PKG = "evalcore_checks"
_COMMON = (
    "Proxy tier, zero cost, deterministic. A sample whose field is missing is skipped with "
    "the reason; a field of the wrong type is an error for that sample only."
)
_EXPECTED = (
    "The expected value is the parameter when set, else the example field named by "
    "`expected_field`, else `example.expected_output` (the benchmark engine's registry; any JSON value), else "
    "`example.reference_answer` (the Auepora RAG metric spec; a string or a list of strings — the best match counts)."
)


def _field(default: str = "response", what: str = "the text to check") -> ParamSpec:
    return ParamSpec(
        name="field", type="str", default=default, identity=True, aliases=("field_path",),
        description=f"dotted path in the prediction of {what} (e.g. 'output.data.summary')",
    )


def _ignore_case(default: bool) -> ParamSpec:
    return ParamSpec(name="ignore_case", type="bool", default=default, identity=True, aliases=("case_insensitive",),
                     description="compare case-folded text")


def _expected_field(what: str) -> ParamSpec:
    return ParamSpec(name="expected_field", type="str", default=None, nullable=True, identity=True,
                     aliases=("expected_path",), description=f"dotted path of {what} in the example")


def _spec(name: str, cls: str, **fields: object) -> MetricSpec:
    fields.setdefault("family", "checks")
    fields.setdefault("tier", "proxy")
    fields.setdefault("cost_msats", 0)
    fields.setdefault("deterministic", True)
    fields.setdefault("granularity", "sample")
    return MetricSpec(name=name, implementation=f"{_PKG}.{cls}", **fields)  # type: ignore[arg-type]


def _format() -> MetricSpec:
    return _spec(
        "format", "format:FormatCheck",
        summary="Output is non-empty, and optionally valid JSON with a named field (pass/fail).",
        description=(
            "dsrs FormatMetric. Checks, each switchable: `require_non_empty` (a string with "
            "non-whitespace content, or a non-empty object/list), `require_valid_json` (a string "
            "must parse with `json.loads`; structured values pass), `json_field` (the parsed JSON "
            "must contain this dotted path; implies the JSON check). Value 1.0 when every enabled "
            "check passes, else 0.0; details hold each check, feedback names the failures. A missing "
            "field scores 0.0 ('output is empty'), as in the dsrs reference tests. The dsrs code "
            "only parses strings that start with '{' or '['; evalcore parses the whole field. "
            + _COMMON
        ),
        target=TargetCategory.FORMAT, direction="higher", value_range=(0.0, 1.0),
        inputs=("prediction.response",),
        params=(
            _field(what="the output"),
            ParamSpec(name="require_non_empty", type="bool", default=True, identity=True,
                      description="the output must not be empty"),
            ParamSpec(name="require_valid_json", type="bool", default=False, identity=True,
                      description="the output must parse as JSON"),
            ParamSpec(name="json_field", type="str", default=None, nullable=True, identity=True,
                      description="dotted path that must exist in the parsed JSON"),
        ),
        version="1",
    )


def _keyword_params() -> tuple[ParamSpec, ...]:
    return (
        _field(),
        _ignore_case(True),
        ParamSpec(name="whole_word", type="bool", default=False, identity=True,
                  description="match keywords as whole words instead of substrings"),
    )


def _keyword() -> MetricSpec:
    return _spec(
        "keyword", "keyword:KeywordCheck",
        summary="All required keywords present, no forbidden keyword present.",
        description=(
            "dsrs KeywordMetric. Value 0.0 when any forbidden keyword occurs; otherwise the "
            "fraction of required keywords that occur (1.0 when all do, or when only forbidden "
            "keywords are given). This partial credit follows the dsrs implementation; the pass "
            "threshold is 1.0, so as pass/fail it means 'required all, forbidden none'. Matching "
            "is case-insensitive substring search by default, as in dsrs (`ignore_case=False` "
            "for exact case, `whole_word=True` for word boundaries). Keywords come from the "
            "`required`/`forbidden` parameters, else `example.required_keywords` / "
            "`example.forbidden_keywords`; with none at all the sample is skipped. " + _COMMON
        ),
        target=TargetCategory.FORMAT, direction="higher", value_range=(0.0, 1.0),
        pass_threshold=1.0,
        inputs=("prediction.response", "example.required_keywords", "example.forbidden_keywords"),
        params=(
            ParamSpec(name="required", type="list", default=None, nullable=True, identity=True,
                      description="keywords that must all occur"),
            ParamSpec(name="forbidden", type="list", default=None, nullable=True, identity=True,
                      description="keywords none of which may occur"),
            *_keyword_params(),
        ),
        version="1",
    )


def _keyword_coverage() -> MetricSpec:
    return _spec(
        "keyword_coverage", "keyword:KeywordCoverage",
        summary="Share of the listed keywords found in the output (keyword_hits / keyword_total).",
        description=(
            "The benchmark engine's keyword_coverage. coverage = keyword_hits / keyword_total over the keyword "
            "list; details carry keyword_hits, keyword_total, coverage and the missing keywords. "
            "`unique_match=True` (default) counts repeated keywords once (case-folded when "
            "case-insensitive); `False` counts every list entry. Keywords come from the `keywords` "
            "parameter, else `example.keywords` (the benchmark engine's context); an empty list skips the "
            "sample. Benchmark engine registry reads `output.summary`: pass `field='output.summary'`; the "
            "default is Auepora `response` field. Matching as in `checks/keyword`. " + _COMMON
        ),
        target=TargetCategory.GENERATION_RELEVANCE, direction="higher", value_range=(0.0, 1.0),
        inputs=("prediction.response", "example.keywords"),
        params=(
            ParamSpec(name="keywords", type="list", default=None, nullable=True, identity=True,
                      description="keywords to look for; None reads example.keywords"),
            ParamSpec(name="unique_match", type="bool", default=True, identity=True,
                      description="count each distinct keyword once"),
            *_keyword_params(),
        ),
        version="1",
    )


def _length() -> MetricSpec:
    return _spec(
        "length", "length:LengthCheck",
        summary="Length in characters within [min_chars, max_chars], partial credit just outside.",
        description=(
            "dsrs LengthMetric ('partial credit for close-to-bounds'). Length is the number of "
            "Unicode characters (code points) of the text at `field` (the dsrs code counts "
            "UTF-8 bytes). Value 1.0 inside the bounds; below `min_chars` it is "
            "max(0, 1 − (min_chars − length) / (tolerance × min_chars)), above `max_chars` "
            "max(0, 1 − (length − max_chars) / (tolerance × max_chars)). dsrs gives no formula; "
            "with the default tolerance 0.2 a text 10% outside a bound scores 0.5 and 20% or more "
            "scores 0. `tolerance=0` is the strict pass/fail check of the dsrs code. At least one "
            "bound is required (a ParameterError otherwise). " + _COMMON
        ),
        target=TargetCategory.FORMAT, direction="higher", value_range=(0.0, 1.0), pass_threshold=1.0,
        inputs=("prediction.response",),
        params=(
            ParamSpec(name="min_chars", type="int", default=None, nullable=True, identity=True, minimum=0,
                      description="fewest characters allowed; None: no lower bound"),
            ParamSpec(name="max_chars", type="int", default=None, nullable=True, identity=True, minimum=0,
                      description="most characters allowed; None: no upper bound"),
            ParamSpec(name="tolerance", type="float", default=0.2, identity=True, minimum=0.0,
                      description="width of the partial-credit band, as a fraction of the bound"),
            _field(),
        ),
        version="1",
    )


def _syntax() -> MetricSpec:
    return _spec(
        "syntax", "syntax:SyntaxCheck",
        summary="Code has balanced brackets and quotes, or parses (Python via ast, JSON via json).",
        description=(
            "The dsrs SyntaxMetric. With `language='python'` the code must parse with Python's "
            "`ast.parse`; with `language='json'` with `json.loads`. Any other language (or none) "
            "uses the dsrs delimiter scan: brackets (), [], {} must nest and close, and the quotes "
            "the dsrs document lists, \" and ', must close (a backslash escapes inside quotes, "
            "brackets inside quotes are ignored; a backtick is a quote only with "
            "`backtick_quotes=True`); `check_balanced_brackets` / `check_balanced_quotes` switch "
            "those off (with quotes off, a quote character is plain text and starts no string). "
            "Rust (the dsrs document's example), JavaScript, TypeScript/TSX, Go, Java, C, C++ and "
            "Bash are parsed with tree-sitter grammars when they are installed (extra "
            "evalcore-checks[syntax]: grammar wheels, offline); `parser` picks 'auto' (tree-sitter "
            "when installed, else the delimiter scan; details say which ran), 'tree_sitter' "
            "(required) or 'delimiters'. "
            "Value 1.0 or 0.0, feedback says what is unbalanced or the parser's error. Empty code "
            "scores 0.0 ('no code found'), as in dsrs. " + _COMMON
        ),
        target=TargetCategory.FORMAT, direction="higher", value_range=(0.0, 1.0),
        inputs=("prediction.response",),
        params=(
            ParamSpec(name="language", type="str", default=None, nullable=True, identity=True,
                      description="'python' and 'json' are parsed; others use the delimiter scan"),
            ParamSpec(name="check_balanced_brackets", type="bool", default=True, identity=True,
                      description="(), [] and {} must balance"),
            ParamSpec(name="check_balanced_quotes", type="bool", default=True, identity=True,
                      description="quotes must pair up"),
            ParamSpec(name="backtick_quotes", type="bool", default=False, identity=True,
                      description="count ` as a quote too"),
            ParamSpec(name="parser", type="str", default="auto", identity=True,
                      choices=("auto", "tree_sitter", "delimiters"),
                      description="tree-sitter grammars for other languages (auto: when installed)"),
            _field(what="the code"),
        ),
        version="2",
    )


def _json_schema() -> MetricSpec:
    return _spec(
        "json_schema", "schema:JsonSchemaCheck",
        summary="A field of the prediction is valid against a JSON schema (jsonschema).",
        description=(
            "dsrs ToolParamsSchemaMetric, generalised to any field. The value at `field` "
            "(a string is parsed as JSON unless `parse_json=False`; a structured value is used as "
            "is) is validated with the "
            "`jsonschema` package, using the draft the schema declares in `$schema` (latest "
            "otherwise); `check_formats` also asserts `format`. Value 1.0 if valid, 0.0 if not "
            "(also for a string that is not JSON); feedback lists the first validation errors. "
            "The schema is the `schema` parameter, else the value at `schema_field` in the example. An "
            "invalid schema is an error for the sample by default; dsrs scores it 0.5 — set "
            "`invalid_schema_score=0.5` for that. " + _COMMON
        ),
        target=TargetCategory.FORMAT, direction="higher", value_range=(0.0, 1.0),
        inputs=("prediction.response", "example.schema"), requires=("jsonschema",),
        params=(
            ParamSpec(name="schema", type="any", default=None, nullable=True, identity=True,
                      description="the JSON schema (an object or a boolean)"),
            ParamSpec(name="schema_field", type="str", default="schema",
                      description="dotted path of the schema in the example, read when the parameter is unset"),
            ParamSpec(name="check_formats", type="bool", default=False, identity=True,
                      description="also check the schema's 'format' keywords (e.g. date-time)"),
            ParamSpec(name="parse_json", type="bool", default=True, identity=True,
                      description="parse a string value as JSON (False: validate the string itself)"),
            ParamSpec(name="invalid_schema_score", type="float", default=None, nullable=True,
                      minimum=0.0, maximum=1.0,
                      description="value for an invalid schema instead of an error (dsrs: 0.5)"),
            _field(what="the value to validate"),
        ),
        version="1",
    )


def _diff() -> MetricSpec:
    return _spec(
        "diff", "diff:DiffCheck",
        summary="Output equals the expected text: exact, whitespace-normalised, or Python-AST-equivalent.",
        description=(
            "The dsrs DiffMetric, a truth metric as there (a Scorer's or the evaluator's `tiers` "
            "option can run it as a proxy). Cost by level as the dsrs document gives it: exact and "
            "normalized_whitespace 0 msats, ast 10 msats, semantic 50 msats. "
            "Levels: `exact` (character by character), `normalized_whitespace` (default, as in the "
            "dsrs code: every whitespace run becomes one space, ends stripped), `ast` (a TODO there: "
            "both sides parse as Python and `ast.dump` of the trees is equal, so formatting, "
            "comments and redundant parentheses do not matter; output that does not parse scores "
            "0.0, an expected text that does not parse is an error), `semantic` (LLM-judged "
            "equivalence: skipped with 'not available: install evalcore-judge'). Value 1.0 or 0.0. "
            + _EXPECTED + " " + _COMMON
        ),
        target=TargetCategory.GENERATION_CORRECTNESS, direction="higher", value_range=(0.0, 1.0),
        tier="truth",
        inputs=("prediction.response", "example.expected_output", "example.reference_answer"),
        params=(
            ParamSpec(name="level", type="str", default="normalized_whitespace", identity=True,
                      choices=("exact", "normalized_whitespace", "ast", "semantic"),
                      description="strictness: 'exact', 'normalized_whitespace', 'ast' (Python code) or 'semantic'"),
            ParamSpec(name="expected", type="str", default=None, nullable=True, identity=True,
                      description="the expected text; None reads it from the example"),
            _expected_field("the expected text"),
            _field(),
        ),
        version="2",
    )


def _accuracy() -> MetricSpec:
    return _spec(
        "accuracy_score", "accuracy:AccuracyScore",
        summary="Exact (deep / normalised) equality with the expected output, or token-set Jaccard.",
        description=(
            "The benchmark engine's accuracy_score. `mode='exact'` (default): when either side is structured "
            "(object or list; a JSON string on the other side is parsed) JSON-style deep equality "
            "(key order ignored, true ≠ 1); otherwise equality of the texts after whitespace "
            "collapse (numbers via str, booleans as true/false). `mode='overlap'`: Jaccard index "
            "of the whitespace-token sets (1.0 when both are empty). `ignore_case` case-folds "
            "strings in both modes. Details: accuracy and mode. " + _EXPECTED + " " + _COMMON
        ),
        target=TargetCategory.GENERATION_CORRECTNESS, direction="higher", value_range=(0.0, 1.0),
        inputs=("prediction.response", "example.expected_output", "example.reference_answer"),
        params=(
            ParamSpec(name="mode", type="str", default="exact", identity=True, choices=("exact", "overlap"),
                      description="'exact': equality after normalisation; 'overlap': token-set Jaccard"),
            ParamSpec(name="expected_output", type="any", default=None, nullable=True, identity=True,
                      description="the expected output; None reads it from the example"),
            _expected_field("the expected output"),
            _ignore_case(False),
            _field(what="the value to compare"),
        ),
        version="1",
    )


def _completeness() -> MetricSpec:
    return _spec(
        "completeness", "completeness:Completeness",
        summary="Share of required fields present (non-null) in a structured output.",
        description=(
            "The benchmark engine's completeness: completeness = present / required; details present, required, "
            "completeness, missing. The object at `field` (a JSON object string is parsed) "
            "must be a mapping, else an error. A field is present when its key exists with a "
            "non-null value. `allow_nested=True` reads required names as dotted paths "
            "('order.total'); `False` (default, as in the benchmark engine) looks up top-level keys only. "
            "Required fields come from the parameter, else `example.required_fields`; none skips. "
            + _COMMON
        ),
        target=TargetCategory.FORMAT, direction="higher", value_range=(0.0, 1.0),
        inputs=("prediction.response", "example.required_fields"),
        params=(
            ParamSpec(name="required_fields", type="list", default=None, nullable=True, identity=True,
                      description="fields that must be present and not null; None reads example.required_fields"),
            ParamSpec(name="allow_nested", type="bool", default=False, identity=True,
                      description="read dotted field names as paths into nested objects"),
            _field(what="the structured output"),
        ),
        version="1",
    )


def _policy() -> MetricSpec:
    return _spec(
        "policy_compliance", "policy:PolicyCompliance",
        summary="No policy violations reported (violations given as an int, a list or {'count': n}).",
        description=(
            "The benchmark engine's policy_compliance. The value at `field` is a violation count (a whole "
            "number >= 0), a list of violations (its length counts) or a mapping with 'count'. "
            "Value 1.0 when the count is 0 (compliant), else 0.0; details policy_violations and "
            "compliant. Benchmark engine registry reads `output.policy_violations`; the default path is the "
            "top-level `policy_violations`. Other types are an error for the sample. " + _COMMON
        ),
        target=TargetCategory.AGENT_BEHAVIOUR, direction="higher", value_range=(0.0, 1.0),
        inputs=("prediction.policy_violations",),
        params=(_field("policy_violations", "the reported violations"),),
        version="1",
    )


def _scriptable() -> MetricSpec:
    return _spec(
        "custom_scriptable", "scriptable:CustomScriptable",
        summary="A safe boolean expression over run fields and earlier metric values.",
        description=(
            "The benchmark engine's custom_scriptable, e.g. `duration_ms < 1500 and accuracy_score >= 0.8`. "
            "Names resolve against the prediction's fields first, then earlier metrics on the same "
            "record (`prediction.metrics`, by bare name or canonical id; `metrics['checks/x']` "
            "also works). The expression is evaluated by a whitelist walk of Python's `ast`, never "
            "by eval: literals, names, constant-key lookups (`usage['total_tokens']`), arithmetic "
            "on numbers, comparisons (`is` only with None), and/or/not. Attribute access, calls, "
            "lambdas, comprehensions, f-strings, `:=`, slices and conditional expressions are "
            "rejected; expressions are limited to 1000 characters, 300 syntax nodes and 40 levels "
            "of nesting, powers and products to 256-bit integers. Value 1.0 when the expression "
            "is true, 0.0 when false; a non-boolean result, an unknown name or a rejected "
            "expression is an error naming the problem; an earlier metric without a value skips. "
            "The expression is the parameter, else `example.expression`. " + _COMMON
        ),
        target=TargetCategory.AGENT_BEHAVIOUR, direction="higher", value_range=(0.0, 1.0),
        inputs=("prediction.*", "prediction.metrics", "example.expression"),
        params=(ParamSpec(name="expression", type="str", default=None, nullable=True, identity=True,
                          description="the boolean expression; None reads example.expression"),),
        version="1",
    )


@hookimpl
def evalcore_metrics() -> list[MetricSpec]:
    """The checks plugin's metrics."""
    return [
        _format(), _keyword(), _keyword_coverage(), _length(), _syntax(), _json_schema(), _diff(),
        _accuracy(), _completeness(), _policy(), _scriptable(),
    ]
