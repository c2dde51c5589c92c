"""``checks/keyword`` (dsrs) and ``checks/keyword_coverage`` (the benchmark engine's registry)."""

from __future__ import annotations

import re

from evalcore.plugin import Record, SampleMetric, Score, SkipSample

from ._inputs import field_text, list_setting


def contains(text: str, keyword: str, *, ignore_case: bool, whole_word: bool) -> bool:
    """Whether ``keyword`` occurs in ``text`` (as a substring, or as a whole word)."""
    if ignore_case:
        text, keyword = text.casefold(), keyword.casefold()
    if whole_word:
        return re.search(rf"(?<!\w){re.escape(keyword)}(?!\w)", text) is not None
    return keyword in text


class _KeywordBase(SampleMetric):
    def found(self, text: str, keyword: str) -> bool:
        return contains(
            text, keyword, ignore_case=self.params["ignore_case"],
            whole_word=self.params["whole_word"],
        )


class KeywordCheck(_KeywordBase):
    """Fraction of required keywords present; 0.0 when any forbidden keyword is present."""

    def score(self, example: Record, prediction: Record) -> Score:
        required = list_setting(self.params, "required", example, "required_keywords")
        forbidden = list_setting(self.params, "forbidden", example, "forbidden_keywords")
        if not required and not forbidden:
            raise SkipSample("no required or forbidden keywords (parameters or example fields)")
        text = field_text(prediction, self.params["field"])
        hits = [k for k in forbidden if self.found(text, k)]
        missing = [k for k in required if not self.found(text, k)]
        details = {"missing": missing, "forbidden_found": hits,
                   "required": len(required), "forbidden": len(forbidden)}
        if hits:
            return Score(0.0, feedback=f"contains forbidden keyword(s): {', '.join(hits)}", details=details)
        value = (len(required) - len(missing)) / len(required) if required else 1.0
        feedback = f"missing keyword(s): {', '.join(missing)}" if missing else "all keyword checks pass"
        return Score(value, feedback=feedback, details=details)


class KeywordCoverage(_KeywordBase):
    """``keyword_hits / keyword_total`` over the keyword list (duplicates once with unique_match)."""

    def score(self, example: Record, prediction: Record) -> Score:
        keywords = list_setting(self.params, "keywords", example, "keywords")
        if self.params["unique_match"]:
            fold = str.casefold if self.params["ignore_case"] else str
            keywords = list({fold(k): k for k in reversed(keywords)}.values())[::-1]
        if not keywords:
            raise SkipSample("no keywords (parameter 'keywords' or example.keywords)")
        text = field_text(prediction, self.params["field"])
        hits = [k for k in keywords if self.found(text, k)]
        coverage = len(hits) / len(keywords)
        details = {"keyword_hits": len(hits), "keyword_total": len(keywords), "coverage": coverage,
                   "missing": [k for k in keywords if k not in hits]}
        return Score(coverage, feedback=f"{len(hits)} of {len(keywords)} keywords found", details=details)
