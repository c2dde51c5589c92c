"""``negative_rejection``: does the system refuse unanswerable queries?"""

from __future__ import annotations

from evalcore.plugin import InputError, Record, SampleMetric, Score, SkipSample, response_text


def normalize(text: str) -> str:
    """Lower-case, strip, and write typographic apostrophes as ASCII ones."""
    return text.replace("\u2019", "'").replace("\u2018", "'").lower().strip()


class NegativeRejection(SampleMetric):
    """1.0 when an unanswerable sample's response contains a refusal pattern, else 0.0."""

    def setup(self) -> None:
        self.patterns = tuple(normalize(p) for p in self.params["refusal_patterns"])

    def score(self, example: Record, prediction: Record) -> Score:
        labels = example.get("labels") or {}
        if not isinstance(labels, dict):
            raise InputError(f"expected an object, got {type(labels).__name__}", field="example.labels")
        if labels.get("scenario") != self.params["scenario"]:
            raise SkipSample(f"labels.scenario is not {self.params['scenario']!r}")
        text = normalize(response_text(prediction))
        matched = next((p for p in self.patterns if p in text), None)
        return Score(float(matched is not None), details={"matched_pattern": matched},
                     feedback=None if matched else "answered an unanswerable query (no refusal pattern)")
