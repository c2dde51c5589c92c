"""The OpenAI-compatible model client (chat completions and embeddings) judge and embedding
metrics call, its usage and prices, and its errors (``evalcore-core[http]``)."""

from evalcore._contract.http import (
    AuthenticationError,
    BackendError,
    BackendTimeout,
    BackendUnreachable,
    ChatResult,
    EmbeddingResult,
    MalformedResponse,
    OpenAIClient,
    Price,
    PriceTable,
    RateLimited,
    RequestRejected,
    ServerError,
    Usage,
    estimate_tokens,
    parse_retry_after,
)

__all__ = [
    "AuthenticationError", "BackendError", "BackendTimeout", "BackendUnreachable", "ChatResult", "EmbeddingResult",
    "MalformedResponse", "OpenAIClient", "Price", "PriceTable", "RateLimited", "RequestRejected", "ServerError",
    "Usage", "estimate_tokens", "parse_retry_after",
]
