# The public names of ``evalcore.cache``, each re-exported from the module that defines it;
# ``evalcore.cache`` reads this stub at import and imports each name on first use.

from evalcore._contract.cache import MODES as MODES
from evalcore._contract.cache import CacheMode as CacheMode
from evalcore._contract.cache import CacheStats as CacheStats
from evalcore._contract.cache import ContentCache as ContentCache
from evalcore._contract.cache import cache_key as cache_key
from evalcore._contract.cache import canonical_json as canonical_json
from evalcore._contract.cache import content_hash as content_hash
