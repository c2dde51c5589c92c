"""``checks/diff``: the output compared with the expected text at a strictness level (the dsrs DiffMetric)."""

from __future__ import annotations

import ast
import warnings

import attrs
from evalcore.plugin import InputError, Record, SampleMetric, Score, SkipSample
from evalcore_text import collapse_whitespace

from ._inputs import expectations, field_text

SEMANTIC_UNAVAILABLE = (
    "not available: install evalcore-judge (the 'semantic' diff level is LLM-judged "
    "equivalence, provided by the judge plugin)"
)


def python_ast(code: str) -> str:
    """A canonical dump of the Python AST of ``code`` (no positions, comments or formatting)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        return ast.dump(ast.parse(code))


# msats per comparison, as the dsrs document gives them
LEVEL_COST = {"exact": 0, "normalized_whitespace": 0, "ast": 10, "semantic": 50}


class DiffCheck(SampleMetric):
    """1.0 when the output equals an expected text at the chosen level, else 0.0; the cost is the level's."""

    def estimate(self, example: Record, prediction: Record) -> dict[str, int]:
        """What one comparison costs at this level (for budgets)."""
        return {"cost_msats": LEVEL_COST[self.params["level"]]}

    def score(self, example: Record, prediction: Record) -> Score:
        score = self._compare(example, prediction)
        return attrs.evolve(score, cost_msats=LEVEL_COST[self.params["level"]], confidence=1.0)

    def _compare(self, example: Record, prediction: Record) -> Score:
        level = self.params["level"]
        if level == "semantic":
            raise SkipSample(SEMANTIC_UNAVAILABLE)
        actual = field_text(prediction, self.params["field"])
        expected = expectations(example, self.params["expected"], self.params["expected_field"])
        for index, item in enumerate(expected):
            if not isinstance(item, str):
                raise InputError(f"expected text, got {type(item).__name__}", field=f"expected[{index}]")
        if level == "ast":
            return self._ast_score(actual, expected)
        if level == "normalized_whitespace":
            actual, expected = collapse_whitespace(actual), [collapse_whitespace(e) for e in expected]
        matched = actual in expected
        return Score(float(matched), feedback="matches" if matched else "differs from the expected text",
                     details={"level": level})

    def _ast_score(self, actual: str, expected: list[str]) -> Score:
        references = []
        for index, item in enumerate(expected):
            try:
                references.append(python_ast(item))
            except (SyntaxError, ValueError) as exc:
                raise InputError(f"expected code does not parse as Python: {exc}",
                                 field=f"expected[{index}]") from None
        try:
            tree = python_ast(actual)
        except (SyntaxError, ValueError) as exc:
            return Score(0.0, feedback=f"output does not parse as Python: {exc}", details={"level": "ast"})
        matched = tree in references
        feedback = "AST-equivalent" if matched else "the Python ASTs differ"
        return Score(float(matched), feedback=feedback, details={"level": "ast"})
