"""QA-style answer matching: exact match, token F1, HotPotQA F1 and DSPy's answer matchers.

Every comparison normalises both sides with :func:`evalcore_text.normalize_text` (DSPy's
``normalize_text`` by default) and takes the best value over the reference answers;
:class:`StringExactMatch` instead applies HF evaluate's optional removals to the raw strings.
"""

from __future__ import annotations

import re
import string
from collections.abc import Sequence

from evalcore.plugin import ParameterError, Record, SampleMetric, Score, SkipSample, inputs
from evalcore_text import normalize_text

from ._dpr import contains_any, dpr_tokens
from ._normalize import normalizer

_HOTPOT_LABELS = frozenset({"yes", "no", "noanswer"})


def token_f1(prediction: str, reference: str, both_empty: float = 0.0) -> float:
    """Token F1 of two normalised strings; ``both_empty`` when neither has a token."""
    pred_tokens, ref_tokens = prediction.split(), reference.split()
    if not pred_tokens and not ref_tokens:
        return both_empty
    same = _common(pred_tokens, ref_tokens)
    if same == 0:
        return 0.0
    precision = 1.0 * same / len(pred_tokens)
    recall = 1.0 * same / len(ref_tokens)
    return (2 * precision * recall) / (precision + recall)


def _common(pred_tokens: list[str], ref_tokens: list[str]) -> int:
    """The size of the multiset intersection (``Counter(a) & Counter(b)``, summed): for short
    answers counting in a plain dict is several times faster than building two Counters."""
    if len(ref_tokens) == 1:
        return int(ref_tokens[0] in pred_tokens)
    left: dict[str, int] = {}
    for token in ref_tokens:
        left[token] = left.get(token, 0) + 1
    same = 0
    for token in pred_tokens:
        count = left.get(token)
        if count:
            left[token] = count - 1
            same += 1
    return same


def _one_reference(text: object, reference: object) -> bool:
    """Whether a pair is the common case: a text response and one non-blank reference answer."""
    return type(text) is str and type(reference) is str and bool(reference) and not reference.isspace()


def hotpot_f1(prediction: str, reference: str, both_empty: float = 0.0) -> float:
    """HotPotQA F1: 0 when either side is yes/no/noanswer and they differ, else :func:`token_f1`."""
    if (prediction in _HOTPOT_LABELS or reference in _HOTPOT_LABELS) and prediction != reference:
        return 0.0
    return token_f1(prediction, reference, both_empty)


class _AnswerMetric(SampleMetric):
    """Compares the normalised response with each normalised reference; keeps the best."""

    def setup(self) -> None:
        self._normalize = normalizer(
            lowercase=self.params.get("ignore_case", True),
            remove_punctuation=self.params.get("ignore_punctuation", True),
            remove_articles=self.params.get("ignore_articles", True),
        )

    def compare(self, prediction: str, reference: str) -> float:
        """The value of one normalised prediction/reference pair."""
        raise NotImplementedError

    def references(self, example: Record) -> list[str]:
        """The reference answers compared against."""
        return inputs.targets(example)

    def best(self, example: Record, prediction: Record) -> tuple[float, int]:
        """The best value over the references and the index of the reference that gave it."""
        pred = self._normalize(inputs.response(prediction, blank=self.params["empty_response"]))
        return self._best_of(pred, [self._normalize(ref) for ref in self.references(example)])

    def _best_of(self, pred: str, references: list[str]) -> tuple[float, int]:
        """The best value over the normalised ``references`` and the index of the one that gave it."""
        values = [self.compare(pred, ref) for ref in references]
        index = max(range(len(values)), key=values.__getitem__)
        return values[index], index

    def result(self, value: float, index: int) -> Score:
        """The score of the best value and the index of its reference."""
        return Score(value, details={"best_reference": index})

    def score(self, example: Record, prediction: Record) -> Score:
        return self.result(*self.best(example, prediction))

    def score_batch(self, examples: Sequence[Record], predictions: Sequence[Record]) -> list[Score]:
        """:meth:`score` of each pair: the distinct texts normalised together, once, and one
        :class:`Score` per distinct outcome (a value and its reference's index), shared."""
        plain = self.params["empty_response"] == "score"
        texts = [prediction.get("response") for prediction in predictions]
        given = [example.get("reference_answer") for example in examples]
        if plain and all(map(_one_reference, texts, given)):
            # the common batch, every pair a response and one reference: no step per pair in Python
            get = self._normalize.table([*texts, *given]).__getitem__
            values = list(map(self.compare, map(get, texts), map(get, given)))
            by_value = {value: self.result(value, 0) for value in set(values)}
            return list(map(by_value.__getitem__, values))
        pairs: list[tuple[str, str | list[str]] | Score] = []
        strings: list[str] = []
        for example, prediction in zip(examples, predictions):
            text, reference = prediction.get("response"), example.get("reference_answer")
            if plain and _one_reference(text, reference):
                pairs.append((text, reference))  # the common case: a response and one reference
                strings += text, reference
                continue
            pair = self._texts(example, prediction)
            pairs.append(pair)
            if type(pair) is not Score:
                strings.append(pair[0])
                strings.extend(pair[1])
        table = self._normalize.table(strings)
        compare, result = self.compare, self.result
        made: dict[tuple[float, int], Score] = {}
        out: list[Score] = []
        for pair in pairs:
            if type(pair) is Score:
                out.append(pair)
                continue
            text, reference = pair
            if type(reference) is str:
                key = (compare(table[text], table[reference]), 0)
            else:
                key = self._best_of(table[text], [table[ref] for ref in reference])
            score = made.get(key)
            if score is None:
                score = made[key] = result(*key)
            out.append(score)
        return out

    def _texts(self, example: Record, prediction: Record) -> tuple[str, list[str]] | Score:
        """The response and the references of a pair, or the pair's skip or error."""
        try:
            return inputs.response(prediction, blank=self.params["empty_response"]), self.references(example)
        except Exception as exc:  # noqa: BLE001 - this pair's skip or error, as a call of score gives it
            return Score.from_exception(exc)


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

    def result(self, value: float, index: int) -> Score:
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
