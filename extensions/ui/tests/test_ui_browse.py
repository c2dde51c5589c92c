"""Browsing runs in a real Chromium: the run list, a run's records, a record's judge calls, two runs
compared, a metric's trend, and a run in progress updating live."""

from __future__ import annotations

import json
import statistics
import time

import pytest


def test_run_list_shows_metrics_with_intervals_inputs_and_versions(serve, rows, runs, page):
    report = json.loads((runs / "a.json").read_text())
    with serve(str(runs)) as url:
        page.goto(url)
        page.wait_for_selector("#runs tr.run")
        names = page.locator("#runs tr.run td:nth-child(2) a").all_text_contents()
        assert names == ["a", "b"]
        first = page.locator("#runs tr.run").first.text_content()
    token_f1 = report["metrics"]["overlap/token_f1"]
    assert f"{token_f1['value']:.4f} [{token_f1['ci'][0]:.4f}, {token_f1['ci'][1]:.4f}] n=12" in first
    assert "rag.jsonl" in first and "v1" in first


def test_records_page_filter_sort_and_the_judge_transcript_beside_the_list(serve, rows, runs, page):
    journal = rows(runs / "a.rows.jsonl")
    f1 = {rid: row["scores"]["overlap/token_f1"]["value"] for rid, row in journal.items()}
    with serve(str(runs)) as url:
        page.goto(url)
        page.click("#runs a >> text=a")
        page.wait_for_selector("#records tr.row")
        assert page.text_content("#page-info") == "page 1 of 1 · 12 of 12 records"
        page.select_option("#sort", "overlap/token_f1")
        page.check("#desc")
        expected = sorted(f1, key=lambda r: (-f1[r], journal[r]["i"]))  # ties in record order
        page.wait_for_function("ids => [...document.querySelectorAll('#records tr.row')].map(r => r.dataset.id)"
                               ".join() === ids.join()", arg=expected)
        page.select_option("#filter-metric", "judge/faithfulness")
        page.fill("#filter-low", "0.5")
        page.press("#filter-low", "Enter")
        passed = sorted(r for r, row in journal.items() if row["scores"]["judge/faithfulness"]["value"] >= 0.5)
        page.wait_for_function("n => document.querySelectorAll('#records tr.row').length === n", arg=len(passed))
        assert sorted(page.locator("#records tr.row").evaluate_all("rs => rs.map(r => r.dataset.id)")) == passed
        page.select_option("#filter-label", "scenario=typo")
        page.wait_for_selector("#page-info >> text=/ of 12 records/")
        page.click("#records tr.row >> nth=0")
        page.wait_for_selector("#record .judge")
        judge = page.text_content("#record .judge")
        detail = page.locator("#record").bounding_box()
        listed = page.locator("#records").bounding_box()
        widest = page.evaluate("document.documentElement.scrollWidth")
    assert "the evidence names Paris" in judge and "raw answer" in judge and "parsed verdict" in judge
    assert "judge (callable)" in judge and "0 prompt + 0 completion" in judge and "0 msats" in judge
    assert detail["x"] >= listed["x"] + listed["width"] and detail["y"] < listed["y"] + listed["height"]
    assert widest <= 1366


def test_two_runs_compared_with_largest_regressions_first(serve, rows, runs, page):
    a, b = rows(runs / "a.rows.jsonl"), rows(runs / "b.rows.jsonl")
    differences = {m: statistics.mean(b[r]["scores"][m]["value"] for r in a)
                   - statistics.mean(a[r]["scores"][m]["value"] for r in a)
                   for m in ("overlap/token_f1", "judge/faithfulness")}
    with serve(str(runs)) as url:
        page.goto(url)
        page.wait_for_selector("#runs tr.run")
        page.locator("#runs input[type=checkbox]").nth(0).check()
        page.locator("#runs input[type=checkbox]").nth(1).check()
        page.click("#compare")
        page.wait_for_selector("#comparison tr.comparison")
        shown = [page.locator("#comparison tr.comparison td").nth(i * 7 + j).text_content()
                 for i in range(2) for j in (0, 3)]
    order = sorted(differences, key=differences.get)
    assert shown[0::2] == order
    assert [float(x) for x in shown[1::2]] == pytest.approx([differences[m] for m in order], abs=5e-5)


def test_trend_of_a_metric_over_runs(serve, rows, runs, page):
    values = [json.loads((runs / f"{n}.json").read_text())["metrics"]["overlap/token_f1"]["value"] for n in "ab"]
    with serve(str(runs)) as url:
        page.goto(url)
        page.wait_for_selector("#runs tr.run")
        page.select_option("#trend-metric", "overlap/token_f1")
        page.wait_for_selector("#trend table tbody tr")
        cells = page.locator("#trend tbody td:nth-child(3)").all_text_contents()
    assert cells == [f"{v:.4f}" for v in values]


def test_a_run_in_progress_updates_live_from_its_journal(serve, rows, runs, tmp_path, page):
    lines = (runs / "a.rows.jsonl").read_text().splitlines(keepends=True)
    header, body = lines[0], [line for line in lines[1:] if '"id"' in line]
    live = tmp_path / "live"
    live.mkdir()
    journal = live / "running.rows.jsonl"
    journal.write_text(header + "".join(body[:4]))
    with serve(str(live)) as url:
        page.goto(url)
        page.click("#runs a >> text=running")
        page.wait_for_selector("#page-info >> text=4 of 4 records")
        with journal.open("a") as handle:
            handle.write("".join(body[4:9]))
        started = time.monotonic()
        page.wait_for_selector("#page-info >> text=9 of 9 records", timeout=10_000)
    assert time.monotonic() - started < 10
