"""The report page: one HTML document with its style, script and plots inline.

Every value that comes from the data (metric ids, parameters, values, counts, record ids,
statuses, messages, provenance, run names) reaches the page through :func:`html.escape` or as
a number this module formats itself; JSON for the page's script goes in a
``<script type="application/json">`` block from :func:`json_script`. The Content-Security-Policy
allows only the page's own style and script, by their SHA-256 hashes.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
from collections.abc import Mapping, Sequence
from html import escape
from importlib import resources
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any

import evalcore
import numpy as np
from evalcore.plugin import Run, summary_notes

from .arena_section import arena_section
from .inputs import Inputs, load_inputs
from .plots import histogram
from .ppi_section import ppi_section
from .records import DEFAULT_RECORDS, long_text, record_view, select, status_class, value_matrix
from .side_by_side import Changes, regressions
from .slices import slices
from .summary import aggregates, failures, values_of
from .views import installed_views, plugin_views

if TYPE_CHECKING:
    from evalcore import Comparison  # evalcore-stats': a run alone is shown without it

_SHORT = {"bootstrap": "bootstrap", "randomization": "AR", "ttest": "t-test", "wilcoxon": "Wilcoxon",
          "fisher": "Fisher"}


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text(encoding="utf-8")


def _num(value: Any, fmt: str = ".4f") -> str:
    """A number formatted, anything else (a string in a hand-edited report) escaped as text."""
    if value is None:
        return "–"
    if isinstance(value, Real) and not isinstance(value, bool):
        return format(value, fmt)
    return _text(value)


def _text(value: Any) -> str:
    return escape(str(value))


def _interval(ci: Any, fmt: str = ".4f") -> str:
    if not ci:
        return "–"
    if isinstance(ci, (list, tuple)) and len(ci) == 2:
        return f"[{_num(ci[0], fmt)}, {_num(ci[1], fmt)}]"
    return _text(ci)


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def _inline(name: str, tag: str) -> str:
    """An asset's text for an inline ``<style>`` or ``<script>``, which it must not be able to end."""
    text = _asset(name).replace("\r\n", "\n")
    if f"</{tag}" in text.lower() or "<!--" in text:
        raise ValueError(f"{name} would end its <{tag}> element")
    return text


def content_security_policy(style: str, script: str) -> str:
    """The page's policy: nothing but its own inline ``style`` and ``script`` (by hash) and data: images."""
    return (f"default-src 'none'; script-src {_sha256(script)}; style-src {_sha256(style)}; img-src data:; "
            "base-uri 'none'; form-action 'none'")


_JSON_ESCAPES = {"&": "\\u0026", "<": "\\u003c", ">": "\\u003e", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def json_script(element_id: str, data: Any) -> str:
    """``data`` as a ``<script type="application/json">`` block for the page's script (``JSON.parse``).

    ``&``, ``<``, ``>``, U+2028 and U+2029 are written as ``\\u`` escapes, so no value can end the
    element or start markup inside it; non-finite numbers become ``null`` and other objects text.
    """
    text = json.dumps(_plain(data), ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    text = re.sub("[&<>\u2028\u2029]", lambda m: _JSON_ESCAPES[m.group()], text)
    return f'<script type="application/json" id="{escape(element_id)}">{text}</script>'


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, (str, bool)):
        return value
    if isinstance(value, Integral):
        return int(value)
    if isinstance(value, Real):
        return float(value) if math.isfinite(value) else None
    return str(value)


def render(run: Run, comparison: Comparison | None = None, *, others: Sequence[Run] = (),
           records: int = DEFAULT_RECORDS, inputs: Any = None, ppi: Sequence[Any] = (),
           arena: Mapping[str, Any] | None = None) -> str:
    """The whole page for ``run`` (and its comparison with the runs ``others``).

    ``ppi``: prediction-powered estimates (:func:`evalcore.ppi`'s results) to explain, of ``run`` or of its
    differences from ``others``; ``arena``: an arena's data (:func:`.arena_section.arena_data`) to show;
    ``records``: how many records the page embeds at most (see :func:`.records.select`);
    ``inputs``: the records ``run`` scored (a path or records) where its input is not the file it names.
    """
    summary = aggregates(run)
    metric_ids = list(run.metrics)
    matrix = value_matrix(run, metric_ids)
    shown = select(run, records, matrix)
    changes = [regressions(run, other, records) for other in others]
    found = load_inputs(run, set(shown).union(*(c.ids for c in changes)), inputs)
    sections = [
        _aggregate_section(summary),
        _slices_section(run, metric_ids, matrix, found),
        _plots_section([run, *others], summary),
        _comparison_section(comparison) if comparison is not None else "",
        ppi_section(ppi),
        arena_section(arena),
        _side_by_side_section(run, others, changes, found) if others else "",
        _failures_section(run),
        _records_section(run, shown, found),
        _provenance_section(run, summary),
    ]
    title = "evalcore report: " + " vs ".join(r.name for r in (run, *others))
    style, script = _inline("report.css", "style"), _inline("report.js", "script")
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head>"
        f"<meta http-equiv=\"Content-Security-Policy\" content=\"{content_security_policy(style, script)}\">"
        "<meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        f"<title>{escape(title)}</title><style>{style}</style></head><body>"
        f"<h1>{escape(title)}</h1><p class=\"muted\">{len(run.rows)} records from {escape(run.source)}"
        + (f" · stopped early: {_text(run.stopped)}" if run.stopped else "") + "</p>"
        + "".join(f"<p class=\"verdict\">verdict: {_text(v.get('text'))}</p>" for v in run.verdict or ())
        + "".join(sections)
        + f"<script>{script}</script></body></html>\n"
    )


def _aggregate_section(summary: dict[str, dict[str, Any]]) -> str:
    rows = []
    for metric_id, data in summary.items():
        cells = [_num(data.get("value")), _interval(data.get("ci")), _num(data.get("stderr")),
                 _text(data.get("n", "–")), _text(data.get("n_skipped", 0)), _text(data.get("n_errors", 0))]
        rows.append(
            f"<tr><td>{escape(metric_id)}</td>" + "".join(f"<td class=\"num\">{c}</td>" for c in cells)
            + f"<td>{_text(data.get('direction') or '')}</td><td>{_text(data.get('granularity') or '')}</td></tr>")
    notes = "".join(f"<li>{escape(line)}</li>" for line in _notes(summary))
    return ("<section id=\"aggregates\"><h2>Aggregates</h2><table><thead><tr><th>metric</th>"
            "<th class=\"num\">value</th><th class=\"num\">95% interval</th><th class=\"num\">std. error</th>"
            "<th class=\"num\">n</th><th class=\"num\">skipped</th><th class=\"num\">errors</th>"
            "<th>better</th><th>granularity</th></tr></thead><tbody>"
            + "".join(rows) + "</tbody></table>"
            + (f"<ul id=\"aggregate-notes\">{notes}</ul>" if notes else "") + "</section>")


def _notes(summary: dict[str, dict[str, Any]]) -> list[str]:
    """What the terminal prints under the table — why a metric scored few records, the noise
    between rollouts — and the agreement of a panel of judges."""
    return [*summary_notes(summary), *_agreement_lines(summary)]


def _agreement_lines(summary: dict[str, dict[str, Any]]) -> list[str]:
    lines = []
    for metric_id, data in summary.items():
        agreement = (data.get("details") or {}).get("agreement")
        if not isinstance(agreement, dict) or agreement.get("all_agree") is None:
            continue
        parts = [f"judges {', '.join(map(str, agreement.get('judges', [])))} all agree on "
                 f"{100 * agreement['all_agree']:.0f} % of {agreement.get('n')} records"]
        for key, name in (("cohen_kappa", "Cohen's κ"), ("fleiss_kappa", "Fleiss' κ")):
            if agreement.get(key) is not None:
                parts.append(f"{name} {agreement[key]:.3f}")
        for level, alpha in (agreement.get("krippendorff_alpha") or {}).items():
            if alpha is not None:
                parts.append(f"Krippendorff's α ({level}) {alpha:.3f}")
        lines.append(f"{metric_id}: " + "; ".join(parts))
    return lines


def _plots_section(runs: Sequence[Run], summary: dict[str, dict[str, Any]]) -> str:
    plots = []
    for metric_id in summary:
        corpus = runs[0].metrics.get(metric_id, {}).get("granularity") == "corpus"
        note = "<p class=\"muted\">per-record values; the corpus value is computed from merged statistics</p>"
        figures = "".join(
            "<div>" + (f"<p class=\"run-name\">{escape(other.name)}</p>" if len(runs) > 1 else "")
            + histogram(values_of(other, metric_id), title=f"{other.name} {metric_id}: per-record values") + "</div>"
            for other in runs if metric_id in other.metrics)
        plots.append(f"<figure class=\"plot\"><h3>{escape(metric_id)}</h3><div class=\"runs\">{figures}</div>"
                     f"{note if corpus else ''}</figure>")
    both = " of each run" if len(runs) > 1 else ""
    return ("<section id=\"distributions\"><h2>Distributions</h2><p class=\"muted\">Histogram of each metric's "
            f"per-record values{both}; the dashed line is the mean.</p><div class=\"plots\">"
            + "".join(plots) + "</div></section>")


def _slices_section(run: Run, metric_ids: Sequence[str], matrix: Any, found: Inputs) -> str:
    groups = slices(list(run.rows), matrix, found.labels)
    if not groups:
        why = found.note or "no record has labels"
        return f"<section id=\"slices\"><h2>Slices by label</h2><p class=\"muted\">{escape(why)}</p></section>"
    head = ("<tr><th>label</th><th>value</th><th class=\"num\">records</th>"
            + "".join(f"<th class=\"num\">{escape(m)}</th>" for m in metric_ids) + "</tr>")
    rows, wide = [], []
    for group in groups:
        if not group["values"]:
            wide.append(f"{escape(group['field'])} ({group['n_values']} values)")
            continue
        for entry in group["values"]:
            cells = "".join(
                f"<td class=\"num\" title=\"n = {m['n']}\">{_num(m['mean'])}"
                f"<span class=\"ci\"> {_interval(m['ci'], '.3f') if m['ci'] else ''}</span></td>"
                for m in entry["metrics"])
            rows.append(f"<tr><td>{escape(group['field'])}</td><td>{escape(entry['value'])}</td>"
                        f"<td class=\"num\">{entry['n']}</td>{cells}</tr>")
    note = (f"<p class=\"muted\">not sliced, too many values: {', '.join(wide)}</p>" if wide else "")
    return ("<section id=\"slices\"><h2>Slices by label</h2><p class=\"muted\">Mean of each metric's per-record "
            "values per value of each <code>labels</code> field, with its 95% bootstrap interval (seed 0).</p>"
            f"<div class=\"wide\"><table id=\"slice-table\"><thead>{head}</thead><tbody>{''.join(rows)}</tbody>"
            f"</table></div>{note}</section>")


def _comparison_section(comparison: evalcore.Comparison) -> str:
    tests, names = comparison.options["tests"], comparison.test_names
    head = ("<tr><th>metric</th><th>system</th><th class=\"num\">baseline</th><th class=\"num\">system</th>"
            "<th class=\"num\">difference</th><th class=\"num\">95% interval</th><th class=\"num\">effect</th>"
            + "".join(f"<th class=\"num\" title=\"{escape(names[t])}\">{_SHORT[t]} p</th>" for t in tests)
            + "<th>result</th></tr>")
    rows = []
    for entry in comparison.entries:
        ci = _interval(entry.ci, "+.4f")
        cells = []
        for test in tests:
            outcome = entry.tests[test]
            if outcome.p_value is None:
                cells.append(f"<td class=\"num muted\" title=\"{escape(outcome.note or '')}\">n/a</td>")
            else:
                mark = " *" if test == entry.decided_by and entry.significant else ""
                cells.append(f"<td class=\"num\" title=\"uncorrected {_num(outcome.p_value, '.4g')}\">"
                             f"{_text(comparison.format_p(outcome.p_adjusted))}{mark}</td>")
        verdict = {"system": ("better", "▲ better"), "baseline": ("worse", "▼ worse"),
                   None: ("muted", "no significant difference")}[entry.winner]
        if entry.difference is None:
            verdict = ("muted", escape(next((o.note for o in entry.tests.values() if o.note), "not compared")))
        numbers = [_num(entry.baseline_value), _num(entry.system_value), _num(entry.difference, "+.4f"), ci]
        rows.append(f"<tr><td>{escape(entry.metric)}</td><td>{escape(entry.system)}</td>"
                    + "".join(f"<td class=\"num\">{n}</td>" for n in numbers)
                    + f"<td class=\"num\" title=\"{escape(entry.effect_size_kind)}\">"
                    f"{_num(entry.effect_size, '+.3f')}</td>" + "".join(cells)
                    + f"<td class=\"{verdict[0]}\">{verdict[1]}</td></tr>")
    wins = "".join(f"<li>{escape(system)}: better on {len(w['wins'])}, worse on {len(w['losses'])}, no "
                   f"significant difference on {len(w['ties'])}"
                   + (f", not compared on {len(w['not_compared'])}" if w["not_compared"] else "") + "</li>"
                   for system, w in comparison.wins().items())
    records = "".join(
        f"<li>{escape(system)}: {_text(c['n'])} shared records"
        + (f"; left out {_text(c['only_in_baseline'])} only in the baseline and {_text(c['only_in_system'])} only "
           "in the system" if c["only_in_baseline"] or c["only_in_system"] else "")
        + "</li>" for system, c in comparison.records["systems"].items())
    notes = "".join(f"<li>{escape(n)}</li>" for n in [*comparison.notes, *detectable_lines(comparison)])
    options = comparison.options
    return (f"<section id=\"comparison\"><h2>Comparison with {escape(comparison.baseline)} (baseline)</h2>"
            f"<p class=\"muted\">p-values corrected ({_text(options['correction'])}) across all metrics and "
            f"systems; * marks the test that decides (the first that applies), significant at "
            f"{_text(options['alpha'])}; seed {_text(options['seed'])}.</p>"
            f"<div class=\"wide\"><table><thead>{head}</thead>"
            "<tbody>" + "".join(rows) + f"</tbody></table></div><ul>{wins}{records}{notes}</ul></section>")


DETECTION_POWER = 0.8


def detectable_lines(comparison: evalcore.Comparison) -> list[str]:
    """For each per-record metric compared: the smallest difference its records could detect with
    80 % power in the paired t-test at the comparison's alpha (the minimum detectable effect, in
    standard deviations of the differences and in the metric's own units)."""
    alpha = comparison.options["alpha"]
    lines = []
    for entry in comparison.entries:
        if entry.effect_size_kind != "cohen_dz" or not entry.effect_size or entry.n < 2 or not entry.difference:
            continue
        spread = abs(entry.difference / entry.effect_size)  # d_z = mean difference / sd of the differences
        effect = evalcore.plan_sample_size(sd=1.0, n=entry.n, alpha=alpha, power=DETECTION_POWER).detectable
        lines.append(f"{entry.metric} ({entry.system}): with {entry.n} paired records a difference of "
                     f"±{effect * spread:.4g} (d_z {effect:.3f}) is detected with {DETECTION_POWER:.0%} power at "
                     f"alpha {alpha:g}; evalcore plan gives the records a smaller one needs")
    return lines


def _failures_section(run: Run) -> str:
    groups = failures(run)
    if not groups:
        return "<section id=\"failures\"><h2>Failures and skips</h2><p class=\"muted\">none</p></section>"
    rows = "".join(
        f"<tr><td>{escape(g['metric'])}</td><td class=\"{status_class(g['status'])}\">{_text(g['status'])}</td>"
        f"<td class=\"num\">{_text(g['count'])}</td><td>{escape(g['message'])}</td>"
        f"<td>{escape(', '.join(g['records']))}{' …' if g['count'] > len(g['records']) else ''}</td></tr>"
        for g in groups)
    return ("<section id=\"failures\"><h2>Failures and skips</h2><table><thead><tr><th>metric</th><th>status</th>"
            "<th class=\"num\">records</th><th>message</th><th>e.g.</th></tr></thead><tbody>"
            + rows + "</tbody></table></section>")


def _records_section(run: Run, shown: Sequence[str], found: Inputs) -> str:
    metric_ids = list(run.metrics)
    head = "<tr><th>id</th>" + "".join(f"<th class=\"num\">{escape(m)}</th>" for m in metric_ids) + "</tr>"
    rows, views, label_values = [], [], {}
    installed = installed_views() if shown else []
    for index, record_id in enumerate(shown):
        row = run.rows[record_id]
        cells, statuses = [], set()
        for metric_id in metric_ids:
            score = row["scores"].get(metric_id)
            score = score if isinstance(score, dict) else {}
            status = str(score.get("status", "ok")) if score else "not run"
            statuses.add(status.replace(" ", "-"))
            value = score.get("value")
            if status == "ok" and isinstance(value, (int, float)):
                cells.append(f"<td class=\"num\" data-sort=\"{_text(repr(value))}\">{value:.4f}</td>")
            else:
                error = score.get("error")
                why = score.get("reason") or (error.get("message") if isinstance(error, dict) else error) or ""
                cells.append(f"<td class=\"num {status_class(status)}\" data-sort=\"\" title=\"{_text(why)}\">"
                             f"{_text(status if status != 'ok' else '–')}</td>")
        labels = found.labels.get(record_id, {})
        pairs = [f"{k}={v}" for k, v in labels.items()]
        label_values.update(dict.fromkeys(pairs))
        rows.append(f"<tr data-record=\"{index}\" data-status=\"{_text(' '.join(sorted(statuses)))}\" "
                    f"data-labels=\"{_text(json.dumps(pairs, ensure_ascii=False))}\">"
                    f"<td data-sort=\"{escape(record_id)}\">{escape(record_id)}</td>" + "".join(cells) + "</tr>")
        record = found.records.get(record_id)
        shown_views = plugin_views(record, installed) if record is not None else ""
        views.append(record_view(index, record_id, row, record, labels, found.note, shown_views))
    journal = run.files[-1] if run.files else run.source
    more = (f"<p class=\"muted\">{len(shown)} of {len(run.rows)} records are in this page: every record with an "
            "error or a skip (up to half), then the worst-scoring records of each metric in turn (evalcore report "
            f"--records N for more); every row is in {escape(journal)}</p>" if len(shown) < len(run.rows) else "")
    missing = f"<p class=\"muted\">{escape(found.note)}</p>" if found.note else ""
    options = "".join(f"<option value=\"{escape(p)}\">{escape(p.replace('=', ' = ', 1))}</option>"
                      for p in sorted(label_values))
    labels_filter = (f" <select id=\"label-filter\" aria-label=\"label\"><option value=\"\">any label</option>"
                     f"{options}</select>" if label_values else "")
    return ("<section id=\"records-section\"><h2>Records</h2><p><input type=\"search\" id=\"record-filter\" "
            "placeholder=\"filter: record id, value or status\" aria-label=\"filter records\"> "
            "<select id=\"status-filter\" aria-label=\"status\"><option value=\"\">any status</option>"
            "<option value=\"ok\">has ok</option><option value=\"skipped\">has skipped</option>"
            f"<option value=\"error\">has error</option></select>{labels_filter} "
            "<span id=\"record-count\" class=\"muted\"></span></p>"
            f"{more}{missing}<p class=\"muted\">Click a column to sort by it; click a record to read it.</p>"
            "<div class=\"records-layout\"><div class=\"table-wrap\">"
            f"<table id=\"records\" class=\"sortable\"><thead>{head}</thead><tbody>"
            + "".join(rows) + "</tbody></table></div><div id=\"record-view\"><p class=\"muted\" id=\"record-hint\">"
            "No record open.</p>" + "".join(views) + "</div></div></section>")


def _side_by_side_section(run: Run, others: Sequence[Run], all_changes: Sequence[Changes], found: Inputs) -> str:
    parts = []
    for k, (other, changes) in enumerate(zip(others, all_changes)):
        if not changes.ids:
            parts.append(f"<h3>{escape(other.name)}</h3><p class=\"muted\">no record scored by both runs</p>")
            continue
        theirs = load_inputs(other, set(changes.ids))
        head = ("<tr><th>id</th><th>largest regression</th>"
                + "".join(f"<th class=\"num\">{escape(m)}</th>" for m in changes.metrics)
                + f"<th>{escape(run.name)}: prediction</th><th>{escape(other.name)}: prediction</th></tr>")
        rows = []
        for n, record_id in enumerate(changes.ids):
            cells = []
            for j in range(len(changes.metrics)):
                before, after = changes.before[n, j], changes.after[n, j]
                delta = after - before
                sort = _text(repr(float(delta))) if np.isfinite(delta) else ""
                cells.append(f"<td class=\"num {_change_class(changes.signed[n, j])}\" data-sort=\"{sort}\">"
                             f"{_num(_finite(before))} → {_num(_finite(after))}"
                             f"<br><span class=\"muted\">{_num(_finite(delta), '+.4f')}</span></td>")
            worst = changes.worst[n]
            rows.append(f"<tr><td data-sort=\"{escape(record_id)}\">{escape(record_id)}</td>"
                        f"<td data-sort=\"{n}\">{escape(worst) if worst else '–'}</td>{''.join(cells)}"
                        f"<td>{_prediction(found, record_id)}</td><td>{_prediction(theirs, record_id)}</td></tr>")
        shown = (f"the {len(changes.ids)} of {changes.n_shared} shared records that changed most"
                 if len(changes.ids) < changes.n_shared else f"all {changes.n_shared} shared records")
        parts.append(f"<h3>{escape(run.name)} → {escape(other.name)}</h3><p class=\"muted\">{shown}, largest "
                     "regression first (each metric's change relative to its largest change); "
                     "red: worse, green: better.</p><div class=\"table-wrap\">"
                     f"<table id=\"side-{k}\" class=\"sortable side\"><thead>{head}</thead><tbody>"
                     + "".join(rows) + "</tbody></table></div>")
    return "<section id=\"side-by-side\"><h2>Side by side</h2>" + "".join(parts) + "</section>"


def _finite(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def _change_class(signed: float) -> str:
    return "worse" if signed < 0 else "better" if signed > 0 else ""


def _prediction(found: Inputs, record_id: str) -> str:
    record = found.records.get(record_id)
    if record is None:
        return "<span class=\"muted\">–</span>"
    response = record.prediction.get("response")
    return long_text(response) if response is not None else "<span class=\"muted\">no response</span>"


def _provenance_section(run: Run, summary: dict[str, dict[str, Any]]) -> str:
    versions = "".join(
        f"<tr><td>{escape(m)}</td><td>{escape(str(d.get('metric_version') or '–'))}</td>"
        f"<td>{escape(str(d.get('distribution') or '–'))} {escape(str(d.get('distribution_version') or ''))}</td>"
        f"<td class=\"settings\">{_settings(run.metrics.get(m) or {})}</td></tr>"
        for m, d in summary.items())
    rejected = _rejected(run.rejected)
    return ("<section id=\"provenance\"><h2>Provenance</h2><table><thead><tr><th>metric</th><th>metric version</th>"
            f"<th>distribution</th><th>settings</th></tr></thead><tbody>{versions}</tbody></table>{rejected}"
            f"<pre>{escape(json.dumps(run.provenance, indent=2, ensure_ascii=False, default=str))}</pre></section>")


def _settings(info: Mapping[str, Any]) -> str:
    """Every parameter and setting the run recorded for a metric (its judge's or embedding model's backend,
    model, base URL, sampling, prompt hash, response format ...), those without a value left out."""
    params = info.get("params")
    if not isinstance(params, Mapping):
        return "<span class=\"muted\">not recorded</span>"
    return "<br>".join(f"<code>{escape(str(k))}={escape(json.dumps(v, ensure_ascii=False, default=str))}</code>"
                       for k, v in params.items() if v is not None)


def _rejected(rejected: Sequence[Any]) -> str:
    if not rejected:
        return ""
    items = "".join(f"<li>{escape(str(r.get('source') if isinstance(r, dict) else r))}: "
                    f"{escape(str(r.get('message') if isinstance(r, dict) else ''))}</li>" for r in rejected[:50])
    return f"<h3>Rejected input ({len(rejected)})</h3><ul>{items}</ul>"
