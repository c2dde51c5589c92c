"""The errors of a call to a model backend: :class:`BackendError` and the kinds that say what went wrong."""

from __future__ import annotations

from evalcore.plugin import EvalcoreError


class BackendError(EvalcoreError):
    """A call to a model backend failed; ``retryable`` says whether trying again may help. The
    message names the URL called."""

    retryable = False

    def __init__(
        self, message: str, *, status: int | None = None, body: str | None = None,
        retry_after: float | None = None,
    ) -> None:
        self.status = status
        self.body = body
        self.retry_after = retry_after
        super().__init__(message)


class BackendUnreachable(BackendError):
    """No connection could be made (wrong URL, server down)."""

    retryable = True


class BackendTimeout(BackendError):
    """The call took longer than the per-call timeout."""

    retryable = True


class RateLimited(BackendError):
    """HTTP 429."""

    retryable = True


class ServerError(BackendError):
    """HTTP 5xx."""

    retryable = True


class AuthenticationError(BackendError):
    """HTTP 401 or 403: a missing or wrong API key."""


class RequestRejected(BackendError):
    """Another 4xx answer (unknown model, prompt too long, bad parameters)."""


class MalformedResponse(BackendError):
    """The answer is not the JSON an OpenAI-compatible API returns; ``body`` keeps it."""
