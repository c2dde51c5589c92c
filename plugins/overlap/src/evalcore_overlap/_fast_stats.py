"""sacrebleu's BLEU and chrF with their segment statistics counted in fewer Python steps.

:class:`FastBLEU` and :class:`FastCHRF` subclass sacrebleu's ``BLEU`` and ``CHRF`` and override only
how a segment is tokenised (13a) and how its n-grams are counted and matched: the n-grams are built
by ``zip``/``map`` and counted by ``Counter`` in C, per order, and matches are summed over
C iterators. The statistics are exactly sacrebleu's; scores, smoothing and signatures are
sacrebleu's own code. Every other tokenizer is sacrebleu's own object.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from operator import add
from typing import Any

from sacrebleu.metrics import BLEU, CHRF
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

_SPACED = re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])")
"""sacrebleu's first 13a pattern (``tokenizer_re.TokenizerRegexp``): one character of a class,
which it puts between spaces."""

_SPACE_TABLE = str.maketrans({chr(c): f" {chr(c)} " for c in range(128) if _SPACED.fullmatch(chr(c))})
"""That pattern as a ``str.translate`` table (the class holds ASCII characters only)."""

_PUNCT_AFTER_NON_DIGIT = re.compile(r"([^0-9])([\.,])")
_PUNCT_BEFORE_NON_DIGIT = re.compile(r"([\.,])([^0-9])")
_DASH_AFTER_DIGIT = re.compile(r"([0-9])(-)")


def _pad_after(match: re.Match[str]) -> str:
    return f"{match[1]} {match[2]} "  # sacrebleu's template r'\1 \2 '


def _pad_before(match: re.Match[str]) -> str:
    return f" {match[1]} {match[2]}"  # sacrebleu's template r' \1 \2'


def tokenize_13a(line: str) -> str:
    """sacrebleu's ``Tokenizer13a`` (mteval-v13a): the same replacements, the first pattern done by
    ``str.translate`` and the others by a function instead of a template (the same matches)."""
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in line:
        line = line.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    line = f" {line} ".translate(_SPACE_TABLE)
    if "." in line or "," in line:
        line = _PUNCT_AFTER_NON_DIGIT.sub(_pad_after, line)
        line = _PUNCT_BEFORE_NON_DIGIT.sub(_pad_before, line)
    if "-" in line:
        line = _DASH_AFTER_DIGIT.sub(_pad_after, line)
    return " ".join(line.split())


def _ngram_counts(tokens: list[str], max_order: int) -> list[Counter[Any]]:
    """Counts of the 1..``max_order``-grams of ``tokens``, one ``Counter`` per order (unigrams keyed
    by the token, longer n-grams by their tuple)."""
    counts = [Counter(tokens)]
    for n in range(2, max_order + 1):
        counts.append(Counter(zip(*(tokens[i:] for i in range(n)))))
    return counts[:max_order]


def _matches(hyp: Counter[Any], ref: Counter[Any], hyp_total: int, ref_total: int) -> int:
    """The clipped matches: each hypothesis n-gram's count, at most the reference's (``*_total``:
    the sum of each side's counts; where one side counts every n-gram once, the matches are the
    n-grams the two share)."""
    common = hyp.keys() & ref.keys()
    if len(hyp) == hyp_total or len(ref) == ref_total:
        return len(common)
    return sum(map(min, map(hyp.__getitem__, common), map(ref.__getitem__, common)))


def _merge_max(into: Counter[Any], other: Counter[Any]) -> None:
    """``into`` takes, per n-gram, the larger count of the two (sacrebleu's merge of references)."""
    get = into.get
    for ngram, count in other.items():
        if count > get(ngram, 0):
            into[ngram] = count


class FastBLEU(BLEU):
    """``sacrebleu.metrics.BLEU`` with a faster 13a tokenizer and per-order n-gram counting."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        tokenizer = self.tokenizer
        # segments of a corpus rarely repeat, so no cache (a module function also keeps it picklable)
        self._tokenize: Callable[[str], str] = tokenize_13a if type(tokenizer) is Tokenizer13a else tokenizer

    def _preprocess_segment(self, sent: str) -> str:
        """As sacrebleu: optionally lowercased, right-stripped, tokenised."""
        if self.lowercase:
            sent = sent.lower()
        return self._tokenize(sent.rstrip())

    def _extract_reference_info(self, refs: Any) -> dict[str, Any]:
        """Per order, the most times each n-gram occurs in one reference; and the references' lengths."""
        ngrams: list[Counter[Any]] | None = None
        ref_lens = []
        for ref in refs:
            tokens = ref.split()
            ref_lens.append(len(tokens))
            counts = _ngram_counts(tokens, self.max_ngram_order)
            if ngrams is None:
                ngrams = counts
            else:
                for merged, these in zip(ngrams, counts):
                    _merge_max(merged, these)
        totals = [sum(counts.values()) for counts in ngrams] if ngrams is not None else []
        return {"ref_ngrams": ngrams, "ref_lens": ref_lens, "ref_totals": totals}

    def _compute_segment_statistics(self, hypothesis: str, ref_kwargs: dict[str, Any]) -> list[int]:
        """``[hyp_len, ref_len, *correct, *total]`` as sacrebleu's method."""
        tokens = hypothesis.split()
        hyp_len = len(tokens)
        order = self.max_ngram_order
        total = [max(hyp_len - n, 0) for n in range(order)]
        correct = list(map(_matches, _ngram_counts(tokens, order), ref_kwargs["ref_ngrams"], total,
                           ref_kwargs["ref_totals"]))
        return [hyp_len, self._get_closest_ref_len(hyp_len, ref_kwargs["ref_lens"]), *correct, *total]


def _char_ngrams(line: str, order: int) -> list[Counter[str]]:
    """Counts of the 1..``order`` character n-grams of ``line``, one ``Counter`` per order."""
    counts = [Counter(line)]
    grams: Any = line
    for n in range(2, order + 1):
        grams = list(map(add, grams, line[n - 1:]))  # each (n-1)-gram and the next character
        counts.append(Counter(grams))
    return counts


def _word_ngrams(words: list[str], order: int) -> list[Counter[str]]:
    """Counts of the 1..``order`` word n-grams, keyed as sacrebleu's ``extract_word_ngrams``."""
    counts = [Counter(words)]
    for n in range(2, order + 1):
        counts.append(Counter(map(" ".join, zip(*(words[i:] for i in range(n))))))
    return counts


class FastCHRF(CHRF):
    """``sacrebleu.metrics.CHRF`` with per-order n-grams counted and matched in C."""

    def _ngrams(self, segment: str) -> tuple[list[Counter[str]], list[int]]:
        """Character n-grams, then word n-grams (chrF++), per order; and how many of each order."""
        line = segment if self.whitespace else "".join(segment.split())
        counts = _char_ngrams(line, self.char_order)[:self.char_order]
        totals = [max(len(line) - n, 0) for n in range(self.char_order)]
        if self.word_order > 0:
            words = self._remove_punctuation(segment)
            counts.extend(_word_ngrams(words, self.word_order))
            totals.extend(max(len(words) - n, 0) for n in range(self.word_order))
        return counts, totals

    def _extract_reference_info(self, refs: Any) -> dict[str, Any]:
        """Per reference, its n-gram counts per order and their totals."""
        ngrams, totals = zip(*map(self._ngrams, refs)) if refs else ((), ())
        return {"ref_ngrams": list(ngrams), "ref_totals": list(totals)}

    def _compute_segment_statistics(self, hypothesis: str, ref_kwargs: dict[str, Any]) -> list[int]:
        """``[hyp, ref, match]`` per order for the reference of best F-score, as sacrebleu's method."""
        hyp_ngrams, hyp_totals = self._ngrams(hypothesis)
        best_stats: list[int] = []
        best_f_score = -1.0
        candidates = list(zip(ref_kwargs["ref_ngrams"], ref_kwargs["ref_totals"]))
        for ref_ngrams, ref_totals in candidates:
            stats = []
            for hyp, ref, hyp_total, ref_total in zip(hyp_ngrams, ref_ngrams, hyp_totals, ref_totals):
                stats += (hyp_total if ref else 0, ref_total, _matches(hyp, ref, hyp_total, ref_total))
            if len(candidates) == 1:
                return stats  # sacrebleu's F-score is never below -1: the one reference is the best
            f_score = self._compute_f_score(stats)
            if f_score > best_f_score:
                best_f_score, best_stats = f_score, stats
        return best_stats
