"""Corpus metrics compared from per-record states equal sacrebleu's own paired tests."""

import numpy as np
import pytest
from evalcore import compare, get_metric
from evalcore.testing import write_journal
from sacrebleu.metrics import BLEU, CHRF
from sacrebleu.significance import PairedTest

WORDS = "the a cat dog sat on mat house red blue green runs quickly slowly near far".split()


def corpus(n, seed):
    rng = np.random.default_rng(seed)
    refs = [" ".join(rng.choice(WORDS, int(rng.integers(4, 12)))) for _ in range(n)]

    def system(noise):
        return [" ".join(w if rng.random() > noise else str(rng.choice(WORDS)) for w in r.split()) for r in refs]

    return refs, system(0.3), system(0.4)


def journal(path, metric_id, refs, hyps):
    metric = get_metric(metric_id)
    rows = {}
    for i, (ref, hyp) in enumerate(zip(refs, hyps)):
        state = metric.sample_state({"reference_answer": ref}, {"response": hyp})
        rows[f"s{i}"] = {metric_id: {"value": None, "status": "ok", "state": metric.encode_state(state)}}
    return str(write_journal(path, rows, metrics={metric_id: {"granularity": "corpus", "direction": "higher"}}))


@pytest.mark.parametrize(("metric_id", "sacre"), [("overlap/bleu", BLEU), ("overlap/chrf", CHRF)])
@pytest.mark.parametrize(("test_type", "test", "resamples"), [("bs", "bootstrap", 1000), ("ar", "randomization", 2000)])
@pytest.mark.parametrize("seed", [12345, 7])
def test_equals_sacrebleu_paired_test(tmp_path, monkeypatch, metric_id, sacre, test_type, test, resamples, seed):
    monkeypatch.setenv("SACREBLEU_SEED", str(seed))
    refs, base, system = corpus(80, seed)
    _, scores = PairedTest([("base", base), ("system", system)], {metric_id: sacre()}, [refs],
                           test_type=test_type, n_samples=resamples)()
    base_result, system_result = next(v for k, v in scores.items() if k != "System")
    ours = compare(journal(tmp_path / "base.jsonl", metric_id, refs, base),
                   journal(tmp_path / "system.jsonl", metric_id, refs, system),
                   tests=[test], n_resamples=resamples, seed=seed, correction="none").entries[0]
    assert ours.baseline_value == pytest.approx(base_result.score, abs=1e-9)
    assert ours.system_value == pytest.approx(system_result.score, abs=1e-9)
    assert ours.tests[test].p_value == system_result.p_value
    assert ours.granularity == "corpus"


def test_corpus_metric_has_no_per_record_tests_and_an_effect_size(tmp_path):
    refs, base, system = corpus(40, 3)
    ours = compare(journal(tmp_path / "b.jsonl", "overlap/bleu", refs, base),
                   journal(tmp_path / "s.jsonl", "overlap/bleu", refs, system), n_resamples=300).entries[0]
    assert ours.tests["ttest"].p_value is None and "per-record" in ours.tests["ttest"].note
    assert ours.decided_by == "bootstrap"
    low, high = ours.ci
    assert low < ours.difference < high
    assert ours.effect_size is not None and ours.effect_size_kind == "difference / bootstrap sd"


def test_distinct_n_opts_out_of_the_bootstrap_but_is_permuted(tmp_path):
    metric_id = "system/distinct_n"
    metric = get_metric(metric_id)
    rng = np.random.default_rng(0)
    paths = []
    for name, vocab in (("b", WORDS[:5]), ("s", WORDS)):
        rows = {}
        for i in range(30):
            state = metric.sample_state({}, {"response": " ".join(rng.choice(vocab, 6))})
            rows[f"r{i}"] = {metric_id: {"value": None, "status": "ok", "state": metric.encode_state(state)}}
        paths.append(str(write_journal(tmp_path / f"{name}.jsonl", rows,
                                       metrics={metric_id: {"granularity": "corpus", "direction": "higher"}})))
    entry = compare(*paths, tests=["bootstrap", "randomization"], n_resamples=500).entries[0]
    assert entry.tests["bootstrap"].p_value is None and entry.ci is None
    assert entry.decided_by == "randomization" and entry.winner == "system"


def test_report_of_a_bare_corpus_journal_shows_the_corpus_value(tmp_path):
    from evalcore import write_report
    from sacrebleu import corpus_bleu

    refs, base, _ = corpus(30, 11)
    html = open(write_report(journal(tmp_path / "b.jsonl", "overlap/bleu", refs, base), tmp_path / "r.html"),
                encoding="utf-8").read()
    assert f'<td>overlap/bleu</td><td class="num">{corpus_bleu(base, [refs]).score:.4f}</td>' in html


def test_a_corpus_value_that_cannot_be_computed_is_reported_not_compared(tmp_path):
    metric = get_metric("overlap/bleu")
    rows = {}
    for i in range(6):
        refs = ["a cat sat on the mat", "the cat sat"] if i == 0 else ["a dog ran home"]
        state = metric.sample_state({"reference_answer": refs}, {"response": "a cat ran home"})
        rows[f"r{i}"] = {"overlap/bleu": {"value": None, "status": "ok", "state": metric.encode_state(state)}}
    header = {"overlap/bleu": {"granularity": "corpus", "direction": "higher"}}
    a = str(write_journal(tmp_path / "a.jsonl", rows, metrics=header))
    b = str(write_journal(tmp_path / "b.jsonl", rows, metrics=header))
    comparison = compare(a, b)
    entry = comparison.entries[0]
    assert entry.difference is None and entry.winner is None
    assert "different numbers of references" in entry.tests["bootstrap"].note
    assert comparison.wins()["b"]["not_compared"] == ["overlap/bleu"]
    assert "not compared on 1" in comparison.table()
