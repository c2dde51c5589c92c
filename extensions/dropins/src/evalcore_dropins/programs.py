"""DSPy modules as programs for the evaluator: called with their inputs as keywords, as
``dspy.Evaluate`` calls them, in the context they were handed over in."""

from __future__ import annotations

import contextvars
import inspect
import sys
from collections.abc import Callable, Mapping
from typing import Any

from evalcore import EvalcoreError


def is_dspy_module(program: Any) -> bool:
    """Whether ``program`` is a ``dspy.Module`` (without importing DSPy when it is not in use)."""
    dspy = sys.modules.get("dspy")
    module_class = getattr(dspy, "Module", None)
    return module_class is not None and isinstance(program, module_class)


def adapt(program: Any) -> Callable[[Mapping[str, Any]], Any] | None:
    """The program adapter :func:`evalcore.evaluate` asks (``evalcore_programs``): a DSPy module as a
    program, ``None`` for anything else."""
    return as_program(program) if is_dspy_module(program) else None


def as_program(module: Any) -> Callable[[Mapping[str, Any]], Any]:
    """A program for :func:`evalcore.evaluate` that calls the DSPy ``module`` with keyword inputs.

    A ``dspy.Example`` record gives ``example.inputs()``; a plain record gives the fields the
    module's signature (``dspy.Predict`` and the like) or its ``forward`` parameters name. The
    module runs in the context :func:`as_program` was called in (so ``dspy.context(lm=...)``
    holds whichever thread the evaluator uses).
    """
    names = _input_names(module)
    context = contextvars.copy_context()  # dspy.context(lm=...) where the program is made

    def program(record: Any) -> Any:
        if callable(getattr(record, "inputs", None)) and hasattr(record, "toDict"):
            inputs = dict(record.inputs())
        else:
            missing = [n for n in names if n not in record]
            if missing:
                raise EvalcoreError(f"{type(module).__name__} takes {', '.join(names)}; the record has no "
                                    f"example.{', example.'.join(missing)}")
            inputs = {n: record[n] for n in names}
        return context.copy().run(lambda: module(**inputs))

    return program


def _input_names(module: Any) -> list[str]:
    signature = getattr(module, "signature", None)
    if signature is not None and hasattr(signature, "input_fields"):
        return list(signature.input_fields)
    parameters = list(inspect.signature(type(module).forward).parameters.values())[1:]  # without self
    names = [p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    if not names:
        raise EvalcoreError(
            f"program: cannot tell which fields {type(module).__name__}.forward takes (it has only **kwargs); "
            "give dspy.Example records with .with_inputs(...) or use evalcore.dspy.Evaluate"
        )
    return names

