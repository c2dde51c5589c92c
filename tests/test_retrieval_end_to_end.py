"""``evalcore evaluate --qrels --run`` on trec_eval's own test collection matches trec_eval."""

import json

import pytest

# trec_eval measure name -> evalcore metric id (see shared/reference/trec_eval/README.md)
MEASURES = {
    "map": "retrieval/map", "P_10": "retrieval/precision@10", "recall_100": "retrieval/recall@100",
    "ndcg_cut_10": "retrieval/ndcg@10", "recip_rank": "retrieval/mrr", "Rprec": "retrieval/r_precision",
    "success_10": "retrieval/hit_rate@10",
}


def trec_averages(path):
    averages = {}
    for line in path.read_text().splitlines():
        measure, qid, value = line.split()
        if qid == "all" and measure != "runid":
            averages[measure] = float(value)
    return averages


@pytest.mark.parametrize(("qrels", "run", "expected", "options"), [
    ("qrels.test", "results.test", "out.test.aq", []),
])
def test_cli_matches_trec_eval_averages(shared, evalcore_cli, tmp_path, qrels, run, expected, options):
    data = shared / "reference" / "trec_eval"
    args = ["evaluate", "--qrels", str(data / qrels), "--run", str(data / run), "-o", str(tmp_path / "r.json")]
    for metric in MEASURES.values():
        args += ["-m", metric]
    proc = evalcore_cli(*args, *options)
    assert proc.returncode == 0, proc.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    reference = trec_averages(data / expected)
    for measure, metric in MEASURES.items():
        assert round(report["metrics"][metric]["value"], 4) == pytest.approx(reference[measure], abs=1e-4), measure


def test_cli_all_trec_reproduces_every_average_of_trec_eval(shared, evalcore_cli, tmp_path):
    """``-m all_trec`` through the engine's columnar TREC path: every ``all`` line of ``trec_eval -m all_trec``
    (sums for the counts, geometric means for gm_*) to the printed 4 decimals."""
    import evalcore

    data = shared / "reference" / "trec_eval"
    proc = evalcore_cli("evaluate", "--qrels", str(data / "qrels.test"), "--run", str(data / "results.test"),
                        "-m", "all_trec", "-o", str(tmp_path / "r.json"), "--no-progress")
    assert proc.returncode == 0, proc.stderr
    metrics = json.loads((tmp_path / "r.json").read_text())["metrics"]
    reference = trec_averages(data / "out.test.a")
    assert len(metrics) == 98
    for measure, value in reference.items():
        metric_id = evalcore.get_metric(measure).id
        assert f"{metrics[metric_id]['value']:.4f}" == f"{value:.4f}", measure


def test_per_query_output_reads_like_trec_eval_q(shared, evalcore_cli, tmp_path):
    data = shared / "reference" / "trec_eval"
    measures = ["map", "P_10", "num_ret", "ndcg_cut_10", "bpref", "gm_map"]
    args = ["evaluate", "--qrels", str(data / "qrels.test"), "--run", str(data / "results.test"),
            "--per-query", str(tmp_path / "q.txt"), "--no-progress"]
    for measure in measures:
        args += ["-m", measure]
    proc = evalcore_cli(*args)
    assert proc.returncode == 0, proc.stderr

    def lines(text):
        return {(m, q): v for m, q, v in (line.split() for line in text.splitlines()) if m in measures}

    ours = lines((tmp_path / "q.txt").read_text())
    theirs = lines((data / "out.test.aq").read_text())
    assert ours == theirs


TEXT_LINES = ("relstring", "runid")  # trec_eval's text-valued lines (a string of grades, the run's tag)


def test_all_trec_per_query_output_is_trec_eval_q_line_for_line(shared, evalcore_cli, tmp_path):
    """``-m all_trec --per-query`` prints what ``trec_eval -q -m all_trec`` prints: the same measure
    names (``ndcg``, ``iprec_at_recall_0.10``, ``Rprec_mult_0.20``, ``success_1``, ``11pt_avg``),
    query ids and order, no per-query num_q or gm_* lines, values to 4 decimals."""
    data = shared / "reference" / "trec_eval"
    proc = evalcore_cli("evaluate", "--qrels", str(data / "qrels.test"), "--run", str(data / "results.test"),
                        "-m", "all_trec", "--per-query", str(tmp_path / "q.txt"), "--no-progress")
    assert proc.returncode == 0, proc.stderr
    ours = (tmp_path / "q.txt").read_text().splitlines()
    theirs = [line for line in (data / "out.test.aq").read_text().splitlines() if not line.startswith(TEXT_LINES)]
    assert [line.split("\t") for line in ours] == [line.split("\t") for line in theirs]
    assert ours == theirs  # the layout too: the name padded to 22 characters, tab-separated


# ``trec_eval -q -m MEASURE.PARAMS qrels.rel_level results.test`` (trec_eval 10.0, each measure on its own)
PARAMETERISED = {
    "retrieval/utility(weights=[2, -1, 0, 0])": "utility_2,-1,0,0 -287.0000 -350.0000 -476.0000 -371.0000",
    "P_7": "P_7 0.2857 0.7143 0.0000 0.3333",
    "retrieval/ndcg(k=None, gains={1: 3, 2: 7})": "ndcg_1=3,2=7 0.1480 0.6617 0.3669 0.3922",
    "retrieval/rbp(p=0.95)": "rbp_p=0.95 0.0547 0.6916 0.0493 0.2652",
    "retrieval/rbp_resid(p=0.8)": "rbp_resid_p=0.8 0.0205 0.0000 0.3272 0.1159",
    "retrieval/set_f(beta=0.5)": "set_F_0.5 0.1445 0.1393 0.0238 0.1025",
    "retrieval/iprec_at_recall(recall=0.25)": "iprec_at_recall_0.25 0.0000 0.7917 0.1136 0.3018",
    "retrieval/r_precision_mult(multiple=0.5)": "Rprec_mult_0.50 0.2025 0.6923 0.0000 0.2983",
    "retrieval/hit_rate@7": "success_7 1.0000 1.0000 0.0000 0.6667",
    "retrieval/map@7": "map_cut_7 0.0010 0.0569 0.0000 0.0193",
    "ndcg@7": "ndcg_cut_7 0.0497 0.7709 0.0000 0.2735",
}


def test_parameterised_measures_print_the_names_trec_eval_prints(shared, evalcore_cli, tmp_path):
    data = shared / "reference" / "trec_eval"
    args = ["evaluate", "--qrels", str(data / "qrels.rel_level"), "--run", str(data / "results.test"),
            "--per-query", str(tmp_path / "q.txt"), "--no-progress", "-m", "MRR@10"]
    for metric in PARAMETERISED:
        args += ["-m", metric]
    proc = evalcore_cli(*args)
    assert proc.returncode == 0, proc.stderr
    printed: dict[str, list[tuple[str, str]]] = {}
    for line in (tmp_path / "q.txt").read_text().splitlines():
        name, qid, value = line.split("\t")
        printed.setdefault(name.rstrip(), []).append((qid, value))
    expected = {}
    for line in PARAMETERISED.values():
        name, *values = line.split()
        expected[name] = list(zip(["301", "302", "303", "all"], values))
    assert {k: v for k, v in printed.items() if k != "MRR@10"} == expected
    # a measure trec_eval does not compute prints under the name it was asked for
    assert [qid for qid, _ in printed["MRR@10"]] == ["301", "302", "303", "all"]


def test_ndcg_with_a_gains_mapping_runs_through_the_cli_and_resumes(shared, evalcore_cli, tmp_path):
    """A gains mapping has integer keys: the journal keeps them (its header reads back the same
    parameters), resume recognises the run, and the numbers are evaluate_run's."""
    from evalcore.plugin import load_run, metric_of
    from evalcore_retrieval import evaluate_run

    data = shared / "reference" / "trec_eval"
    metric = "retrieval/ndcg(gains={1: 3.0, 2: 7.0})"
    args = ["evaluate", "--qrels", str(data / "qrels.rel_level"), "--run", str(data / "results.test"),
            "-m", metric, "--samples", str(tmp_path / "rows.jsonl"), "--no-progress"]
    first = evalcore_cli(*args, "-o", str(tmp_path / "first.json"))
    assert first.returncode == 0, first.stderr

    journal = (tmp_path / "rows.jsonl").read_text().splitlines()
    (tmp_path / "rows.jsonl").write_text("\n".join(journal[:3]) + "\n")  # a run cut off after two rows
    again = evalcore_cli(*args, "--resume", "-o", str(tmp_path / "again.json"))
    assert again.returncode == 0, again.stderr

    qrels, run = ({} for _ in range(2))
    for line in (data / "qrels.rel_level").read_text().splitlines():
        qid, _, doc, grade = line.split()
        qrels.setdefault(qid, {})[doc] = int(grade)
    for line in (data / "results.test").read_text().splitlines():
        qid, _, doc, _, score, _ = line.split()
        run.setdefault(qid, {})[doc] = float(score)
    expected = evaluate_run(qrels, run, [metric])
    metric_id = next(iter(expected.metric_ids))
    rows = {json.loads(line)["id"]: json.loads(line) for line in (tmp_path / "rows.jsonl").read_text().splitlines()
            if line.startswith('{"id"')}
    assert {qid: row["scores"][metric_id]["value"] for qid, row in rows.items()} == pytest.approx(
        {qid: scores[metric_id] for qid, scores in expected.items()}, abs=1e-12)
    for report in ("first.json", "again.json"):
        value = json.loads((tmp_path / report).read_text())["metrics"][metric_id]["value"]
        assert value == pytest.approx(expected.mean()[metric_id], abs=1e-12)
    assert metric_of(load_run(tmp_path / "rows.jsonl"), metric_id).params["gains"] == {1: 3.0, 2: 7.0}


def test_names_people_type_evaluate(shared, evalcore_cli, tmp_path):
    data = shared / "reference" / "trec_eval"
    proc = evalcore_cli("evaluate", "--qrels", str(data / "qrels.test"), "--run", str(data / "results.test"),
                        "-m", "MRR@10", "-m", "nDCG@10", "-m", "MAP", "-m", "P@5", "-m", "Recall@5",
                        "--json", "--no-progress")
    assert proc.returncode == 0, proc.stderr
    ids = list(json.loads(proc.stdout)["metrics"])
    assert ids == ["retrieval/mrr@10", "retrieval/ndcg@10", "retrieval/map", "retrieval/precision@5",
                   "retrieval/recall@5"]


def trec_q_lines(text, measures):
    """``{(measure, qid): printed value}`` of the lines of a ``trec_eval -q`` output naming ``measures``."""
    return {(m, q): v for m, q, v in (line.split() for line in text.splitlines()) if m in measures}


@pytest.mark.parametrize("typed", ["ndcg", "NDCG", "nDCG", "retrieval/ndcg"])
def test_cli_ndcg_is_trec_eval_s_ndcg_over_the_whole_ranking(shared, evalcore_cli, tmp_path, typed):
    """``-m ndcg`` (in any case, and ir_measures' ``nDCG``) prints trec_eval's ``ndcg`` lines, not ``ndcg_cut_10``."""
    data = shared / "reference" / "trec_eval"
    proc = evalcore_cli("evaluate", "--qrels", str(data / "qrels.test"), "--run", str(data / "results.test"),
                        "-m", typed, "--per-query", str(tmp_path / "q.txt"), "--no-progress")
    assert proc.returncode == 0, proc.stderr
    ours = trec_q_lines((tmp_path / "q.txt").read_text(), {"ndcg", "ndcg_cut_10"})
    assert ours == trec_q_lines((data / "out.test.aq").read_text(), {"ndcg"})


def test_cli_ndcg_and_its_cut_equal_pytrec_eval_on_the_example_run(root, evalcore_cli, tmp_path):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels_path, run_path = root / "examples" / "trec" / "qrels.txt", root / "examples" / "trec" / "run.txt"
    proc = evalcore_cli("evaluate", "--qrels", str(qrels_path), "--run", str(run_path), "-m", "ndcg",
                        "-m", "nDCG@10", "-o", str(tmp_path / "r.json"), "--no-progress")
    assert proc.returncode == 0, proc.stderr
    metrics = json.loads((tmp_path / "r.json").read_text())["metrics"]
    qrels, run = {}, {}
    for line in qrels_path.read_text().splitlines():
        qid, _, doc, grade = line.split()
        qrels.setdefault(qid, {})[doc] = int(grade)
    for line in run_path.read_text().splitlines():
        qid, _, doc, _, score, _ = line.split()
        run.setdefault(qid, {})[doc] = float(score)
    per_query = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg", "ndcg_cut_10"}).evaluate(run)
    for metric_id, measure in (("retrieval/ndcg", "ndcg"), ("retrieval/ndcg@10", "ndcg_cut_10")):
        mean = sum(v[measure] for v in per_query.values()) / len(per_query)
        assert metrics[metric_id]["value"] == pytest.approx(mean, abs=1e-9), measure


def test_cli_a_trec_eval_name_of_several_cut_offs_prints_them_all(shared, evalcore_cli, tmp_path):
    """``-m P -m recall`` prints what ``trec_eval -q -m P -m recall`` prints: P_5 ... P_1000, recall_5 ..."""
    data = shared / "reference" / "trec_eval"
    proc = evalcore_cli("evaluate", "--qrels", str(data / "qrels.test"), "--run", str(data / "results.test"),
                        "-m", "P", "-m", "recall", "--per-query", str(tmp_path / "q.txt"), "--no-progress")
    assert proc.returncode == 0, proc.stderr
    ours = (tmp_path / "q.txt").read_text()
    names = {line.split()[0] for line in ours.splitlines()}
    theirs = trec_q_lines((data / "out.test.aq").read_text(), {n for n in names if n.startswith(("P_", "recall_"))})
    assert len(names) == 18
    assert trec_q_lines(ours, names) == theirs


def test_cli_refuses_a_set_name_where_one_metric_is_asked_for(evalcore_cli):
    proc = evalcore_cli("describe", "Recall")
    assert proc.returncode != 0
    assert proc.stderr.count("\n") == 1 and "metric set 'recall'" in proc.stderr and "recall_10" in proc.stderr
    assert evalcore_cli("describe", "retrieval/recall").returncode == 0
