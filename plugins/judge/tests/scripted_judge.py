"""The scripted-judge scaffolding of the judge's parity tests: the oracle's server, reading what a
judge is asked, ragas' side of a comparison and a run through ``evalcore evaluate``."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from evalcore.testing import ScriptedServer, import_ragas, run_evalcore, write_records


def oracle_fixture(oracle: Callable[[dict[str, Any]], Any]) -> Any:
    """A module-scoped fixture: a scripted server on 127.0.0.1 answering every request with ``oracle``."""

    @pytest.fixture(scope="module")
    def oracle_server():
        with ScriptedServer(oracle, max_requests=100_000) as server:
            yield server

    return oracle_server


def schema_name(request: dict[str, Any]) -> str | None:
    """The name of the JSON schema a request asks for as structured output (evalcore's), if any."""
    return ((request.get("response_format") or {}).get("json_schema") or {}).get("name")


def ragas_input(text: str) -> dict[str, Any]:
    """ragas' input of a prompt: the JSON object after its last ``input:``."""
    start = text.lower().rindex("input:")
    return json.JSONDecoder().raw_decode(text, text.index("{", start))[0]


def ragas_llm(server: ScriptedServer) -> Any:
    """ragas' LangChain OpenAI wrapper on ``server`` (no retries)."""
    import_ragas()
    from langchain_openai import ChatOpenAI
    from ragas.llms import LangchainLLMWrapper

    return LangchainLLMWrapper(ChatOpenAI(base_url=server.base_url, api_key="scripted", model="m", max_retries=0))


def ragas_messages(turns: Sequence[dict[str, Any]]) -> list[Any]:
    """A run's turns as ragas' messages: Human, Tool, and AI with its tool calls."""
    from ragas.messages import AIMessage, HumanMessage, ToolCall, ToolMessage

    messages: list[Any] = []
    for turn in turns:
        if turn["role"] == "user":
            messages.append(HumanMessage(content=turn["content"]))
        elif turn["role"] == "tool":
            messages.append(ToolMessage(content=turn["content"]))
        else:
            calls = [ToolCall(name=c["name"], args=c["arguments"]) for c in turn.get("tool_calls", [])]
            messages.append(AIMessage(content=turn["content"], tool_calls=calls or None))
    return messages


def never_called(prompt: str, metadata: Any = None) -> str:
    """A judge for runs that must not call one."""
    raise AssertionError("no call expected")


def evaluate_scores(server: ScriptedServer, records: list[dict[str, Any]], metric_id: str,
                    folder: Path) -> dict[str, dict[str, Any]]:
    """``evalcore evaluate`` of ``metric_id`` over ``records`` with ``server`` as the judge: each scored
    record's scores by id, from the run's rows."""
    path = write_records(folder / "records.jsonl", records)
    run_evalcore("evaluate", str(path), "-m", metric_id, "--judge-base-url", server.base_url, "--judge-model", "m",
                 "--cache-dir", str(folder / "cache"), "--json", "--samples", str(folder / "rows.jsonl"))
    return {row["id"]: row["scores"] for row in map(json.loads, (folder / "rows.jsonl").read_text().splitlines())
            if "scores" in row}
