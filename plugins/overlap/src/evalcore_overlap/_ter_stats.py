"""sacrebleu's TER with each sentence pair's edits counted by the compiled ``_ter`` extension
(:mod:`evalcore_overlap._compiled`), or by sacrebleu's ``lib_ter`` where it was not built. Both give
the same numbers; everything else (tokenisation, scores, signature) is sacrebleu's ``TER``."""

from __future__ import annotations

from typing import Any

from sacrebleu.metrics import TER
from sacrebleu.metrics.lib_ter import translation_edit_rate

from . import _compiled


class CompiledTER(TER):
    """``sacrebleu.metrics.TER`` whose segment statistics come from the compiled edit count."""

    def _compute_segment_statistics(self, hypothesis: str, ref_kwargs: dict[str, Any]) -> list[Any]:
        """The fewest edits over the references and their average length, as ``TER``'s own method."""
        edits = _compiled.ter.translation_edit_rate if _compiled.ter is not None else translation_edit_rate
        words_hyp = hypothesis.split()
        ref_words = ref_kwargs["ref_words"]
        best_num_edits, ref_lengths = int(1e16), 0
        for words_ref in ref_words:
            num_edits, ref_len = edits(words_hyp, words_ref)
            ref_lengths += ref_len
            best_num_edits = min(best_num_edits, num_edits)
        return [best_num_edits, ref_lengths / len(ref_words)]
