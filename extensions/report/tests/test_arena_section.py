"""The report's arena section: win rates with intervals and Bradley–Terry ratings, from an arena's JSON."""

import json
from html.parser import HTMLParser

import pytest
from click.testing import CliRunner
from evalcore import write_report
from evalcore._cli.main import main  # the evalcore command, run in this process
from evalcore.plugin import InputError
from evalcore.testing import write_journal

HEADER = {"toy/pairwise": {"granularity": "sample", "direction": "higher", "metric_version": "1"}}
ARENA = {
    "metric": "toy/pairwise", "systems": ["a", "b", "<c>"], "notes": ["a: 1 records not answered by every system"],
    "options": {"seed": 0, "n_resamples": 100, "confidence": 0.9, "alpha": 0.01},
    "pairs": [{"system": "a", "against": "b", "n": 4, "wins": 1, "losses": 1, "ties": 2, "win_rate": 0.5,
               "ci": [0.125, 0.875], "n_unscored": 0},
              {"system": "a", "against": "<c>", "n": 4, "wins": 0, "losses": 4, "ties": 0, "win_rate": 0.0,
               "ci": [0.0, 0.0], "n_unscored": 0}],
    "ratings": [{"system": "<c>", "rating": 1301.4, "ci": [1200.2, 1450.0]},
                {"system": "a", "rating": 849.3, "ci": [700.0, 999.6]}],
}


class Arena(HTMLParser):
    """The text of the arena section and the rows (cells' text) of its tables."""

    def __init__(self, text):
        super().__init__()
        self.inside, self.text, self.tables = False, "", []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        if tag == "section":
            self.inside = dict(attrs).get("id") == "arena"
        elif self.inside and tag == "table":
            self.tables.append([])
        elif self.inside and tag == "tr":
            self.tables[-1].append([])
        elif self.inside and tag in ("td", "th"):
            self.tables[-1][-1].append("")

    def handle_data(self, data):
        if self.inside:
            self.text += data
            if self.tables and self.tables[-1] and self.tables[-1][-1] and self.lasttag in ("td", "th"):
                self.tables[-1][-1][-1] += data


@pytest.fixture
def run(tmp_path):
    rows = {f"r{i}": {"toy/pairwise": v} for i, v in enumerate([1.0, 0.0, 0.5, 0.5])}
    return str(write_journal(tmp_path / "pairs.jsonl", rows, metrics=HEADER))


def test_arena_section_from_json_file(tmp_path, run):
    (tmp_path / "arena.json").write_text(json.dumps(ARENA))
    out = tmp_path / "page.html"
    result = CliRunner().invoke(main, ["report", run, "--arena", str(tmp_path / "arena.json"), "-o", str(out)])
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    page = Arena(text)
    assert "Arena: toy/pairwise" in page.text
    pairs, ratings = page.tables
    assert pairs[1:] == [["a", "b", "4", "1/2/1", "0.500", "[0.125, 0.875]"],
                             ["a", "<c>", "4", "0/0/4", "0.000", "[0.000, 0.000]"]]
    assert ratings[1:] == [["1", "<c>", "1301", "[1200, 1450]"], ["2", "a", "849", "[700, 1000]"]]
    assert "90 % interval" in page.text and "a: 1 records" in page.text
    assert "<c>" not in text.replace("&lt;c&gt;", "")  # escaped, never markup


def test_arena_object_and_no_ratings_for_two_systems(tmp_path, run):
    class Result:
        def to_dict(self):
            return {**ARENA, "pairs": ARENA["pairs"][:1], "ratings": []}

    page = Arena(open(write_report(run, tmp_path / "p.html", arena=Result()), encoding="utf-8").read())
    assert "Bradley" not in page.text and "0.500" in page.text and len(page.tables) == 1


def test_not_an_arena_names_itself(tmp_path, run):
    with pytest.raises(InputError, match="arena"):
        write_report(run, tmp_path / "p.html", arena={"pairs": []})
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(InputError, match="bad.json"):
        write_report(run, tmp_path / "p.html", arena=tmp_path / "bad.json")
