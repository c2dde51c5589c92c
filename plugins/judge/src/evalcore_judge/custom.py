"""Judges people write themselves: instructions over the record's fields and an output of their choosing.

A judge is instructions with ``{variables}`` naming record fields by their path (``{example.query}``,
``{prediction.response}``; ``{{`` and ``}}`` for braces), an output type and optional
examples (few-shot: each an example record and the answer the judge should give). It comes from
a TOML or YAML file (``judge/custom(file='my_judge.toml')``), from the metric's parameters, or from
:func:`make_judge`. Output types and values:

* ``pass_fail``: ``{"reason", "verdict": "pass" | "fail"}`` -> 1 or 0;
* ``scale`` (``scale='1-5'``, any integer range): ``{"reason", "score"}`` -> (score - low) / (high - low);
* ``categories`` (``categories={"good": 1, "partly": 0.5, "bad": 0}``): ``{"reason", "category"}`` -> its value;
* ``json`` (``schema``: a JSON schema of an object, ``score_key``: its number or boolean property that
  gives the value, normalised by the property's ``minimum`` / ``maximum``): the answer as the schema says.

The answer is asked for as structured output where the backend takes it and always validated, with
one repair request, as every built-in judge. The prompt's hash (system text, instructions, output
schema and examples) is recorded with the run's parameters, so runs of an edited judge do not compare.
"""

from __future__ import annotations

import json
import os
import re
import string
import tomllib
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Literal

from evalcore.plugin import InputError, Record, SkipSample, get_path
from evalcore_http.cache import content_hash
from pydantic import ConfigDict, Field, ValidationError, create_model, model_validator

from .metrics import Request, StagedJudgeMetric, Verdict
from .parsing import describe_errors
from .prompts import Template
from .schemas import JudgeAnswer, json_schema

OUTPUTS = ("pass_fail", "scale", "categories", "json")
DEFINITION_KEYS = ("name", "instructions", "output", "scale", "categories", "schema", "score_key", "examples")
"""What a judge file (or the metric's parameters) defines."""

SYSTEM = ("You are a judge. Do the task below about the record it shows and answer with a single JSON object and "
          "nothing else: {rule}")


class _Variables(string.Formatter):
    """``{example.query}``: the value at that path of the record (text as it is, other values as JSON)."""

    def get_field(self, field_name: str, args: Sequence[Any], kwargs: Mapping[str, Any]) -> tuple[Any, str]:
        record = kwargs["record"]
        found = get_path(record, field_name, _MISSING)
        if found is _MISSING or found is None:
            raise SkipSample(f"{field_name} is missing")
        return (found if isinstance(found, str) else json.dumps(found, ensure_ascii=False)), field_name


_MISSING = object()
_FORMATTER = _Variables()


def variables(instructions: str) -> list[str]:
    """The record paths ``instructions`` names (``ValueError`` for a malformed template)."""
    return [field for _, field, _, _ in _FORMATTER.parse(instructions) if field is not None]


def render(instructions: str, record: Mapping[str, Any]) -> str:
    """``instructions`` with each variable replaced by the record's value (a missing one skips the sample)."""
    return _FORMATTER.vformat(instructions, (), {"record": record})


def load_definition(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A judge file: TOML (``.toml``) or YAML (``.yaml`` / ``.yml``, with PyYAML) holding the keys of
    :data:`DEFINITION_KEYS`."""
    name = os.fspath(path)
    try:
        with open(name, "rb") as handle:
            raw = handle.read()
    except OSError as exc:
        raise InputError(f"cannot read the judge file: {exc.strerror}", source=name) from None
    try:
        if name.endswith((".yaml", ".yml")):
            try:
                import yaml
            except ImportError:
                raise InputError("a YAML judge file needs PyYAML: pip install 'evalcore-judge[yaml]'",
                                 source=name) from None
            data = yaml.safe_load(raw)
        else:
            data = tomllib.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:  # tomllib's and yaml's errors both derive from ValueError
        raise InputError(f"not a judge file: {str(exc).splitlines()[0]}", source=name) from None
    except Exception as exc:  # noqa: BLE001 - yaml.YAMLError, named in one line
        raise InputError(f"not a judge file: {str(exc).splitlines()[0]}", source=name) from None
    if not isinstance(data, dict):
        raise InputError("a judge file holds a table of keys (name, instructions, output ...)", source=name)
    unknown = sorted(set(data) - set(DEFINITION_KEYS))
    if unknown:
        raise InputError(f"unknown keys {unknown}; a judge file holds {', '.join(DEFINITION_KEYS)}", source=name)
    return data


class _Answer(JudgeAnswer):
    """A custom judge's answer: its reason first, then the verdict."""

    schema_name: ClassVar[str] = "custom_judge"
    rationale_field: ClassVar[str] = "reason"
    reason: str = Field("", description="why, in a few sentences")


class _SchemaAnswer(JudgeAnswer):
    """An answer under the judge's own JSON schema (validated by jsonschema, sent as given)."""

    model_config = ConfigDict(extra="ignore")
    schema_name: ClassVar[str] = "custom_judge"
    user_schema: ClassVar[dict[str, Any]] = {}

    @model_validator(mode="before")
    @classmethod
    def _valid(cls, data: Any) -> Any:
        import jsonschema

        given = {k: v for k, v in data.items() if v is not None} if isinstance(data, Mapping) else data
        errors = sorted(jsonschema.Draft202012Validator(cls.user_schema).iter_errors(given), key=str)
        if errors:
            where = ".".join(str(p) for p in errors[0].absolute_path) or "answer"
            raise ValueError(f"{where}: {errors[0].message}")
        return given

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:  # type: ignore[override]
        return dict(cls.user_schema)

    @classmethod
    def response_format(cls) -> dict[str, Any]:
        """Strict structured output only where the schema is strict (every property required, no others)."""
        schema = cls.user_schema
        strict = schema.get("additionalProperties") is False and \
            set(schema.get("required") or ()) == set(schema.get("properties") or ())
        return {"type": "json_schema", "json_schema": {"name": cls.schema_name, "schema": schema, "strict": strict}}


def parse_scale(text: str) -> tuple[int, int]:
    """``"1-5"`` -> (1, 5): integers with low < high (``ValueError`` if not)."""
    match = re.fullmatch(r"\s*(-?\d+)\s*-\s*(-?\d+)\s*", str(text))
    if not match or int(match.group(1)) >= int(match.group(2)):
        raise ValueError(f"a scale is 'low-high' with integers low < high, e.g. '1-5'; got {text!r}")
    return int(match.group(1)), int(match.group(2))


class Definition:
    """A judge's definition, checked: its answer model, the rule that asks for it and how a value is read."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        self.name = data.get("name")
        self.instructions = data.get("instructions")
        self.output = data.get("output") or "pass_fail"
        if not isinstance(self.instructions, str) or not self.instructions.strip():
            raise ValueError("instructions: give the judge's instructions (text with {example.query}-style variables)")
        try:
            named = variables(self.instructions)
        except ValueError as exc:
            raise ValueError(f"instructions: {exc} (write {{{{ and }}}} for braces)") from None
        bad = [v for v in named if not v.startswith(("example.", "prediction."))]
        if bad:
            raise ValueError(f"instructions: variables name record fields, {{example.FIELD}} or {{prediction.FIELD}}; "
                             f"got {', '.join('{' + v + '}' for v in bad)}")
        if self.output not in OUTPUTS:
            raise ValueError(f"output: one of {', '.join(OUTPUTS)}; got {self.output!r}")
        self.answer, self.rule = getattr(self, f"_{self.output}")(data)
        self.examples = [self._example(i, e) for i, e in enumerate(data.get("examples") or ())]
        # of everything the judge is told: the system rule, instructions, answer schema and examples
        self.prompt_hash = content_hash({"system": SYSTEM.format(rule=self.rule), "instructions": self.instructions,
                                         "answer": json_schema(self.answer), "examples": self.examples})[:16]

    def _pass_fail(self, data: Mapping[str, Any]) -> tuple[type[JudgeAnswer], str]:
        verdict = (Literal["pass", "fail"], Field(description="pass or fail"))
        return (create_model("PassFailAnswer", __base__=_Answer, verdict=verdict),
                '{"reason": "...", "verdict": "pass" or "fail"}.')

    def _scale(self, data: Mapping[str, Any]) -> tuple[type[JudgeAnswer], str]:
        try:
            self.low, self.high = parse_scale(data.get("scale") or "1-5")
        except ValueError as exc:
            raise ValueError(f"scale: {exc}") from None
        score = (int, Field(ge=self.low, le=self.high, description=f"an integer from {self.low} to {self.high}"))
        return (create_model("ScaleAnswer", __base__=_Answer, score=score),
                f'{{"reason": "...", "score": an integer from {self.low} to {self.high}}}.')

    def _categories(self, data: Mapping[str, Any]) -> tuple[type[JudgeAnswer], str]:
        categories = data.get("categories")
        if not isinstance(categories, Mapping) or not categories or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= 1 for v in categories.values()):
            raise ValueError("categories: a mapping of each category to its value from 0 to 1, "
                             "e.g. {good = 1, partly = 0.5, bad = 0}")
        self.values = {str(k): float(v) for k, v in categories.items()}
        category = (Literal[tuple(self.values)], Field(description="one of the categories"))  # type: ignore[misc]
        names = " or ".join(json.dumps(c) for c in self.values)
        return (create_model("CategoryAnswer", __base__=_Answer, category=category),
                f'{{"reason": "...", "category": {names}}}.')

    def _json(self, data: Mapping[str, Any]) -> tuple[type[JudgeAnswer], str]:
        import jsonschema

        schema, key = data.get("schema"), data.get("score_key")
        if not isinstance(schema, Mapping) or schema.get("type") != "object" or \
                not isinstance(schema.get("properties"), Mapping):
            raise ValueError("schema: a JSON schema of an object with properties")
        try:
            jsonschema.Draft202012Validator.check_schema(dict(schema))
        except jsonschema.SchemaError as exc:
            raise ValueError(f"schema: {exc.message}") from None
        prop = schema["properties"].get(key) if isinstance(key, str) else None
        numeric = isinstance(prop, Mapping) and prop.get("type") in ("number", "integer") and \
            isinstance(prop.get("minimum"), (int, float)) and isinstance(prop.get("maximum"), (int, float)) and \
            prop["minimum"] < prop["maximum"]
        if not numeric and not (isinstance(prop, Mapping) and prop.get("type") == "boolean"):
            raise ValueError("score_key: the schema's property giving the value, a boolean or a number with "
                             f"minimum < maximum; got {key!r}")
        self.key, self.bounds = key, (prop["minimum"], prop["maximum"]) if numeric else None
        fields = {p: (Any, Field(None)) for p in schema["properties"]}
        rationale = next((p for p in ("reason", "reasoning", "explanation", "rationale") if p in fields), "reason")
        made = create_model("SchemaAnswer", __base__=_SchemaAnswer, **fields)
        made.user_schema, made.rationale_field = dict(schema), rationale
        return made, "valid under this JSON schema:\n" + json.dumps(schema, ensure_ascii=False)

    def _example(self, index: int, example: Any) -> tuple[str, str]:
        """A few-shot example: the instructions rendered for its record, and its answer as JSON (checked)."""
        where = f"examples[{index}]"
        if not isinstance(example, Mapping) or not isinstance(example.get("answer"), Mapping):
            raise ValueError(f"{where}: {{example: {{...}}, prediction: {{...}}, answer: {{...}}}}")
        record = {"example": example.get("example") or {}, "prediction": example.get("prediction") or {}}
        try:
            shown = render(self.instructions, record)
        except SkipSample as exc:
            raise ValueError(f"{where}: {exc.reason}") from None
        try:
            self.answer.model_validate(dict(example["answer"]))
        except ValidationError as exc:
            raise ValueError(f"{where}.answer: {describe_errors(exc)}") from None
        return shown, json.dumps(dict(example["answer"]), ensure_ascii=False)

    def value(self, answer: JudgeAnswer) -> float:
        """The answer's value in [0, 1]."""
        if self.output == "pass_fail":
            return 1.0 if answer.verdict == "pass" else 0.0  # type: ignore[attr-defined]
        if self.output == "scale":
            return (answer.score - self.low) / (self.high - self.low)  # type: ignore[attr-defined]
        if self.output == "categories":
            return self.values[answer.category]  # type: ignore[attr-defined]
        found = getattr(answer, self.key)
        if self.bounds is None:
            return 1.0 if found else 0.0
        low, high = self.bounds
        return (float(found) - low) / (high - low)

    def messages(self, record: Mapping[str, Any]) -> list[dict[str, str]]:
        """The system rule, the examples as turns, and the instructions for ``record``."""
        turns = [{"role": "system", "content": SYSTEM.format(rule=self.rule)}]
        for shown, answer in self.examples:
            turns += [{"role": "user", "content": shown}, {"role": "assistant", "content": answer}]
        return [*turns, {"role": "user", "content": render(self.instructions, record)}]


class CustomJudge(StagedJudgeMetric):
    """A judge from a file or parameters: instructions over record fields, an output type, examples."""

    def setup(self) -> None:
        super().setup()
        given = {k: self.params[k] for k in DEFINITION_KEYS if self.params.get(k) is not None}
        path = self.params["file"]
        if path is not None:
            if "instructions" in given:
                raise self.parameter_error("file", "give a judge file or instructions, not both")
            data = {**load_definition(path), **{k: v for k, v in given.items() if k == "name"}}
            data.setdefault("name", os.path.splitext(os.path.basename(path))[0])
        else:
            data = given
            if not data.get("name"):
                raise self.parameter_error("name", "a judge from instructions needs a name (its id)")
        try:
            self.definition = Definition(data)
        except ValueError as exc:
            if path is not None:
                raise InputError(str(exc), source=os.fspath(path)) from None
            key, _, why = str(exc).partition(": ")
            param = re.match(r"\w*", key).group()  # type: ignore[union-attr]  # examples[0].answer -> examples
            raise self.parameter_error(param, why if key == param else f"{key}: {why}") from None
        self.template = Template(f"custom:{self.definition.name}", SYSTEM.format(rule=self.definition.rule),
                                 self.definition.instructions.replace("{", "{{").replace("}", "}}"),
                                 self.definition.answer)

    def recorded_params(self) -> dict[str, Any]:
        """The parameters, with the judge's name and prompt hash (an edited judge is another definition)."""
        return {**super().recorded_params(), "name": self.definition.name,
                "prompt_hash": self.definition.prompt_hash}

    def requests(self, example: Record, prediction: Record) -> list[Request]:
        record = {"example": example, "prediction": prediction}
        return [Request("judge", self.template, self.definition.messages(record), self.definition.answer)]

    def follow(self, example: Record, prediction: Record,
               answers: Mapping[str, JudgeAnswer]) -> list[Request] | Verdict:
        answer = answers["judge"]
        details: dict[str, Any] = {"judge": self.definition.name, "prompt_hash": self.definition.prompt_hash,
                                   "answer": answer.model_dump(exclude_none=True)}
        return Verdict(self.definition.value(answer), answer.rationale, details)


def make_judge(name: str, instructions: str, output: str = "pass_fail", *, scale: str | None = None,
               categories: Mapping[str, float] | None = None, schema: Mapping[str, Any] | None = None,
               score_key: str | None = None, examples: Sequence[Mapping[str, Any]] | None = None,
               **settings: Any) -> Any:
    """A custom judge metric (``judge/custom(name=...)``) from a few lines of Python; ``settings`` are the
    judge's (``base_url``, ``model``, ``judge``, ``cache_mode``, ``threshold`` ...), as for every judge metric."""
    import evalcore

    given = {"scale": scale, "categories": categories, "schema": schema, "score_key": score_key,
             "examples": examples}
    return evalcore.get_metric("judge/custom", name=name, instructions=instructions, output=output,
                               **{k: v for k, v in given.items() if v is not None}, **settings)


__all__ = ["CustomJudge", "Definition", "load_definition", "make_judge", "render", "variables"]
