# The public names of ``evalcore.text``, each re-exported from the module that defines it;
# ``evalcore.text`` reads this stub at import and imports each name on first use.

from evalcore_text.normalize import collapse_whitespace as collapse_whitespace
from evalcore_text.normalize import jaccard as jaccard
from evalcore_text.normalize import ngram_counts as ngram_counts
from evalcore_text.normalize import ngrams as ngrams
from evalcore_text.normalize import normalize_text as normalize_text
from evalcore_text.normalize import overlap_count as overlap_count
from evalcore_text.normalize import whitespace_tokens as whitespace_tokens
