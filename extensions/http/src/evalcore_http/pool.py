"""Kept-alive connections to one server through aiohttp: the transport of
:class:`evalcore_http.client.OpenAIClient`.

The request is the JSON body as bytes and the answer the body as bytes: no request or response
objects are built on the way (the ``openai`` SDK spends about a millisecond of the client's CPU
per call doing so, on a fast server most of the time a call takes). aiohttp keeps the
connections alive, reads every framing (``Content-Length``, chunked, read-to-close) and
decompresses gzip/deflate; this module bounds the body size, uses the system's and certifi's
certificates, follows no redirects and uses no proxy, and turns aiohttp's errors into three kinds.
"""

from __future__ import annotations

import ssl
from collections.abc import Mapping
from typing import Any

import attrs


class _ConnectFailed(OSError):
    """No connection could be made to the server."""


class _ConnectionLost(OSError):
    """The server closed the connection or broke the HTTP exchange."""


class _BodyTooLarge(ValueError):
    """The answer's body (decompressed) is longer than the pool's ``max_body``."""

    def __init__(self, size: int, status: int) -> None:
        self.size = size
        self.status = status
        super().__init__(size)


@attrs.frozen
class HTTPResponse:
    """A status, the headers (a mapping whose names match in any case) and the body."""

    status: int
    headers: Mapping[str, str]
    content: bytes

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", errors="replace")


class HTTPPool:
    """POSTs to ``base_url`` + a path over connections kept alive between requests; ``headers`` go
    with every request. The caller bounds the number of requests in flight (and so of connections)
    and their time; the pool belongs to the event loop it is first used on."""

    def __init__(self, base_url: str, headers: Mapping[str, str], *, max_body: int = 10_000_000) -> None:
        self.base_url = base_url.rstrip("/")
        self.max_body = max_body
        self._headers = {"Content-Type": "application/json", "Accept": "application/json", **headers}
        self._session: Any = None  # an aiohttp.ClientSession, made on first use
        self._urls: dict[str, Any] = {}  # each path's yarl.URL, parsed once
        self._closed = False

    def _open(self, aiohttp: Any) -> Any:
        if self._session is None:
            connector = aiohttp.TCPConnector(limit=0, ssl=_ssl_context() if self.base_url.startswith("https") else None)
            self._session = aiohttp.ClientSession(headers=self._headers, connector=connector, trust_env=False,
                                                  timeout=aiohttp.ClientTimeout(total=None))
        return self._session

    async def post(self, path: str, body: bytes) -> HTTPResponse:
        """The answer to ``POST base_url + path`` with ``body``."""
        import aiohttp  # on first use: listing the plugins imports nothing heavy

        try:
            url = self._urls.get(path)
            if url is None:
                from yarl import URL  # aiohttp's URL type

                url = self._urls[path] = URL(self.base_url + path)
            async with self._open(aiohttp).post(url, data=body, allow_redirects=False) as response:
                status = response.status
                length = response.content_length
                if length is not None and length > self.max_body:
                    raise _BodyTooLarge(length, status)
                # a declared length that fits (and is not compressed) is read at once; else part by part
                if length is not None and "Content-Encoding" not in response.headers:
                    content = await response.read()
                else:
                    content = await self._bounded_body(response, status)
                return HTTPResponse(status, response.headers, content)
        except aiohttp.ClientConnectorError as exc:
            raise _ConnectFailed(str(exc.os_error) or type(exc).__name__) from None
        except (aiohttp.ClientError, OSError) as exc:
            raise _ConnectionLost(f"no complete HTTP answer ({type(exc).__name__}: {exc})") from None

    async def _bounded_body(self, response: Any, status: int) -> bytes:
        """The body, read as it comes, refused once it (decompressed) passes ``max_body``."""
        parts: list[bytes] = []
        size = 0
        async for part in response.content.iter_any():
            size += len(part)
            if size > self.max_body:
                raise _BodyTooLarge(size, status)
            parts.append(part)
        return b"".join(parts)

    def is_closed(self) -> bool:
        return self._closed

    async def close(self) -> None:
        """Close the connections (those in use close when their answer is read)."""
        self._closed = True
        if self._session is not None:
            await self._session.close()


def _ssl_context() -> ssl.SSLContext:
    """The system's trusted certificates, and certifi's where it is installed (as httpx uses)."""
    context = ssl.create_default_context()
    try:
        import certifi
    except ImportError:
        return context
    context.load_verify_locations(certifi.where())
    return context
