"""The OpenAI-compatible model client (chat completions and embeddings) judge and embedding
metrics call, its usage and prices, and its errors (evalcore-http's)."""

from evalcore._lazy import attach_stub

# Each public name is listed once, in the stub ``http.pyi``, with the module that defines it.
__getattr__, __dir__, __all__ = attach_stub(globals())
