"""The content-addressed cache of model calls that judge and embedding metrics share.

Metrics get theirs from the run (:meth:`evalcore.plugin.RunContext.cache`); this module
names the pieces for code that builds or inspects a cache directly.
"""

from evalcore._contract.cache import MODES, CacheMode, CacheStats, ContentCache, cache_key, canonical_json, content_hash

__all__ = ["MODES", "CacheMode", "CacheStats", "ContentCache", "cache_key", "canonical_json", "content_hash"]
