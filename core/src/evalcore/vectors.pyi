# The public names of ``evalcore.vectors``, each re-exported from the module that defines it;
# ``evalcore.vectors`` reads this stub at import and imports each name on first use.

from evalcore_text.vectors import as_matrix as as_matrix
from evalcore_text.vectors import cosine_similarity as cosine_similarity
from evalcore_text.vectors import intra_list_diversity as intra_list_diversity
from evalcore_text.vectors import mean_pairwise_cosine as mean_pairwise_cosine
