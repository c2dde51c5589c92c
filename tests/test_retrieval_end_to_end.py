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
        metric_id = evalcore.get_metric("ndcg(k=None)" if measure == "ndcg" else measure).id
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
