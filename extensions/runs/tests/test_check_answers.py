"""evalcore.plugin.check_answers: a tracker's destination that is down or silent is one line in
about the time allowed; any HTTP answer passes."""

from __future__ import annotations

import socket
import time

import pytest
from evalcore.plugin import TrackingError, check_answers
from evalcore.testing import Reply, ScriptedServer


def test_a_silent_server_fails_after_the_time_allowed():
    with socket.socket() as listener:  # accepts (the kernel's backlog) and never answers
        listener.bind(("127.0.0.1", 0))
        listener.listen(4)
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/"
        start = time.monotonic()
        with pytest.raises(TrackingError, match=r"^Store at .*: no answer within 0\.5 s \(is it up\?\)$"):
            check_answers(url, f"Store at {url}", timeout_s=0.5, hint="(is it up?)")
        assert 0.45 <= time.monotonic() - start < 3


def test_a_closed_port_fails_at_once():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}/"
    with pytest.raises(TrackingError, match=r"^Store: cannot connect: .*refused") as info:
        check_answers(url, "Store", timeout_s=5)
    assert "\n" not in str(info.value)


def test_any_answer_passes():
    with ScriptedServer(default=lambda request: Reply(404, {"error": "no such page"})) as server:
        check_answers(server.base_url, "Store", timeout_s=5)  # ScriptedServer answers POST only: 501 is an answer
