"""evalcore-http: the OpenAI-compatible client, its prices and the content-addressed model-call cache
that judge and embedding metrics share (public paths ``evalcore.http`` and ``evalcore.cache``)."""
