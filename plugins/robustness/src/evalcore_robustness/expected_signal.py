"""``robustness`` (the benchmark engine's registry): how much of an expected signal survives in the output."""

from __future__ import annotations

from evalcore.plugin import InputError, Record, SampleMetric, Score, SkipSample, response_text
from evalcore_text import normalize_text


class ExpectedSignal(SampleMetric):
    """``normalized_overlap``: share of the signal's tokens in the output; ``exact_casefold``: equality."""

    def score(self, example: Record, prediction: Record) -> Score:
        signal = self.params["expected_signal"] or example.get("expected_signal")
        if signal is None:
            raise SkipSample("no expected_signal (parameter or example.expected_signal)")
        if not isinstance(signal, str):
            raise InputError(f"expected a string, got {type(signal).__name__}", field="example.expected_signal")
        output = response_text(prediction)
        if self.params["mode"] == "exact_casefold":
            same = output.strip().casefold() == signal.strip().casefold()
            return Score(float(same), details={"mode": "exact_casefold"})
        wanted = set(normalize_text(signal).split())
        if not wanted:
            raise SkipSample("expected_signal has no tokens after normalisation")
        found = wanted & set(normalize_text(output).split())
        return Score(len(found) / len(wanted), details={
            "mode": "normalized_overlap", "signal_tokens": len(wanted), "found": len(found),
            "missing": sorted(wanted - found)[:20],
        })
