"""The OpenAI-compatible client over real HTTP against a scripted server on 127.0.0.1."""

from __future__ import annotations

import random
import time

import pytest
from evalcore.http import (
    AuthenticationError,
    BackendTimeout,
    BackendUnreachable,
    MalformedResponse,
    OpenAIClient,
    Price,
    PriceTable,
    RequestRejected,
    ServerError,
    Usage,
    parse_retry_after,
    run_client,
    run_prices,
)
from evalcore.plugin import RunContext, SettingsSpec
from evalcore.testing import Reply, ScriptedServer

CHAT_OK = {"choices": [{"message": {"content": "0.5"}, "finish_reason": "stop"}],
           "usage": {"prompt_tokens": 12, "completion_tokens": 2}, "model": "m"}


def Server(*replies):  # noqa: N802 - reads like the server it returns
    """A scripted server playing ``(status, body, headers, delay)`` replies, then HTTP 500."""
    server = ScriptedServer(default=lambda request: Reply(500, "x"))
    server.script(*(Reply(*reply) for reply in replies))
    return server


def ok(body=CHAT_OK, headers=None, delay=0.0):
    return (200, body, headers or {}, delay)


def client(url, **kw):
    kw.setdefault("backoff_base", 0.01)
    return OpenAIClient(url, "m", rng=random.Random(0), **kw)


def test_chat_sends_decoding_and_reads_usage(monkeypatch):
    monkeypatch.setenv("MY_KEY", "sekret")
    with Server(ok()) as server:  # the key is read from the environment as the run starts
        result = run_client(RunContext.from_environment(), server.base_url, "m", api_key_env="MY_KEY").chat(
            [{"role": "user", "content": "hi"}], temperature=0.0, seed=7, max_tokens=5)
    request = server.requests[0]
    path, payload, headers = request["path"], request["json"], request["headers"]
    assert path == "/v1/chat/completions"
    assert payload == {"model": "m", "messages": [{"role": "user", "content": "hi"}], "temperature": 0.0,
                       "seed": 7, "max_tokens": 5}
    assert headers["authorization"] == "Bearer sekret"
    assert result.text == "0.5" and result.finish_reason == "stop"
    assert result.usage == Usage(12, 2)


def test_429_honours_retry_after_then_succeeds():
    with Server((429, "slow down", {"Retry-After": "0.3"}, 0), ok()) as server:
        result = client(server.base_url).chat([{"role": "user", "content": "x"}])
    assert result.text == "0.5"
    assert len(server.requests) == 2
    assert server.requests[1]["at"] - server.requests[0]["at"] >= 0.29


@pytest.mark.parametrize("retry_after", ["3600", "Wed, 21 Oct 2099 07:28:00 GMT"])
def test_retry_after_past_the_time_limit_fails_at_once(retry_after):
    # a server asking for an hour (in seconds or as an HTTP date) cannot be waited for within
    # timeout = 0.5 s: the call ends now, saying so, instead of retrying before the server's time
    with Server((503, "busy", {"Retry-After": retry_after}, 0), ok()) as server:
        started = time.monotonic()
        with pytest.raises(ServerError, match=r"HTTP 503.*no time left to retry within the 0.5 s limit"):
            client(server.base_url, timeout=0.5).chat([{"role": "user", "content": "x"}])
        elapsed = time.monotonic() - started
    assert len(server.requests) == 1 and elapsed < 0.4


def test_retries_stay_within_the_time_limit():
    # 500s with a back-off longer than what is left: two attempts, then the call ends inside 1 s
    with Server(*[(500, "boom", {}, 0)] * 5) as server:
        started = time.monotonic()
        with pytest.raises(ServerError, match=r"after 2 attempts; no time left to retry within the 1 s limit"):
            client(server.base_url, timeout=1, backoff_base=0.8, max_retries=4).chat([{"role": "user", "content": "x"}])
    assert time.monotonic() - started < 1 and len(server.requests) == 2


def test_retry_after_is_capped_by_max_retry_after():
    with Server((429, "slow down", {"Retry-After": "3600"}, 0), ok()) as server:
        started = time.monotonic()
        client(server.base_url, timeout=30, max_retry_after=0.2).chat([{"role": "user", "content": "x"}])
    assert time.monotonic() - started < 5 and len(server.requests) == 2


def test_5xx_retried_with_backoff_until_exhausted():
    with Server(*[(500, "boom", {}, 0)] * 3) as server:
        c = client(server.base_url, max_retries=2)
        with pytest.raises(ServerError, match=r"HTTP 500.*after 3 attempts"):
            c.chat([{"role": "user", "content": "x"}])
    assert len(server.requests) == 3 and c.calls == 3


def test_timeout_is_retried_then_reported():
    with Server(ok(delay=1.0), ok(delay=1.0)) as server:
        # the first attempt has half the time, the retry the rest
        limit = r"did not answer within 0\.0\d+ s \(after 2 attempts within the 0\.2 s"
        with pytest.raises(BackendTimeout, match=limit):
            client(server.base_url, timeout=0.2, max_retries=1).chat([{"role": "user", "content": "x"}])
    assert len(server.requests) == 2


def test_malformed_json_is_not_retried_and_keeps_the_body():
    with Server((200, "{not json", {}, 0)) as server:
        with pytest.raises(MalformedResponse, match="invalid JSON") as info:
            client(server.base_url).chat([{"role": "user", "content": "x"}])
    assert info.value.body == "{not json" and len(server.requests) == 1


def test_missing_choices_is_malformed():
    with Server(ok({"id": "x"})) as server:
        with pytest.raises(MalformedResponse, match="choices"):
            client(server.base_url).chat([{"role": "user", "content": "x"}])


def test_missing_usage_is_estimated_and_marked():
    body = {"choices": [{"message": {"content": "a fairly long answer"}}]}
    with Server(ok(body)) as server:
        result = client(server.base_url).chat([{"role": "user", "content": "12345678"}])
    assert result.usage == Usage(2, 5, reported=False)


def test_wrong_key_names_the_variable(monkeypatch):
    monkeypatch.delenv("ABSENT_KEY", raising=False)
    with Server((401, '{"error": "invalid api key"}', {}, 0)) as server:
        with pytest.raises(AuthenticationError, match=r"ABSENT_KEY \(it is not set\)"):
            client(server.base_url, api_key_env="ABSENT_KEY").chat([{"role": "user", "content": "x"}])
    assert len(server.requests) == 1


def test_other_4xx_rejected_without_retry():
    with Server((400, '{"error": "context length exceeded"}', {}, 0)) as server:
        with pytest.raises(RequestRejected, match="context length"):
            client(server.base_url).chat([{"role": "user", "content": "x"}])
    assert len(server.requests) == 1


def test_response_format_is_sent_as_given_and_its_rejection_keeps_the_body():
    response_format = {"type": "json_schema", "json_schema": {"name": "verdict", "strict": True, "schema": {
        "type": "object", "properties": {"score": {"type": "number"}}, "required": ["score"],
        "additionalProperties": False}}}
    rejection = '{"error": {"message": "response_format json_schema is not supported", "param": "response_format"}}'
    with Server(ok(), (400, rejection, {}, 0)) as server:
        api = client(server.base_url)
        assert api.structured_outputs is None  # not known until a caller finds out
        api.chat([{"role": "user", "content": "x"}], response_format=response_format)
        with pytest.raises(RequestRejected) as info:
            api.chat([{"role": "user", "content": "x"}], response_format=response_format)
    assert server.requests[0]["json"]["response_format"] == response_format
    assert info.value.status == 400 and "response_format" in info.value.body
    assert len(server.requests) == 2  # a rejection is not retried


def test_unreachable_backend():
    with Server() as server:
        url = server.base_url
    with pytest.raises(BackendUnreachable, match="cannot connect"):
        client(url, max_retries=1).chat([{"role": "user", "content": "x"}])


def test_response_too_large():
    with Server(ok({"choices": [{"message": {"content": "x" * 5000}}]})) as server:
        with pytest.raises(MalformedResponse, match="more than 1000"):
            client(server.base_url, max_response_bytes=1000).chat([{"role": "user", "content": "x"}])


def test_embeddings_in_input_order():
    body = {"data": [{"index": 1, "embedding": [0, 1]}, {"index": 0, "embedding": [1, 0]}],
            "usage": {"prompt_tokens": 4}}
    with Server(ok(body)) as server:
        result = client(server.base_url).embed(["a", "b"])
    assert server.requests[0]["path"] == "/v1/embeddings" and server.requests[0]["json"]["input"] == ["a", "b"]
    assert result.vectors == [[1.0, 0.0], [0.0, 1.0]] and result.usage.prompt_tokens == 4


def test_concurrency_limit_holds():
    import asyncio

    with Server(*[ok(delay=0.2)] * 4) as server:
        c = client(server.base_url, max_concurrency=2)

        async def run():
            start = time.monotonic()
            await asyncio.gather(*(c.achat([{"role": "user", "content": str(i)}]) for i in range(4)))
            return time.monotonic() - start

        elapsed = asyncio.run(run())
    assert elapsed >= 0.4


def test_price_table_and_retry_after_parsing(monkeypatch):
    table = PriceTable({"gpt": (1000, 2000), "*": {"prompt": 10, "completion": 10}})
    assert table.cost_msats("gpt", Usage(1000, 500)) == 2000
    assert table.cost_msats("other", Usage(150, 0)) == 2
    assert PriceTable(default=None).cost_msats("x", Usage(10**6, 10**6)) == 0
    assert Price(1, 1).cost_msats(Usage(1, 0)) == 1  # rounded up
    monkeypatch.setenv("EVALCORE_PRICES", '{"local": [0, 0]}')
    assert run_prices(RunContext.from_environment()).cost_msats("local", Usage(10, 10)) == 0
    assert run_prices(RunContext.from_environment(), {"local": (1000, 0)}).cost_msats("local", Usage(10, 10)) == 10
    assert parse_retry_after("2") == 2.0
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470.0) == pytest.approx(10.0)
    assert parse_retry_after("soon") is None
    backoffs = [client("http://127.0.0.1:1/v1", backoff_base=1.0, backoff_max=8.0).backoff(a) for a in range(6)]
    assert all(cap / 2 <= b <= cap for b, cap in zip(backoffs, [1, 2, 4, 8, 8, 8]))


def test_one_openai_client_per_run_closed_with_its_event_loop(monkeypatch):
    import asyncio

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with Server(*[ok()] * 8) as server:
        c = client(server.base_url)

        async def run():
            await asyncio.gather(*(c.achat([{"role": "user", "content": str(i)}]) for i in range(4)))
            return c._state().api

        first, second = asyncio.run(run()), asyncio.run(run())
    assert first is not second and first.is_closed() and second.is_closed()
    assert len(server.requests) == 8
    assert all("authorization" not in r["headers"] for r in server.requests)  # no key: no header


def test_openai_environment_variables_read_where_the_run_starts(monkeypatch):
    with Server(ok()) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
        group = SettingsSpec(name="chat", variables={"base_url": ["CHAT_BASE_URL", "OPENAI_BASE_URL"]})
        context = RunContext.from_environment(groups=[group])
        result = run_client(context, context.settings["chat"]["base_url"], "m").chat([{"role": "user", "content": "x"}])
    assert result.text == "0.5" and server.requests[0]["headers"]["authorization"] == "Bearer sk-from-env"


def test_a_server_that_never_answers_is_given_up_for_the_client_life():
    import socket

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    c = client(url, max_retries=10)
    started = time.monotonic()
    with pytest.raises(BackendUnreachable, match=r"^gave up on .*: 3 attempts in a row got no answer .*cannot connect"):
        c.chat([{"role": "user", "content": "x"}])
    with pytest.raises(BackendUnreachable, match="gave up on"):  # the next call is not tried at all
        c.chat([{"role": "user", "content": "y"}])
    assert c.calls == 3 and time.monotonic() - started < 2


def test_an_answer_resets_the_count_of_unanswered_attempts():
    with Server(ok(), ok()) as server:
        c = client(server.base_url, give_up_after=2)
        c._unanswered = 1  # one attempt had gone unanswered
        c.chat([{"role": "user", "content": "x"}])
        assert c._unanswered == 0


def test_the_batch_rate_halves_every_price():
    from evalcore_http.prices import Price, PriceTable, Usage

    table = PriceTable({"big": (300, 1500), "*": (100, 500)}).at_batch_rate()
    usage = Usage(2000, 100)
    assert table.cost_msats("big", usage) == 375  # (2000 * 150 + 100 * 750) / 1000
    assert table.cost_msats("other", usage) == 125  # (2000 * 50 + 100 * 250) / 1000
    assert PriceTable(default=None).at_batch_rate().cost_msats("free", usage) == 0
    assert table.price("big") == Price(150, 750)
