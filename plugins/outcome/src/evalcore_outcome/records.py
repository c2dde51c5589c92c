"""Labelled tool-call records (dsrs and Adjutant) and their JSONL loader.

Each JSONL line is one of:

* a :class:`LabeledToolCall` (Adjutant: ``signature``, ``inputs``, ``outputs``,
  ``step_utility``, ``verification_delta`` in *failing* tests, ``cost_tokens``,
  ``cost_tool_calls``, ``was_repeated``), recognised by its ``signature`` field;
* an :class:`OutcomeCoupledLabels` record (dsrs: ``step_utility``, ``tests_before``,
  ``tests_after``, ``verification_delta`` in *passing* tests, ``was_repeated``,
  ``params_valid``, ``outcome_score``), optionally with the call's ``tool`` and ``params``.

:func:`load_tool_calls` turns them into evaluator records ``{"id", "example", "prediction"}``
whose prediction carries the labels under the names the ``outcome`` metrics read.
"""

from __future__ import annotations

import os
from typing import Any

from evalcore.plugin import InputError, iter_jsonl
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

Utility = Field(ge=-1.0, le=1.0, allow_inf_nan=False)


class OutcomeCoupledLabels(BaseModel):
    """Training labels of one tool step (dsrs); ``verification_delta`` counts passing tests."""

    model_config = ConfigDict(extra="forbid")

    step_utility: float = Utility
    tests_before: int = Field(ge=0)
    tests_after: int = Field(ge=0)
    verification_delta: int | None = None
    was_repeated: bool
    params_valid: bool
    outcome_score: float | None = Field(default=None, allow_inf_nan=False)
    tool: str | None = None
    params: Any = None

    @model_validator(mode="after")
    def _delta(self) -> OutcomeCoupledLabels:
        computed = self.tests_after - self.tests_before
        if self.verification_delta is None:
            self.verification_delta = computed
        elif self.verification_delta != computed:
            raise ValueError(
                f"verification_delta {self.verification_delta} != tests_after - tests_before ({computed})"
            )
        return self


class LabeledToolCall(BaseModel):
    """A tool call with outcome-coupled labels (Adjutant); ``verification_delta`` counts failing tests."""

    model_config = ConfigDict(extra="forbid")

    signature: str
    inputs: Any
    outputs: Any
    step_utility: float = Utility
    verification_delta: int
    cost_tokens: int = Field(ge=0)
    cost_tool_calls: int = Field(ge=0)
    was_repeated: bool


def to_record(model: LabeledToolCall | OutcomeCoupledLabels, record_id: str) -> dict[str, Any]:
    """The evaluator record of one labelled call."""
    if isinstance(model, LabeledToolCall):
        prediction = model.model_dump(exclude={"signature", "inputs"})
        if isinstance(model.outputs, dict):
            prediction.update({k: model.outputs[k] for k in ("tool", "params") if k in model.outputs})
        example = {"signature": model.signature, "inputs": model.inputs}
    else:
        prediction = model.model_dump(exclude_unset=True, exclude_none=False)
        prediction["verification_delta"] = model.verification_delta
        example = {}
    return {"id": record_id, "example": example, "prediction": prediction}


def load_tool_calls(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Read labelled tool calls from a JSONL file as evaluator records.

    Record ids are ``<file name>:<line>``. A line that is not JSON or does not match its
    model raises :class:`~evalcore.InputError` naming the file, line and field.
    """
    name = os.fspath(path)
    records = []
    for source, lineno, data in iter_jsonl(name):
        if isinstance(data, InputError):
            raise data
        if not isinstance(data, dict):
            raise InputError(f"expected a JSON object, got {type(data).__name__}", source=source)
        model = LabeledToolCall if "signature" in data else OutcomeCoupledLabels
        try:
            parsed = model.model_validate(data)
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(p) for p in err["loc"]) or None
            raise InputError(f"{err['msg']} ({model.__name__})", source=source, field=field) from None
        records.append(to_record(parsed, f"{os.path.basename(name)}:{lineno}"))
    return records
