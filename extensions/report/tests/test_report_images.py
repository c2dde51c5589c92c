"""A record's images in the report: shown inline as data URLs (the only images the page's
Content-Security-Policy allows), every other reference named as text with the reason."""

from __future__ import annotations

import base64
import json
import re

from evalcore import write_report
from evalcore.testing import run_evalcore, write_journal

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC")
HOSTILE = 'x"><script>alert(1)</script>.png'


def _page(tmp_path, example, prediction=None):
    records = [{"id": "a", "example": {"query": "q", **example}, "prediction": prediction or {"response": "r"}}]
    journal = write_journal(tmp_path / "rows.jsonl", {"a": {"overlap/exact_match": 1.0}})
    return open(write_report(str(journal), tmp_path / "r.html", inputs=records), encoding="utf-8").read()


def _images(page):
    return re.findall(r'<img src="([^"]*)"', page)


def test_a_local_image_and_a_data_url_are_shown_inline(tmp_path):
    (tmp_path / "red.png").write_bytes(PNG)
    data_url = "data:image/png;base64," + base64.b64encode(PNG).decode()
    page = _page(tmp_path, {"images": [str(tmp_path / "red.png"), data_url]})
    assert _images(page) == [data_url, data_url]  # the file, read and encoded; the data URL as it is
    csp = re.search(r'Content-Security-Policy" content="([^"]*)"', page).group(1)
    assert "img-src data:;" in csp and "default-src 'none'" in csp  # no other source is allowed


def test_images_in_conversation_turns_are_shown(tmp_path):
    data_url = "data:image/png;base64," + base64.b64encode(PNG).decode()
    turns = [{"role": "user", "content": [{"type": "text", "text": "what is this?"},
                                          {"type": "image_url", "image_url": {"url": data_url}}]}]
    assert _images(_page(tmp_path, {"turns": turns})) == [data_url]


def test_images_a_turn_carries_are_shown_in_turn_order(tmp_path):
    (tmp_path / "red.png").write_bytes(PNG)
    data_url = "data:image/png;base64," + base64.b64encode(PNG).decode()
    turns = [{"role": "user", "content": "and this one?", "images": str(tmp_path / "red.png")},
             {"role": "assistant", "content": "a red pixel"}]
    page = _page(tmp_path, {"turns": turns[:1]}, {"turns": turns[1:] + [
        {"role": "user", "content": "compare", "images": ["https://example.org/cat.png", data_url]}]})
    assert _images(page) == [data_url, data_url]  # the file, then the data URL; the URL is named, not loaded
    assert "image https://example.org/cat.png: a URL" in page


def test_what_the_page_cannot_show_is_named_and_escaped(tmp_path):
    (tmp_path / "big.png").write_bytes(PNG + b"\0" * (2 * 1024 * 1024))
    page = _page(tmp_path, {"images": ["https://example.org/cat.png", str(tmp_path / "big.png"), HOSTILE,
                                       "data:image/svg+xml;base64,PHN2Zy8+"]})
    assert _images(page) == []
    assert "image https://example.org/cat.png: a URL: the report loads nothing from outside the page" in page
    assert "over the 2097152 embedded at most" in page
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "not a PNG, JPEG, GIF or WebP data URL" in page


def test_the_report_command_shows_the_image(tmp_path):
    (tmp_path / "red.png").write_bytes(PNG)
    records = tmp_path / "records.jsonl"
    records.write_text(json.dumps({"id": "a", "example": {"query": "q", "reference_answer": "q",
                                                               "images": [str(tmp_path / "red.png")]},
                                   "prediction": {"response": "q"}}) + "\n")
    run_evalcore("evaluate", str(records), "-m", "overlap/exact_match", "-o", str(tmp_path / "r.json"))
    run_evalcore("report", str(tmp_path / "r.json"), "-o", str(tmp_path / "r.html"))
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert _images(page) == ["data:image/png;base64," + base64.b64encode(PNG).decode()]
