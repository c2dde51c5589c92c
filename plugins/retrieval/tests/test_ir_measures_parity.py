"""SDCG, RBP with binary gains, Compat and alpha-nDCG against ir_measures itself, on generated runs.

The runs have tied, equal and negative scores, cut-offs beyond the run, unjudged documents,
graded and negative relevance, and queries with nothing relevant or nothing retrieved.
ir_measures computes SDCG and RBP(rel=l) with cwl_eval, Compat with its own compat provider
and alpha-nDCG with pyndeval (ndeval's C code).
"""

from __future__ import annotations

import logging

import evalcore
import pytest
from evalcore_retrieval import evaluate_run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ir_measures = pytest.importorskip("ir_measures", reason="ir-measures is the reference")
logging.getLogger("ir_measures").setLevel(logging.ERROR)  # cwl_eval warns about clipped grades

DOC_IDS = st.sampled_from([f"d{i}" for i in range(10)] + ["D1", "a", "a1", "z"])
TIED_SCORES = st.one_of(st.sampled_from([-1.0, 0.0, 0.5, 2.0]), st.floats(-50, 50, allow_nan=False))
GRADE = st.sampled_from([-1, 0, 0, 1, 1, 2, 3, 4])
QUERY = st.sampled_from(["1", "2", "3", "4"])
RUNS = st.dictionaries(QUERY, st.dictionaries(DOC_IDS, TIED_SCORES, max_size=12), max_size=4)
QRELS = st.dictionaries(QUERY, st.dictionaries(DOC_IDS, GRADE, min_size=1, max_size=9), max_size=4)


def reference(names: list[str], qrels, run) -> dict[tuple[str, str], float]:
    """ir_measures' value of each (query, measure name)."""
    measures = {ir_measures.parse_measure(name): name for name in names}
    return {(m.query_id, measures[m.measure]): m.value for m in ir_measures.iter_calc(list(measures), qrels, run)}


def record(judgements: list[dict], ranked: dict[str, float]) -> tuple[dict, dict]:
    return ({"relevant_docs": judgements},
            {"retrieved": [{"doc_id": doc, "score": score} for doc, score in ranked.items()]})


@settings(max_examples=120, deadline=None)
@given(QRELS, RUNS, st.sampled_from([1, 3, 5, 20]), st.sampled_from([(0, 1), (0, 3), (1, 2), (0, 4)]),
       st.sampled_from([0.5, 0.8, 0.95]), st.sampled_from([1, 2]))
def test_sdcg_and_binary_rbp_match_cwl_eval(qrels, run, k, grades, p, level):
    """cwl_eval ranks by score with equal scores in input order: ``ties='input'``."""
    pytest.importorskip("cwl", reason="cwl-eval is ir_measures' provider of SDCG and RBP(rel=l)")
    low, high = grades
    names = {f"SDCG(max_rel={high},min_rel={low})@{k}": f"sdcg(k={k}, min_grade={low}, max_grade={high}",
             f"RBP(p={p},rel={level})": f"rbp(p={p}, gain='binary', relevance_level={level}"}
    # cwl_eval scores every judged query; absent and empty rankings score 0 (missing='zero')
    metrics = [evalcore.get_metric(f"retrieval/{ours}, ties='input', missing='zero')") for ours in names.values()]
    expected = reference(list(names), qrels, run)
    got = evaluate_run(qrels, run, metrics)
    for (qid, name), value in expected.items():
        metric = metrics[list(names).index(name)]
        assert got[qid][metric.id] == pytest.approx(value, abs=1e-12), (qid, name)
    assert {qid for qid, _ in expected} == set(got)
    # the same values from records (the engine's path for JSONL input)
    scored = [qid for qid in run if qid in qrels]
    pairs = [record([{"doc_id": d, "relevance": g} for d, g in qrels[qid].items()], run[qid]) for qid in scored]
    for metric in metrics:
        for qid, score in zip(scored, metric.score_many([e for e, _ in pairs], [pr for _, pr in pairs])):
            assert score.value == pytest.approx(got[qid][metric.id], abs=1e-12), (qid, metric.id)


@settings(max_examples=150, deadline=None)
@given(QRELS, RUNS, st.sampled_from([0.0, 0.5, 0.8, 0.95, 1.0]), st.booleans())
def test_compat_matches_ir_measures(qrels, run, p, normalize):
    run = {qid: docs for qid, docs in run.items() if docs}  # ir_measures divides by zero on some empty ones
    name = f"Compat(normalize={normalize},p={p})"
    expected = reference([name], qrels, run)
    metric = evalcore.get_metric(name)
    scored = [qid for qid in run if qid in qrels]
    pairs = [record([{"doc_id": d, "relevance": g} for d, g in qrels[qid].items()], run[qid]) for qid in scored]
    scores = metric.score_many([e for e, _ in pairs], [pr for _, pr in pairs])
    for qid, score in zip(scored, scores):
        assert score.value == pytest.approx(expected[qid, name], abs=1e-12), qid


SUBTOPIC_QRELS = st.dictionaries(
    QUERY, st.dictionaries(st.tuples(DOC_IDS, st.sampled_from(["1", "2", "3", "x"])), GRADE, min_size=1, max_size=14),
    max_size=4,
)


def subtopic_qrels(judgements) -> list:
    return [ir_measures.Qrel(qid, doc, grade, subtopic)
            for qid, pairs in judgements.items() for (doc, subtopic), grade in pairs.items()]


def subtopic_records(judgements, run, qids) -> tuple[list[dict], list[dict]]:
    pairs = [record([{"doc_id": d, "subtopic": s, "relevance": g} for (d, s), g in judgements[qid].items()],
                    run[qid]) for qid in qids]
    return [e for e, _ in pairs], [pr for _, pr in pairs]


@settings(max_examples=150, deadline=None)
@given(SUBTOPIC_QRELS, RUNS, st.sampled_from([0.0, 0.25, 0.5, 0.8, 1.0]), st.sampled_from([1, 2]))
def test_alpha_ndcg_matches_ndeval(judgements, run, alpha, level):
    """ndeval (through ir_measures' pyndeval provider) ranks equal scores by doc id ascending."""
    pytest.importorskip("pyndeval", reason="pyndeval is ir_measures' provider of alpha_nDCG")
    run = {qid: docs for qid, docs in run.items() if docs}
    names = [f"alpha_nDCG(alpha={alpha},rel={level})@{k}" for k in (1, 3, 5, 20)]
    expected = reference(names, subtopic_qrels(judgements), run)
    scored = [qid for qid in run if qid in judgements]
    examples, predictions = subtopic_records(judgements, run, scored)
    for name in names:
        for qid, score in zip(scored, evalcore.get_metric(name).score_many(examples, predictions)):
            assert score.value == pytest.approx(expected[qid, name], abs=1e-12), (qid, name)


@settings(max_examples=100, deadline=None)
@given(SUBTOPIC_QRELS, RUNS, st.sampled_from([0.5, 0.75]))
def test_judged_only_alpha_ndcg_matches_ndeval_on_the_judged_run(judgements, run, alpha):
    """ir_measures' own ``judged_only`` path fails (it indexes a generator), so the reference is
    pyndeval on the run with the unjudged documents removed, which is what that path means to do."""
    pyndeval = pytest.importorskip("pyndeval", reason="pyndeval is ndeval's reference")
    run = {qid: docs for qid, docs in run.items() if docs and qid in judgements}
    judged = {qid: {doc for doc, _ in pairs} for qid, pairs in judgements.items()}
    kept = [(qid, doc, score) for qid, docs in run.items() for doc, score in docs.items() if doc in judged[qid]]
    evaluator = pyndeval.RelevanceEvaluator(
        [(qid, s, d, g) for qid, pairs in judgements.items() for (d, s), g in pairs.items()],
        ["alpha-nDCG@5", "alpha-nDCG@20"], alpha=alpha)
    expected = evaluator.evaluate(kept)
    examples, predictions = subtopic_records(judgements, run, list(run))
    for k in (5, 20):
        metric = evalcore.get_metric(f"alpha_nDCG(alpha={alpha},judged_only=True)@{k}")
        for qid, score in zip(run, metric.score_many(examples, predictions)):
            assert score.value == pytest.approx(expected.get(qid, {}).get(f"alpha-nDCG@{k}", 0.0), abs=1e-12), qid


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(QRELS, RUNS.map(lambda run: {qid: docs for qid, docs in run.items() if docs}))
def test_record_measures_on_trec_files_match_ir_measures_on_them(tmp_path, capfd, qrels, run):
    """``evalcore evaluate --qrels --run`` hands Compat and alpha-nDCG the files' queries as records
    (judgements in file order, which Compat's ideal ranking uses last; no subtopics, so alpha-nDCG
    sees one, as ndeval does with the files' constant second column)."""
    from evalcore_retrieval._reader import TrecSource

    if not (set(qrels) & set(run)):
        return
    (tmp_path / "qrels").write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in qrels.items() for d, g in docs.items()))
    lines = (f"{q} Q0 {d} 0 {s!r} t\n" for q, docs in run.items() for d, s in docs.items())
    (tmp_path / "run").write_text("".join(lines))
    names = ["Compat(p=0.8)", "alpha_nDCG@5"]
    expected = reference(names, ir_measures.read_trec_qrels(str(tmp_path / "qrels")),
                         ir_measures.read_trec_run(str(tmp_path / "run")))
    capfd.readouterr()  # ndeval warns that every query has one subtopic
    metrics = [evalcore.get_metric(name) for name in names]
    result = evalcore.evaluate(TrecSource(tmp_path / "qrels", tmp_path / "run"), metrics, progress=False)
    for name, metric in zip(names, metrics):
        # queries only in the qrels are skipped (missing='skip'), as trec_eval does
        got = {row["id"]: row["scores"][metric.id]["value"] for row in result.samples
               if row["scores"][metric.id]["status"] == "ok"}
        assert got == pytest.approx({qid: expected[qid, name] for qid in run if qid in qrels}, abs=1e-12), name


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(SUBTOPIC_QRELS, RUNS.map(lambda run: {qid: docs for qid, docs in run.items() if docs}))
def test_alpha_ndcg_on_diversity_files_matches_ir_measures_on_them(tmp_path, judgements, run):
    """``evalcore evaluate --subtopic-qrels --run``: ir_measures reads the same qrels' second column
    as the subtopic."""
    pytest.importorskip("pyndeval", reason="pyndeval is ir_measures' provider of alpha_nDCG")
    from evalcore_retrieval._subtopic_qrels import SubtopicSource

    if not (set(judgements) & set(run)):
        return
    (tmp_path / "qrels").write_text("".join(f"{q} {s} {d} {g}\n" for q, pairs in judgements.items()
                                            for (d, s), g in pairs.items()))
    lines = (f"{q} Q0 {d} 0 {s!r} t\n" for q, docs in run.items() for d, s in docs.items())
    (tmp_path / "run").write_text("".join(lines))
    expected = reference(["alpha_nDCG@5"], ir_measures.read_trec_qrels(str(tmp_path / "qrels")),
                         ir_measures.read_trec_run(str(tmp_path / "run")))
    metric = evalcore.get_metric("alpha_nDCG@5")
    result = evalcore.evaluate(SubtopicSource(tmp_path / "qrels", tmp_path / "run"), [metric], progress=False)
    got = {row["id"]: row["scores"][metric.id]["value"] for row in result.samples
           if row["scores"][metric.id]["status"] == "ok"}
    assert got == pytest.approx({qid: expected[qid, "alpha_nDCG@5"] for qid in run if qid in judgements}, abs=1e-12)
