"""``evalcore.text``, ``evalcore.vectors`` and ``evalcore.plugin.inputs`` name this distribution's
modules; without it they say what to install, and a run of metrics that do not read texts through
them still works."""

from __future__ import annotations

import evalcore.plugin
import evalcore.text
import evalcore.vectors
import evalcore_text
import evalcore_text.inputs
import evalcore_text.vectors
from evalcore.testing import run_without


def test_the_public_paths_are_this_distributions_objects():
    assert evalcore.text.normalize_text is evalcore_text.normalize_text
    assert evalcore.text.normalize_text.__module__ == "evalcore_text.normalize"  # where it is defined
    assert evalcore.plugin.inputs is evalcore_text.inputs
    assert evalcore.vectors.intra_list_diversity is evalcore_text.vectors.intra_list_diversity
    assert sorted(evalcore.text.__all__) == sorted(evalcore_text.__all__)
    # DSPy's normalisation: case, punctuation and the articles go, whitespace collapses
    assert evalcore.text.normalize_text("The  Cat, sat!") == "cat sat"
    assert evalcore.plugin.inputs.targets({"reference_answer": ["a", "b"]}) == ["a", "b"]


def test_without_the_distribution_a_public_name_says_what_to_install():
    proc = run_without("evalcore_text", """
        import evalcore, evalcore.plugin, evalcore.text, evalcore.vectors
        for use in (lambda: evalcore.text.normalize_text, lambda: evalcore.plugin.inputs,
                    lambda: evalcore.vectors.as_matrix):
            try:
                use()
            except ModuleNotFoundError as exc:
                print(exc)
        records = [{"id": "a", "example": {"v": 1}, "prediction": {"v": 1}}]
        result = evalcore.evaluate(records, [lambda gold, pred, trace=None: float(gold.v == pred.v)])
        print([m.value for m in result.metrics.values()])
    """)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        f"evalcore.{name} is part of evalcore-text, which is not installed: pip install evalcore-text"
        for name in ("text.normalize_text", "plugin.inputs", "vectors.as_matrix")] + ["[1.0]"]
