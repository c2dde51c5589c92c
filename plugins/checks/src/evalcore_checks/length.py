"""``checks/length``: character count within bounds, partial credit just outside (dsrs)."""

from __future__ import annotations

from evalcore.plugin import Record, SampleMetric, Score

from ._inputs import field_text


def length_score(length: int, min_chars: int | None, max_chars: int | None, tolerance: float) -> float:
    """1.0 within ``[min_chars, max_chars]``; outside, falls linearly to 0 over ``tolerance × bound``.

    With ``tolerance == 0`` the check is pass/fail.
    """
    if min_chars is not None and length < min_chars:
        return _decay(min_chars - length, tolerance * min_chars)
    if max_chars is not None and length > max_chars:
        return _decay(length - max_chars, tolerance * max_chars)
    return 1.0


def _decay(distance: int, band: float) -> float:
    return max(0.0, 1.0 - distance / band) if band > 0 else 0.0


class LengthCheck(SampleMetric):
    """Scores the length of the text at ``field`` against ``min_chars``/``max_chars``."""

    def setup(self) -> None:
        low, high = self.params["min_chars"], self.params["max_chars"]
        if low is None and high is None:
            raise self.parameter_error("min_chars", "give min_chars, max_chars or both")
        if low is not None and high is not None and low > high:
            raise self.parameter_error("min_chars", f"min_chars ({low}) is greater than max_chars ({high})")

    def score(self, example: Record, prediction: Record) -> Score:
        text = field_text(prediction, self.params["field"])
        low, high = self.params["min_chars"], self.params["max_chars"]
        length = len(text)
        value = length_score(length, low, high, self.params["tolerance"])
        if low is not None and length < low:
            feedback = f"too short: {length} < {low} characters"
        elif high is not None and length > high:
            feedback = f"too long: {length} > {high} characters"
        else:
            feedback = f"{length} characters, within bounds"
        return Score(value, feedback=feedback, details={"length": length})
