"""Misnamed fields, ``--map NEW=OLD``, flat records and inputs that are not records, through the
command line with the real evalcore-overlap and evalcore-checks metrics."""

from __future__ import annotations

import json
import re

import pytest
from evalcore.testing import run_evalcore

# SQuAD token F1 (lower-cased, punctuation and the articles a/an/the removed), worked by hand:
#   "the cat sat on the mat" vs "the cat sat": gold [cat sat on mat], predicted [cat sat]:
#       precision 2/2, recall 2/4, F1 = 2 * 1 * 0.5 / 1.5 = 2/3
#   "Paris" vs "paris": 1;   "blue whale" vs "a green frog": no common token, 0
# token_f1 = (2/3 + 1 + 0) / 3 = 5/9;  exact_match (same normalisation) = 1/3 (only "paris")
ROWS = [("r1", "who sat?", "the cat sat on the mat", "the cat sat"),
        ("r2", "capital?", "Paris", "paris"),
        ("r3", "largest animal?", "blue whale", "a green frog")]
TOKEN_F1, EXACT_MATCH = 5 / 9, 1 / 3
METRICS = ["-m", "overlap/token_f1", "-m", "overlap/exact_match"]


def write_jsonl(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return str(path)


def standard(tmp_path):
    return write_jsonl(tmp_path / "standard.jsonl", [
        {"id": i, "example": {"query": q, "reference_answer": a}, "prediction": {"response": r}}
        for i, q, a, r in ROWS])


def misnamed(tmp_path):
    return write_jsonl(tmp_path / "misnamed.jsonl", [
        {"id": i, "example": {"question": q, "answer": a}, "prediction": {"output": r}} for i, q, a, r in ROWS])


def values(proc):
    assert proc.returncode == 0, proc.stderr
    metrics = json.loads(proc.stdout)["metrics"]
    return metrics["overlap/token_f1"]["value"], metrics["overlap/exact_match"]["value"]


def evaluate(*args):
    return run_evalcore("evaluate", *args, "--no-progress", check=False)


def test_misnamed_fields_say_why_and_the_command_fails(tmp_path):
    proc = evaluate(misnamed(tmp_path), *METRICS)
    assert proc.returncode == 2, proc.stderr
    # both metrics read the response first; the hint names every misnamed field the records hold
    assert ("overlap/token_f1, overlap/exact_match: 3 skipped — prediction.response is missing (3); did you mean "
            "--map response=output --map reference_answer=answer --map query=question?") in proc.stdout
    assert proc.stderr.strip().splitlines()[-1] == "error: no metric scored any record; the reasons are under the table"
    report = json.loads(evaluate(misnamed(tmp_path), *METRICS, "--json").stdout)
    assert report["metrics"]["overlap/exact_match"]["details"]["reasons"] == [
        {"status": "skipped", "reason": "prediction.response is missing", "count": 3,
         "hints": ["response=output", "reference_answer=answer", "query=question"]}]


def test_a_metric_that_scored_beside_one_that_did_not_exits_0_and_says_why(tmp_path):
    flat = write_jsonl(tmp_path / "flat.jsonl", [{"id": i, "question": q, "answer": a, "response": r}
                                                 for i, q, a, r in ROWS])
    proc = evaluate(flat, "-m", "overlap/token_f1", "-m", "checks/format")
    assert proc.returncode == 0, proc.stderr
    assert ("overlap/token_f1: 3 skipped — example.reference_answer is missing (3); "
            "did you mean --map reference_answer=answer --map query=question?") in proc.stdout
    assert "checks/format:" not in proc.stdout  # it scored every record: nothing to explain


def test_mapped_inputs_give_the_numbers_of_correctly_named_input(tmp_path):
    assert values(evaluate(standard(tmp_path), *METRICS, "--json")) == pytest.approx((TOKEN_F1, EXACT_MATCH))
    mapped = evaluate(misnamed(tmp_path), *METRICS, "--json", "--map", "reference_answer=answer",
                      "--map", "prediction.response=prediction.output")
    assert values(mapped) == pytest.approx((TOKEN_F1, EXACT_MATCH))
    # flat JSONL: query and reference_answer are example fields, the rest the prediction's
    flat = write_jsonl(tmp_path / "flat.jsonl", [{"id": i, "question": q, "gold": {"text": a}, "response": r}
                                                 for i, q, a, r in ROWS])
    proc = evaluate(flat, *METRICS, "--json", "--map", "example.reference_answer=gold.text", "--map", "query=question")
    assert values(proc) == pytest.approx((TOKEN_F1, EXACT_MATCH))
    # CSV: one flat record per row
    csv = tmp_path / "data.csv"
    csv.write_text("id,question,answer,output\n" + "".join(f'{i},{q},"{a}","{r}"\n' for i, q, a, r in ROWS))
    proc = evaluate(str(csv), *METRICS, "--json", "--map", "reference_answer=answer", "--map", "response=output")
    assert values(proc) == pytest.approx((TOKEN_F1, EXACT_MATCH))


def test_the_map_is_part_of_the_run_and_resume_refuses_another(tmp_path):
    out = tmp_path / "result.json"
    mapping = ["--map", "reference_answer=answer", "--map", "response=output"]
    assert evaluate(misnamed(tmp_path), *METRICS, "-o", str(out), *mapping).returncode == 0
    header = json.loads((tmp_path / "result.rows.jsonl").read_text().splitlines()[0])
    assert header["fingerprint"]["options"]["field_map"] == {"example.reference_answer": "answer",
                                                             "prediction.response": "output"}
    proc = evaluate(misnamed(tmp_path), *METRICS, "-o", str(out), "--resume", *mapping[:2])
    assert proc.returncode == 2 and "options.field_map.prediction.response removed" in proc.stderr
    assert values(evaluate(misnamed(tmp_path), *METRICS, "-o", str(out), "--resume", "--json", *mapping)) \
        == pytest.approx((TOKEN_F1, EXACT_MATCH))


# ragas' (before 0.2) and DeepEval's column names for the same rows
RAGAS = [{"question": q, "answer": r, "contexts": [f"about {q}"], "ground_truth": a} for _, q, a, r in ROWS]
DEEPEVAL = [{"input": q, "actual_output": r, "expected_output": a, "retrieval_context": [f"about {q}"]}
            for _, q, a, r in ROWS]
HINT = re.compile(r"did you mean ((?:--map \S+ ?)+)\?")


def hint_of(stdout):
    """The ``--map`` arguments of the hint under the table, as a list of arguments."""
    match = HINT.search(stdout)
    assert match, stdout
    return match.group(1).split()


@pytest.mark.parametrize(("records", "expected"), [
    (RAGAS, "--map response=answer --map reference_answer=ground_truth --map query=question"),
    (DEEPEVAL, "--map response=actual_output --map reference_answer=expected_output --map query=input"),
])
def test_following_the_hint_for_ragas_and_deepeval_records_gives_the_real_scores(tmp_path, records, expected):
    data = write_jsonl(tmp_path / "flat.jsonl", records)
    proc = evaluate(data, *METRICS)
    assert proc.returncode == 2, proc.stderr
    assert f"prediction.response is missing (3); did you mean {expected}?" in proc.stdout
    followed = values(evaluate(data, *METRICS, "--json", *hint_of(proc.stdout)))
    assert followed == pytest.approx((TOKEN_F1, EXACT_MATCH))  # not 1.0: each answer against its own reference
    dm = pytest.importorskip("dspy.evaluate.metrics")  # the reference the overlap plugin is checked against
    assert followed[0] == pytest.approx(sum(dm.F1(r, [a]) for _, _, a, r in ROWS) / len(ROWS))


def test_answer_goes_to_the_reference_only_when_the_response_has_a_better_field(tmp_path):
    both = write_jsonl(tmp_path / "both.jsonl", [{"question": q, "answer": a, "output": r} for _, q, a, r in ROWS])
    proc = evaluate(both, *METRICS)
    assert "did you mean --map response=output --map reference_answer=answer --map query=question?" in proc.stdout
    assert values(evaluate(both, *METRICS, "--json", *hint_of(proc.stdout))) == pytest.approx((TOKEN_F1, EXACT_MATCH))
    # with answer alone, no map reads it for both roles; one role alone scores nothing, so no hint at all
    alone = write_jsonl(tmp_path / "alone.jsonl", [{"question": q, "answer": a} for _, q, a, _ in ROWS])
    proc = evaluate(alone, *METRICS)
    assert proc.returncode == 2
    assert "overlap/token_f1, overlap/exact_match: 3 skipped — prediction.response is missing (3)\n" in proc.stdout
    assert "did you mean" not in proc.stdout


def test_a_hint_that_would_not_score_the_records_is_not_offered(tmp_path):
    # output holds objects: response=output would make every record an error, not a score
    data = write_jsonl(tmp_path / "objects.jsonl", [{"id": i, "reference_answer": a, "output": {"text": r}}
                                                    for i, _, a, r in ROWS])
    proc = evaluate(data, *METRICS)
    assert proc.returncode == 2
    assert "prediction.response is missing (3)" in proc.stdout and "did you mean" not in proc.stdout
    assert evaluate(data, *METRICS, "--map", "response=output").stdout.count("expected a string, got dict") == 1


def test_a_response_equal_to_the_reference_on_nearly_every_record_is_a_warning(tmp_path):
    rows = [{"id": str(k), "question": f"q{k}", "answer": f"answer {k}"} for k in range(20)]
    same = ["--map", "response=answer", "--map", "reference_answer=answer"]
    proc = evaluate(write_jsonl(tmp_path / "same.jsonl", rows), *METRICS, *same)
    assert proc.returncode == 0, proc.stderr
    warning = "response equals reference_answer on 20 of 20 records: check the field map"
    assert f"overlap/token_f1, overlap/exact_match: warning: {warning}\n" in proc.stdout
    report = json.loads(evaluate(write_jsonl(tmp_path / "same.jsonl", rows), *METRICS, *same, "--json").stdout)
    assert [m["details"]["warnings"] for m in report["metrics"].values()] == [[warning], [warning]]
    # 19 of 20 (95 %) still warns; 18 of 20 is a good model, not a field map
    for n_other, warned in ((1, True), (2, False)):
        mixed = [{**row, "ground_truth": "else" if k < n_other else row["answer"]} for k, row in enumerate(rows)]
        proc = evaluate(write_jsonl(tmp_path / "mixed.jsonl", mixed), *METRICS, "--map", "response=answer",
                        "--map", "reference_answer=ground_truth")
        assert ("warning: response equals reference_answer on 19 of 20" in proc.stdout) is warned
        assert ("warning:" in proc.stdout) is warned
    # a few records are not enough to tell
    proc = evaluate(write_jsonl(tmp_path / "few.jsonl", rows[:4]), *METRICS, *same)
    assert proc.returncode == 0 and "warning:" not in proc.stdout


@pytest.mark.parametrize(("argument", "message"), [
    ("foo", "--map 'foo': write NEW=OLD, e.g. --map reference_answer=answer"),
    ("foo=answer", "field_map: 'foo' is not a field of the record format; write example.foo or prediction.foo"),
])
def test_bad_map_arguments(tmp_path, argument, message):
    proc = evaluate(standard(tmp_path), *METRICS, "--map", argument)
    assert proc.returncode == 2 and proc.stderr.strip() == f"error: {message}"


def test_an_ambiguous_short_name_is_refused_per_record(tmp_path):
    data = write_jsonl(tmp_path / "both.jsonl",
                       [{"id": "1", "example": {"answer": "x"}, "prediction": {"answer": "x"}}])
    proc = evaluate(data, *METRICS, "--map", "reference_answer=answer")
    assert proc.returncode == 2
    assert ("field_map: 'answer' is in both example and prediction; write example.answer or prediction.answer"
            in proc.stderr)


def test_a_plugin_readers_files_take_no_map(root):
    qrels, run = root / "examples/trec/qrels.txt", root / "examples/trec/run.txt"
    proc = evaluate("--qrels", str(qrels), "--run", str(run), "-m", "retrieval/map", "--map", "query=q")
    assert proc.returncode == 2
    assert proc.stderr == (f"error: field_map (--map) applies to JSONL, CSV and Parquet files, tables and Python "
                           f"records, not to {qrels} + {run}: its reader makes the records itself\n")


@pytest.mark.parametrize(("name", "content", "message"), [
    ("array.jsonl", '[{"id": "1", "example": {}, "prediction": {}}]\n', "holds a JSON array, not JSON lines"),
    ("pretty.json", '[\n  {"id": "1"}\n]\n', "holds a JSON array, not JSON lines"),
    ("table.jsonl", "id,question,answer\n1,q,a\n", "looks like CSV (first line: 'id,question,answer'), not JSON lines"),
    ("qrels.jsonl", "q1 0 d1 1\n", "looks like a TREC qrels file"),
    ("empty.jsonl", "", "no records: the file is empty; expected JSON lines, one record object per line"),
    ("result.json", '{\n  "metrics": {},\n  "provenance": {}\n}\n', "is an evalcore report (JSON), not records"),
    ("folder", None, "is a folder; expected a file of records"),
])
def test_inputs_that_are_not_records_get_one_line(tmp_path, name, content, message):
    path = tmp_path / name
    path.mkdir() if content is None else path.write_text(content)
    proc = evaluate(str(path), *METRICS)
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"error: {path}: {message}") and len(proc.stderr.strip().splitlines()) == 1
