"""What makes the workbench safe to open: a token where it listens beyond this machine, writes only
from its own page, and a Content-Security-Policy that lets the page run nothing but its own script.

* The token (when set) comes as ``?token=`` once, then as an HTTP-only ``SameSite=Strict`` cookie;
  a request without it is refused.
* Without a token (listening on 127.0.0.1 only), a request must name this machine as its host, so
  a page of another site cannot reach the server through a name it points at 127.0.0.1.
* A request that writes (anything but GET and HEAD) must come from the server's own origin (its
  ``Origin`` header names the host it was sent to) and carry JSON, which a cross-site form cannot.
* Every answer says: run only this server's scripts and styles, load nothing from elsewhere, never
  inside a frame, send no referrer (the token never leaves in one).
"""

from __future__ import annotations

import hmac
from http.cookies import SimpleCookie
from urllib.parse import parse_qs

from starlette.types import ASGIApp, Message, Receive, Scope, Send

COOKIE = "evalcore_ui_token"
POLICY = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
          "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
_HEADERS = [(b"content-security-policy", POLICY.encode()), (b"x-content-type-options", b"nosniff"),
            (b"referrer-policy", b"no-referrer"), (b"x-frame-options", b"DENY")]
_SAFE = {"GET", "HEAD"}
_LOOPBACK = {"127.0.0.1", "localhost", "[::1]"}


class Guard:
    """ASGI middleware: the token, the same-origin check on writes, and the security headers."""

    def __init__(self, app: ASGIApp, token: str | None = None) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        given = _query_token(scope) if self.token else None
        refusal = self._refusal(scope, headers, given)
        set_cookie = self.token is not None and given is not None and refusal is None

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *_HEADERS]
                if set_cookie:
                    message["headers"].append((b"set-cookie", f"{COOKIE}={self.token}; HttpOnly; SameSite=Strict; "
                                                              "Path=/".encode()))
            await send(message)

        if refusal is not None:
            status, text = refusal
            await send_with_headers({"type": "http.response.start", "status": status,
                                     "headers": [(b"content-type", b"text/plain; charset=utf-8")]})
            await send({"type": "http.response.body", "body": text.encode()})
            return
        await self.app(scope, receive, send_with_headers)

    def _refusal(self, scope: Scope, headers: dict[str, str], given: str | None) -> tuple[int, str] | None:
        if self.token is None and _hostname(headers.get("host", "")) not in _LOOPBACK:
            return 403, "refused: this server answers only requests for 127.0.0.1 or localhost"
        if self.token is not None:
            cookie = SimpleCookie(headers.get("cookie", ""))
            offered = given or (cookie[COOKIE].value if COOKIE in cookie else "")
            if not hmac.compare_digest(offered.encode(), self.token.encode()):
                return 401, "open the address evalcore ui printed: it holds the token this server needs"
        if scope["method"] not in _SAFE:
            origin = headers.get("origin")
            if origin is None or origin != f"{scope.get('scheme', 'http')}://{headers.get('host', '')}":
                return 403, "refused: a write must come from this server's own page (Origin differs)"
            if headers.get("content-type", "").split(";")[0].strip() != "application/json":
                return 415, "refused: a write must send JSON"
        return None


def _query_token(scope: Scope) -> str | None:
    found = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token")
    return found[0] if found else None


def _hostname(host: str) -> str:
    """The name in a Host header, without its port (``[::1]`` kept in brackets)."""
    return host[:host.find("]") + 1] if host.startswith("[") else host.split(":")[0]
