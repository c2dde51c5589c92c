# The public names of ``evalcore.cache``, each re-exported from the module that defines it;
# ``evalcore.cache`` reads this stub at import and imports each name on first use. The cache is
# evalcore-http's (``pip install evalcore-http``); its modes are the core's run settings.

from evalcore_http.cache import MODES as MODES
from evalcore_http.cache import CacheStats as CacheStats
from evalcore_http.cache import ContentCache as ContentCache
from evalcore_http.cache import cache_key as cache_key
from evalcore_http.cache import canonical_json as canonical_json
from evalcore_http.cache import content_hash as content_hash
from evalcore_http.cache import run_cache as run_cache

from evalcore._contract.cache_settings import CacheMode as CacheMode
