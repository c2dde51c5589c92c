"""The client's HTTP/1.1 transport against a loopback server written byte by byte: the framings an
OpenAI-compatible server may answer in, and kept-alive connections the server closes."""

from __future__ import annotations

import asyncio
import gzip
import json

import pytest
from evalcore.http import BackendUnreachable, MalformedResponse, OpenAIClient

ANSWER = json.dumps({"choices": [{"message": {"content": "0.5"}, "finish_reason": "stop"}],
                     "usage": {"prompt_tokens": 3, "completion_tokens": 1}}).encode()


def framed(body: bytes, *headers: str) -> bytes:
    return ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" + "".join(f"{h}\r\n" for h in headers)
            + "\r\n").encode() + body


def chunked(body: bytes, size: int = 7) -> bytes:
    parts = [body[i:i + size] for i in range(0, len(body), size)]
    return b"".join(b"%x;ext=1\r\n%s\r\n" % (len(p), p) for p in parts) + b"0\r\nX-Trailer: 1\r\n\r\n"


async def serve(answers: list[tuple[bytes, bool]], seen: list[tuple[int, dict]]):
    """A server answering each request with the next ``(bytes, close_after)``; ``seen`` gets
    ``(connection number, request JSON)`` for each request."""
    connections = 0

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        number = connections
        try:
            while answers:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                              if line.lower().startswith(b"content-length"))
                seen.append((number, json.loads(await reader.readexactly(length))))
                data, close = answers.pop(0)
                writer.write(data)
                await writer.drain()
                if close:
                    break
        except asyncio.IncompleteReadError:
            pass
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1"


def chat_twice(answers: list[tuple[bytes, bool]], pause: float = 0.0, **options):
    """Two chat calls one after the other on one client; the texts and the requests seen."""
    seen: list[tuple[int, dict]] = []

    async def run():
        server, url = await serve(answers, seen)
        async with server:
            client = OpenAIClient(url, "m", backoff_base=0.01, **options)
            first = await client.achat([{"role": "user", "content": "one"}])
            await asyncio.sleep(pause)
            second = await client.achat([{"role": "user", "content": "two"}])
            return [first.text, second.text], client.calls

    texts, calls = asyncio.run(run())
    return texts, calls, seen


def test_content_length_chunked_gzip_and_read_to_close_bodies():
    texts, _, seen = chat_twice([(framed(chunked(gzip.compress(ANSWER)), "Transfer-Encoding: chunked",
                                         "Content-Encoding: gzip"), False),
                                 (framed(ANSWER, "Connection: close"), True)])
    assert texts == ["0.5", "0.5"] and [n for n, _ in seen] == [1, 1]  # the chunked answer kept the connection
    assert seen[0][1]["messages"] == [{"role": "user", "content": "one"}]


@pytest.mark.parametrize("pause", [0.0, 0.05])
def test_a_kept_alive_connection_the_server_closed_is_replaced_without_a_retry(pause):
    # the server closes the connection after the first answer without saying so: the second
    # request (sent before or after the client saw it closed) goes out on a new connection, one
    # attempt as far as the client counts
    texts, calls, seen = chat_twice([(framed(ANSWER, f"Content-Length: {len(ANSWER)}"), True),
                                     (framed(ANSWER, f"Content-Length: {len(ANSWER)}"), False)], pause=pause)
    assert texts == ["0.5", "0.5"] and calls == 2
    assert [n for n, _ in seen] == [1, 2]


def test_an_answer_broken_off_is_a_connection_failure_retried():
    broken = b"HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n{\"choices\""
    texts, calls, seen = chat_twice([(framed(ANSWER, f"Content-Length: {len(ANSWER)}"), False), (broken, True),
                                     (framed(ANSWER, f"Content-Length: {len(ANSWER)}"), False)])
    assert texts == ["0.5", "0.5"] and calls == 3 and len(seen) == 3


def test_a_body_over_the_limit_is_refused_whatever_its_framing():
    body = json.dumps({"choices": [{"message": {"content": "x" * 3000}}]}).encode()
    for answer in (framed(chunked(body, 1000), "Transfer-Encoding: chunked"),
                   framed(gzip.compress(body), f"Content-Length: {len(gzip.compress(body))}",
                          "Content-Encoding: gzip"),
                   framed(body, "Connection: close")):
        with pytest.raises(MalformedResponse, match="more than 1000"):
            chat_twice([(answer, True)], max_response_bytes=1000)


def test_not_http_is_reported_as_a_failed_connection():
    with pytest.raises(BackendUnreachable, match="connection to .* failed.*after 2 attempts"):
        chat_twice([(b"SSH-2.0-OpenSSH\r\n\r\n", True)] * 2, max_retries=1)
