"""``evalcore evaluate --subtopic-qrels Q --run R``: diversity qrels through the command line, and
how the command picks between readers that share ``--run``."""

import json
import math

import pytest

QRELS = "1 1 d1 1\n1 2 d1 1\n1 1 d2 1\n1 3 d3 1\n2 1 d5 1\n"
RUN = "1 Q0 d2 1 3.0 t\n1 Q0 d1 2 2.0 t\n1 Q0 d3 3 1.0 t\n"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "qrels.ndeval").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    (tmp_path / "qrels").write_text("1 0 d1 1\n")
    return tmp_path


def test_alpha_ndcg_from_diversity_qrels(files, evalcore_cli):
    proc = evalcore_cli("evaluate", "--subtopic-qrels", "qrels.ndeval", "--run", "run", "-m", "alpha_nDCG@3",
                        "-m", "retrieval/alpha_ndcg(missing='zero')@3", "-o", "r.json", "--no-progress")
    assert proc.returncode == 0, proc.stderr
    metrics = json.loads((files / "r.json").read_text())["metrics"]
    # run [d2, d1, d3]: gains 1, 0.5 + 1, 1; greedy ideal [d1, d3, d2]: 2, 1, 0.5
    value = (1 + 1.5 / math.log2(3) + 1 / 2) / (2 + 1 / math.log2(3) + 0.5 / 2)
    assert metrics["retrieval/alpha_ndcg@3"]["value"] == pytest.approx(value)
    # query 2 is only in the qrels: skipped, or 0 with missing='zero'
    assert metrics["retrieval/alpha_ndcg@3"]["n"] == 1
    assert metrics["retrieval/alpha_ndcg(missing='zero')@3"]["value"] == pytest.approx(value / 2)


@pytest.mark.parametrize(("args", "message"), [
    (["--run", "run"], "--qrels and --run go together"),
    (["--subtopic-qrels", "qrels.ndeval"], "--subtopic-qrels and --run go together"),
    (["--subtopic-qrels", "qrels.ndeval", "--qrels", "qrels", "--run", "run"], "one reader only"),
])
def test_the_readers_sharing_run_are_told_apart(files, evalcore_cli, args, message):
    proc = evalcore_cli("evaluate", *args, "-m", "alpha_nDCG@3")
    assert proc.returncode != 0 and message in proc.stderr


def test_trec_files_still_go_to_the_trec_reader(files, evalcore_cli):
    proc = evalcore_cli("evaluate", "--qrels", "qrels", "--run", "run", "-m", "P_1", "-o", "r.json", "--no-progress")
    assert proc.returncode == 0, proc.stderr
    assert json.loads((files / "r.json").read_text())["metrics"]["retrieval/precision@1"]["value"] == 0.0
