"""SQL equivalence against ragas' LLMSQLEquivalence.

ragas (its LangChain OpenAI wrapper) and evalcore call one scripted OpenAI-compatible server on
127.0.0.1 that answers the same for the same queries: they are equivalent when they read the same
after lower-casing, collapsing white space, dropping a trailing ';' and reading ``true`` as ``1``
and ``false`` as ``0``; a schema holding the word ``strict`` makes ``true`` differ from ``1``.
"""

from __future__ import annotations

import asyncio
import json
import re

import evalcore
import pytest
from chat_messages import after_last, message_text
from evalcore.testing import Reply, import_ragas
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scripted_judge import evaluate_scores, never_called, oracle_fixture, ragas_input, ragas_llm, schema_name

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

USAGE = {"prompt_tokens": 10, "completion_tokens": 5}


def normal(query, schema):
    text = re.sub(r"\s+", " ", query.strip().rstrip(";").lower())
    return text if "strict" in schema else text.replace("true", "1").replace("false", "0")


def oracle(request):
    text = "\n".join(message_text(m) for m in request["messages"])
    asked = schema_name(request)
    if asked == "sql_equivalence":
        schema = after_last(text, "Database schema:\n", "\n\nGenerated query:")
        response = after_last(text, "Generated query:\n", "\n\nReference query:")
        reference = after_last(text, "Reference query:\n", "\n\nAre the two")
        same = normal(response, schema) == normal(reference, schema)
        return Reply.chat(json.dumps({"response_explanation": "r", "reference_explanation": "f",
                                      "equivalent": same}), usage=USAGE)
    data = ragas_input(text)  # ragas: its input JSON follows its last 'input:'
    same = normal(data["response"], data["database_schema"]) == normal(data["reference"], data["database_schema"])
    return Reply.chat(json.dumps({"response_query_explaination": "r", "reference_query_explaination": "f",
                                  "equivalence": same}), usage=USAGE)


oracle_server = oracle_fixture(oracle)


def ragas_score(server, response, reference, schema):
    import_ragas()
    from ragas.dataset_schema import SingleTurnSample
    from ragas.metrics import LLMSQLEquivalence

    llm = ragas_llm(server)
    sample = SingleTurnSample(response=response, reference=reference, reference_contexts=schema)
    return asyncio.run(LLMSQLEquivalence(llm=llm).single_turn_ascore(sample))


def evalcore_score(server, response, reference, schema):
    metric = evalcore.get_metric("judge/sql_equivalence", base_url=server.base_url, model="m", cache_mode="off")
    return metric.score_one({"reference_answer": reference, "relevant_docs": schema}, {"response": response})


SCHEMA = ["Table users:", "- id: INT", "- name: VARCHAR", "- active: BOOLEAN"]
CASES = {
    "boolean spelled differently": ("SELECT id, name FROM users WHERE active = true;",
                                    "SELECT id, name FROM users WHERE active = 1;", SCHEMA),
    "different column": ("SELECT id FROM users", "SELECT name FROM users", SCHEMA),
    "strict schema": ("SELECT id FROM users WHERE active = true", "SELECT id FROM users WHERE active = 1",
                      ["strict table users"]),
    "white space and case": ("select id\n  from USERS", "SELECT id FROM users;", []),
}


@pytest.mark.parametrize("case", list(CASES))
def test_same_number_as_ragas(oracle_server, case):
    before = len(oracle_server.requests)
    theirs = ragas_score(oracle_server, *CASES[case])
    assert len(oracle_server.requests) - before == 1
    before = len(oracle_server.requests)
    ours = evalcore_score(oracle_server, *CASES[case])
    assert len(oracle_server.requests) - before == 1
    assert ours.status == "ok", ours
    assert ours.value == theirs


def test_hand_worked_values(oracle_server):
    """By the oracle's rules: true reads as 1 (equivalent: 1) except in a strict schema (0); id and
    name differ (0); case, white space and the ';' do not matter (1)."""
    assert [evalcore_score(oracle_server, *CASES[case]).value for case in CASES] == [1.0, 0.0, 0.0, 1.0]
    score = evalcore_score(oracle_server, *CASES["different column"])
    assert score.details["equivalent"] is False and score.details["reference_explanation"] == "f"


CLAUSE = st.sampled_from(["SELECT id", "select ID", "SELECT name", "FROM users", "WHERE active = true",
                          "WHERE active = 1", "WHERE active = false", ";"])


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(st.lists(CLAUSE, min_size=1, max_size=3), st.lists(CLAUSE, min_size=1, max_size=3), st.booleans())
def test_generated_cases_same_number_as_ragas(oracle_server, response, reference, strict):
    response, reference = " ".join(response), " ".join(reference)
    schema = ["strict users"] if strict else SCHEMA
    assert evalcore_score(oracle_server, response, reference, schema).value == \
        ragas_score(oracle_server, response, reference, schema)


@pytest.mark.parametrize(("example", "prediction", "reason"), [
    ({"reference_answer": "SELECT 1", "relevant_docs": []}, {"response": " "}, "response is empty"),
    ({"relevant_docs": []}, {"response": "SELECT 1"}, "reference_answer"),
    ({"reference_answer": "SELECT 1"}, {"response": "SELECT 1"}, "relevant_docs is missing"),
])
def test_missing_input_skips_without_calls(example, prediction, reason):
    score = evalcore.get_metric("judge/sql_equivalence", judge=never_called, cache_mode="off") \
        .score_one(example, prediction)
    assert score.status == "skipped" and reason in score.reason


def test_cli_same_number_as_ragas(oracle_server, tmp_path):
    records = [{"id": case, "example": {"reference_answer": reference, "relevant_docs": [
                {"doc_id": f"s{i}", "text": text} for i, text in enumerate(schema)]},
                "prediction": {"response": response}} for case, (response, reference, schema) in CASES.items()]
    rows = evaluate_scores(oracle_server, records, "judge/sql_equivalence", tmp_path)
    for case, args in CASES.items():
        assert rows[case]["judge/sql_equivalence"]["value"] == ragas_score(oracle_server, *args)
