"""The client's and the cache's errors: in evalcore's one tree, one line each, naming what is wrong."""

from __future__ import annotations

import pytest
from evalcore.cache import ContentCache
from evalcore.http import OpenAIClient, PriceTable, RequestRejected
from evalcore.plugin import EvalcoreError, ParameterError
from evalcore.testing import Reply, ScriptedServer


@pytest.mark.parametrize("call", [
    pytest.param(lambda: ContentCache("unused", mode="sometimes"), id="cache-mode"),
    pytest.param(lambda: OpenAIClient("ftp://x", "m"), id="base-url"),
    pytest.param(lambda: PriceTable({"m": "cheap"}), id="price"),
])
def test_bad_settings_are_parameter_errors_on_one_line(call):
    with pytest.raises(ParameterError) as info:
        call()
    assert isinstance(info.value, ValueError)  # callers that caught ValueError still do
    assert "\n" not in str(info.value)


def test_a_refusing_backend_is_an_evalcore_error_on_one_line():
    with ScriptedServer() as server:
        server.script(Reply(400, body="unknown model\nsee the docs"))
        client = OpenAIClient(server.base_url, "m", max_retries=0)
        with pytest.raises(RequestRejected) as info:
            client.chat([{"role": "user", "content": "hi"}])
    assert isinstance(info.value, EvalcoreError) and not info.value.retryable
    assert str(info.value) == f"{server.base_url}/chat/completions answered HTTP 400: unknown model see the docs"


def test_parameter_errors_name_the_parameter():
    with pytest.raises(ParameterError, match="parameter 'base_url'"):
        OpenAIClient("localhost:8000", "m")
