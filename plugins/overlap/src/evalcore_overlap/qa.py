"""QA-style answer matching: exact match, token F1, HotPotQA F1 and DSPy's answer matchers.

Every comparison normalises both sides with :func:`evalcore.text.normalize_text` (DSPy's
``normalize_text`` by default) and takes the best value over the reference answers;
:class:`StringExactMatch` instead applies HF evaluate's optional removals to the raw strings.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Callable
from functools import partial

from evalcore.plugin import ParameterError, Record, SampleMetric, Score, SkipSample, inputs
from evalcore.text import normalize_text

from ._dpr import contains_any, dpr_tokens

_HOTPOT_LABELS = frozenset({"yes", "no", "noanswer"})


def token_f1(prediction: str, reference: str, both_empty: float = 0.0) -> float:
    """Token F1 of two normalised strings; ``both_empty`` when neither has a token."""
    pred_tokens, ref_tokens = prediction.split(), reference.split()
    if not pred_tokens and not ref_tokens:
        return both_empty
    same = sum((Counter(pred_tokens) & Counter(ref_tokens)).values())
    if same == 0:
        return 0.0
    precision = 1.0 * same / len(pred_tokens)
    recall = 1.0 * same / len(ref_tokens)
    return (2 * precision * recall) / (precision + recall)


def hotpot_f1(prediction: str, reference: str, both_empty: float = 0.0) -> float:
    """HotPotQA F1: 0 when either side is yes/no/noanswer and they differ, else :func:`token_f1`."""
    if (prediction in _HOTPOT_LABELS or reference in _HOTPOT_LABELS) and prediction != reference:
        return 0.0
    return token_f1(prediction, reference, both_empty)


class _Memoised:
    """A function of one string that remembers up to ``size`` results: answers repeat across a
    dataset, so each distinct one is normalised once."""

    def __init__(self, function: Callable[[str], str], size: int = 1 << 16) -> None:
        self.function, self.size, self.seen = function, size, {}

    def __call__(self, text: str) -> str:
        found = self.seen.get(text)
        if found is None:
            if len(self.seen) >= self.size:
                self.seen.clear()
            found = self.seen[text] = self.function(text)
        return found


class _AnswerMetric(SampleMetric):
    """Compares the normalised response with each normalised reference; keeps the best."""

    def setup(self) -> None:
        self._normalize = _Memoised(partial(
            normalize_text,
            lowercase=self.params.get("ignore_case", True),
            remove_punctuation=self.params.get("ignore_punctuation", True),
            remove_articles=self.params.get("ignore_articles", True),
        ))

    def compare(self, prediction: str, reference: str) -> float:
        """The value of one normalised prediction/reference pair."""
        raise NotImplementedError

    def references(self, example: Record) -> list[str]:
        """The reference answers compared against."""
        return inputs.targets(example)

    def best(self, example: Record, prediction: Record) -> tuple[float, int]:
        """The best value over the references and the index of the reference that gave it."""
        pred = self._normalize(inputs.response(prediction, blank=self.params["empty_response"]))
        values = [self.compare(pred, self._normalize(ref)) for ref in self.references(example)]
        index = max(range(len(values)), key=values.__getitem__)
        return values[index], index

    def score(self, example: Record, prediction: Record) -> Score:
        value, index = self.best(example, prediction)
        return Score(value, details={"best_reference": index})


class ExactMatch(_AnswerMetric):
    """1 when the normalised response equals a normalised reference answer; blank references
    are skipped unless ``empty_reference='score'``."""

    def compare(self, prediction: str, reference: str) -> float:
        return float(prediction == reference)

    def references(self, example: Record) -> list[str]:
        references = inputs.targets(example)
        if self.params["empty_reference"] == "skip":
            references = [ref for ref in references if ref.strip()]
            if not references:
                raise SkipSample("example.reference_answer is empty")
        return references


class TokenF1(_AnswerMetric):
    """SQuAD/DSPy token-level F1 against the best reference answer."""

    def compare(self, prediction: str, reference: str) -> float:
        return token_f1(prediction, reference, self.params["both_empty"])


class HotpotF1(_AnswerMetric):
    """Token F1 with HotPotQA's yes/no/noanswer rule."""

    def compare(self, prediction: str, reference: str) -> float:
        return hotpot_f1(prediction, reference, self.params["both_empty"])


class AnswerExactMatch(_AnswerMetric):
    """DSPy's ``answer_exact_match``: exact match when ``frac >= 1``, else max F1 >= ``frac``."""

    def compare(self, prediction: str, reference: str) -> float:
        if self.params["frac"] >= 1.0:
            return float(prediction == reference)
        return token_f1(prediction, reference)

    def score(self, example: Record, prediction: Record) -> Score:
        value, index = self.best(example, prediction)
        frac = self.params["frac"]
        matched = value >= frac if frac < 1.0 else value == 1.0
        return Score(float(matched), details={"best_reference": index, "best_value": value})


class AnswerPassageMatch(SampleMetric):
    """DSPy's ``answer_passage_match``: some passage contains some reference answer."""

    def score(self, example: Record, prediction: Record) -> float:
        needles = [dpr_tokens(normalize_text(answer)) for answer in inputs.targets(example)]
        texts = inputs.passages(prediction, self.params["passage_source"])
        return float(any(contains_any(dpr_tokens(normalize_text(text)), needles) for text in texts))


_PUNCTUATION_TABLE = str.maketrans("", "", string.punctuation)
_DIGITS_TABLE = str.maketrans("", "", string.digits)


class StringExactMatch(SampleMetric):
    """HF evaluate's ``exact_match``: the raw strings compared after optional removals."""

    def setup(self) -> None:
        self._regexes = [_compile(pattern, self.id) for pattern in self.params["regexes_to_ignore"]]
        self._tables = [table for flag, table in (
            ("ignore_punctuation", _PUNCTUATION_TABLE), ("ignore_numbers", _DIGITS_TABLE),
        ) if self.params[flag]]

    def clean(self, text: str) -> str:
        """The text after the regexes, then lower-casing, punctuation and digit removal."""
        for regex in self._regexes:
            text = regex.sub("", text)
        if self.params["ignore_case"]:
            text = text.lower()
        for table in self._tables:
            text = text.translate(table)
        return text

    def score(self, example: Record, prediction: Record) -> Score:
        pred = self.clean(inputs.response(prediction, blank=self.params["empty_response"]))
        matches = [pred == self.clean(ref) for ref in inputs.targets(example)]
        best = next((index for index, match in enumerate(matches) if match), 0)
        return Score(float(matches[best]), details={"best_reference": best})


def _compile(pattern: object, metric: str) -> re.Pattern[str]:
    where = f"parameter 'regexes_to_ignore' of {metric}"
    if not isinstance(pattern, str):
        raise ParameterError(f"{where}: expected strings; got {pattern!r}")
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise ParameterError(f"{where}: {pattern!r} is not a regular expression ({exc})") from None
