// The evalcore workbench page. Everything a run holds reaches the page as text (textContent),
// never as markup: a record may hold anything.
"use strict";

const main = document.getElementById("main");
const state = { timer: null };

function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (key === "on") for (const [event, fn] of Object.entries(value)) node.addEventListener(event, fn);
    else if (key === "class") node.className = value;
    else if (value !== null && value !== undefined && value !== false) node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function showError(message) {
  const box = document.getElementById("error");
  box.textContent = message;
  box.hidden = !message;
}

async function api(path, body) {
  const options = body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
  const response = await fetch(path, options);
  const data = await response.json().catch(() => ({ error: response.statusText }));
  if (!response.ok) throw new Error(data.error || response.statusText);
  showError("");
  return data;
}

function annotator() {
  return document.getElementById("annotator").value.trim();
}

function fmt(value) {
  if (value === null || value === undefined) return "–";
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : value.toFixed(4);
  return typeof value === "string" ? value : JSON.stringify(value);
}

function interval(ci) {
  return ci ? `[${fmt(ci[0])}, ${fmt(ci[1])}]` : "";
}

function text(value) {
  return el("span", { class: "text" }, typeof value === "string" ? value : JSON.stringify(value, null, 2));
}

// -- the run list, comparisons and trends -------------------------------------------------

async function showRuns() {
  const runs = await api("/api/runs");
  const chosen = new Set();
  const compare = el("button", { id: "compare", disabled: true, on: { click: () => {
    const [a, b] = [...chosen];
    location.hash = `#/compare/${a}/${b}`;
  } } }, "compare the two chosen runs");
  const rows = runs.map((run) => el("tr", { class: "run", "data-run": run.id },
    el("td", {}, el("input", { type: "checkbox", "aria-label": `choose ${run.name}`, on: { change: (e) => {
      if (e.target.checked) chosen.add(run.id); else chosen.delete(run.id);
      compare.disabled = chosen.size !== 2;
    } } })),
    el("td", {}, el("a", { href: `#/run/${run.id}` }, run.name), run.in_progress ? el("span", { class: "live" }, " in progress") : ""),
    el("td", {}, run.when ? run.when.replace("T", " ").slice(0, 19) : "–"),
    el("td", {}, run.input || "–", el("br"), el("span", { class: "muted" }, run.n_records === null ? "" : `${run.n_records} records`)),
    el("td", {}, Object.entries(run.metrics || {}).map(([id, m]) => el("div", {},
      el("b", {}, id), " ", m ? `${fmt(m.value)} ${interval(m.ci)} n=${m.n}` : "",
      m && m.metric_version ? el("span", { class: "muted" }, ` v${m.metric_version}`) : "")))));
  const metrics = [...new Set(runs.flatMap((run) => Object.keys(run.metrics || {})))];
  const pick = el("select", { id: "trend-metric", on: { change: (e) => showTrend(e.target.value) } },
    el("option", { value: "" }, "a metric…"), metrics.map((m) => el("option", { value: m }, m)));
  main.replaceChildren(
    el("h2", {}, `Runs (${runs.length})`),
    el("table", { id: "runs" }, el("colgroup", {}, el("col", { class: "c-pick" })),
      el("thead", {}, el("tr", {}, el("th", {}, ""), el("th", {}, "run"), el("th", {}, "date"), el("th", {}, "input"),
        el("th", {}, "metrics (value, 95% interval, records, version)"))),
      el("tbody", {}, rows)),
    el("p", {}, compare),
    el("h2", {}, "Trend of a metric over runs"), pick, el("div", { id: "trend" }));
}

async function showTrend(metric) {
  const box = document.getElementById("trend");
  if (!metric) { box.replaceChildren(); return; }
  const points = await api(`/api/trend?metric=${encodeURIComponent(metric)}`);
  const values = points.map((p) => p.value).filter((v) => v !== null);
  const lo = Math.min(...values), hi = Math.max(...values);
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", "0 0 400 120");
  svg.setAttribute("width", "400");
  const line = document.createElementNS("http://www.w3.org/2000/svg", "polyline");
  line.setAttribute("fill", "none");
  line.setAttribute("stroke", "#3556d8");
  line.setAttribute("points", points.map((p, i) => `${10 + i * 380 / Math.max(points.length - 1, 1)},` +
    `${110 - (hi > lo ? (p.value - lo) / (hi - lo) : 0.5) * 100}`).join(" "));
  svg.append(line);
  box.replaceChildren(svg, el("table", { class: "trend" },
    el("thead", {}, el("tr", {}, el("th", {}, "run"), el("th", {}, "date"), el("th", { class: "num" }, "value"),
      el("th", {}, "95% interval"), el("th", { class: "num" }, "records"), el("th", {}, "version"))),
    el("tbody", {}, points.map((p) => el("tr", {}, el("td", {}, p.run), el("td", {}, p.when.slice(0, 19)),
      el("td", { class: "num" }, fmt(p.value)), el("td", {}, interval(p.ci)), el("td", { class: "num" }, p.n),
      el("td", {}, p.metric_version || "–"))))));
}

async function showCompare(a, b) {
  main.replaceChildren(el("p", { class: "muted" }, "comparing…"));
  const data = await api(`/api/compare?a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}`);
  const rows = data.comparisons.map((c) => {
    const first = Object.entries(c.tests).find(([, t]) => t.p_value !== null && t.p_value !== undefined);
    const worse = c.difference !== null && (c.direction === "lower" ? c.difference > 0 : c.difference < 0);
    return el("tr", { class: "comparison" }, el("td", {}, c.metric),
      el("td", { class: "num" }, fmt(c.baseline_value)), el("td", { class: "num" }, fmt(c.system_value)),
      el("td", { class: `num ${c.difference === null ? "" : worse ? "worse" : "better"}` }, fmt(c.difference)),
      el("td", {}, interval(c.ci)),
      el("td", {}, first ? `${first[0]} p=${fmt(first[1].p_value)}, corrected ${fmt(first[1].p_adjusted)}` : "–"),
      el("td", { class: "num" }, c.n));
  });
  main.replaceChildren(el("h2", {}, `${data.systems[0]} against ${data.baseline}`),
    el("p", { class: "muted" }, `paired tests over ${data.records.compared ?? "the shared"} records, ` +
      `p-values corrected (${data.options.correction}); largest regressions first`),
    el("table", { id: "comparison" }, el("thead", {}, el("tr", {}, el("th", {}, "metric"),
      el("th", { class: "num" }, data.baseline), el("th", { class: "num" }, data.systems[0]),
      el("th", { class: "num" }, "difference"), el("th", {}, "95% interval"), el("th", {}, "test"),
      el("th", { class: "num" }, "n"))), el("tbody", {}, rows)),
    data.notes.length ? el("ul", {}, data.notes.map((n) => el("li", {}, n))) : "");
}

// -- a run's records ------------------------------------------------------------------------

async function showRun(runId) {
  const query = { metric: "", low: "", high: "", status: "", label: "", sort: "", desc: "", offset: 0, limit: 50 };
  const list = el("div", { class: "list" });
  const detail = el("div", { class: "detail", id: "record" }, el("p", { class: "muted" }, "choose a record"));
  const head = el("div", {});
  main.replaceChildren(el("div", { class: "split" }, el("div", { class: "list" }, head, list), detail));
  let known = null;
  let latest = 0;

  async function load() {
    const params = new URLSearchParams(Object.entries(query).filter(([, v]) => v !== ""));
    const asked = ++latest;
    const page = await api(`/api/runs/${runId}/records?${params}`);
    if (asked !== latest) return;  // a later request's answer is the one to show
    known = page.records;
    if (!head.firstChild) head.append(filters(page));
    list.replaceChildren(pager(page), table(page));
  }

  function filters(page) {
    const set = (key) => (e) => { query[key] = e.target.value; query.offset = 0; load(); };
    const metricOptions = () => [el("option", { value: "" }, "—"), page.metrics.map((m) => el("option", { value: m }, m))];
    const slices = Object.entries(page.slices).flatMap(([k, vs]) => vs.map((v) => `${k}=${v}`));
    return el("div", { class: "filters" },
      el("label", {}, "metric ", el("select", { id: "filter-metric", on: { change: set("metric") } }, metricOptions())),
      el("input", { id: "filter-low", placeholder: "from", size: 5, on: { change: set("low") } }),
      el("input", { id: "filter-high", placeholder: "to", size: 5, on: { change: set("high") } }),
      el("label", {}, "status ", el("select", { id: "filter-status", on: { change: set("status") } },
        ["", "ok", "skipped", "error"].map((s) => el("option", { value: s }, s || "any")))),
      el("label", {}, "slice ", el("select", { id: "filter-label", on: { change: set("label") } },
        el("option", { value: "" }, "all"), slices.map((s) => el("option", { value: s }, s)))),
      el("label", {}, "sort ", el("select", { id: "sort", on: { change: set("sort") } }, metricOptions())),
      el("label", {}, el("input", { type: "checkbox", id: "desc", on: { change: (e) => {
        query.desc = e.target.checked ? "1" : ""; load(); } } }), " descending"));
  }

  function pager(page) {
    const last = Math.max(0, Math.ceil(page.total / query.limit) - 1);
    const at = Math.floor(query.offset / query.limit);
    const go = (n) => () => { query.offset = n * query.limit; load(); };
    return el("div", { class: "pager" },
      el("button", { id: "previous", disabled: at === 0, on: { click: go(at - 1) } }, "‹ previous"),
      el("span", { id: "page-info" }, `page ${at + 1} of ${last + 1} · ${page.total} of ${page.records} records`),
      el("button", { id: "next", disabled: at >= last, on: { click: go(at + 1) } }, "next ›"));
  }

  function table(page) {
    const metrics = page.metrics.slice(0, 3);
    return el("table", { id: "records" },
      el("thead", {}, el("tr", {}, el("th", {}, "record"), el("th", {}, "status"),
        metrics.map((m) => el("th", { class: "num", title: m }, m)))),
      el("tbody", {}, page.rows.map((row) => el("tr", { class: "row", "data-id": row.id, on: { click: (e) => {
        list.querySelectorAll("tr.chosen").forEach((r) => r.classList.remove("chosen"));
        e.currentTarget.classList.add("chosen");
        openRecord(runId, row.id, detail);
      } } }, el("td", {}, row.id), el("td", { class: `status-${row.status}` }, row.status),
      metrics.map((m) => el("td", { class: "num" }, fmt(row.values[m])))))));
  }

  await load();
  state.timer = setInterval(async () => {
    const params = new URLSearchParams({ limit: 1 });
    const page = await api(`/api/runs/${runId}/records?${params}`).catch(() => null);
    if (page && page.records !== known) await load();
  }, 2000);
}

async function openRecord(runId, recordId, into) {
  const data = await api(`/api/runs/${runId}/records/${encodeURIComponent(recordId)}`);
  into.replaceChildren(...recordView(data));
}

function recordView(data) {
  const parts = [el("h3", {}, data.id)];
  if (data.note) parts.push(el("p", { class: "muted" }, data.note));
  const example = data.example || {}, prediction = data.prediction || {};
  const fields = [["input", example.query]];
  const refs = example.reference_answers ?? example.reference_answer;
  (Array.isArray(refs) ? refs : [refs]).forEach((r, i, all) => {
    if (r !== undefined) fields.push([all.length > 1 ? `reference ${i + 1}` : "reference", r]);
  });
  fields.push(["answer", prediction.response]);
  if (data.example) parts.push(el("table", { class: "fields" }, el("tbody", {}, fields.map(([name, value]) =>
    el("tr", {}, el("th", {}, name), el("td", {}, value === undefined ? "–" : text(value)))))));
  for (const view of data.views) parts.push(pluginView(view));
  for (const score of data.scores) parts.push(scoreView(score));
  if (Array.isArray(prediction.retrieved) && prediction.retrieved.length) {
    parts.push(el("h4", {}, "Retrieved documents"), el("table", { class: "docs" },
      el("thead", {}, el("tr", {}, el("th", { class: "num" }, "rank"), el("th", {}, "document"),
        el("th", { class: "num" }, "score"), el("th", {}, "text"))),
      el("tbody", {}, prediction.retrieved.map((d, i) => {
        const doc = typeof d === "object" && d !== null ? d : { doc_id: d };
        return el("tr", {}, el("td", { class: "num" }, doc.rank ?? i + 1), el("td", {}, doc.doc_id ?? doc.id ?? ""),
          el("td", { class: "num" }, fmt(doc.score)), el("td", {}, doc.text === undefined ? "" : text(doc.text)));
      }))));
  }
  if (data.example) parts.push(el("details", {}, el("summary", {}, "all fields"),
    el("pre", {}, JSON.stringify({ example, prediction }, null, 2))));
  return parts;
}

function scoreView(score) {
  const rows = [["value", fmt(score.value)], ["status", score.status]];
  for (const key of ["reason", "feedback"]) if (score[key]) rows.push([key, score[key]]);
  if (score.error) rows.push(["error", typeof score.error === "object" ? `${score.error.type}: ${score.error.message}` : score.error]);
  const block = [el("h4", {}, score.metric), el("table", { class: "score" }, el("tbody", {},
    rows.map(([k, v]) => el("tr", {}, el("th", {}, k), el("td", { class: k === "status" ? `status-${v}` : "" }, text(v))))))];
  if (score.judge) block.push(judgeView(score.judge));
  if (Object.keys(score.details).length) block.push(el("details", {}, el("summary", {}, "details"),
    el("pre", {}, JSON.stringify(score.details, null, 2))));
  return el("section", { class: "metric" }, block);
}

function judgeView(judge) {
  const rows = [];
  if (judge.model) rows.push(["model", `${judge.model}${judge.backend ? ` (${judge.backend})` : ""}`]);
  for (const key of ["prompt", "prompts", "messages"]) if (judge[key]) rows.push(["prompt", judge[key]]);
  if (judge.raw_answers) for (const [role, answers] of Object.entries(judge.raw_answers))
    answers.forEach((a, i) => rows.push([`raw answer${answers.length > 1 ? ` ${i + 1}` : ""} (${role})`, a]));
  if (judge.answers) for (const [role, a] of Object.entries(judge.answers)) rows.push([`parsed verdict (${role})`, a]);
  if (judge.explanation) rows.push(["rationale", judge.explanation]);
  if (judge.usage) rows.push(["tokens", `${judge.usage.prompt_tokens ?? 0} prompt + ${judge.usage.completion_tokens ?? 0} completion`]);
  if (judge.cost_msats !== undefined) rows.push(["cost", `${judge.cost_msats} msats`]);
  return el("div", { class: "judge" }, el("b", {}, "judge calls"), el("table", { class: "judge-calls" },
    el("tbody", {}, rows.map(([k, v]) => el("tr", {}, el("th", {}, k), el("td", {}, text(v)))))));
}

function pluginView(view) {
  if (view.error) return el("p", { class: "muted" }, `${view.title} failed: ${view.error}`);
  return el("section", { class: "view" }, el("h4", {}, view.title), view.sections.map((s) => [
    el("h5", {}, s.heading), s.text ? el("p", {}, text(s.text)) : "",
    s.rows.length ? el("table", {}, s.columns.length ? el("thead", {}, el("tr", {}, s.columns.map((c) => el("th", {}, c)))) : "",
      el("tbody", {}, s.rows.map((r) => el("tr", {}, r.map((c) => el("td", {}, text(c))))))) : "",
    s.code ? el("pre", {}, s.code) : ""]));
}

// -- annotation queues ----------------------------------------------------------------------

async function showQueues() {
  const [queues, runs] = await Promise.all([api("/api/queues"), api("/api/runs")]);
  const form = {};
  const input = (name, props) => (form[name] = el("input", { id: `queue-${name}`, ...props }));
  const runPick = (form.run = el("select", { id: "queue-run" }, runs.map((r) => el("option", { value: r.id }, r.name))));
  const metricPick = (form.metric = el("select", { id: "queue-metric" }));
  const fillMetrics = () => {
    const run = runs.find((r) => r.id === runPick.value);
    metricPick.replaceChildren(el("option", { value: "" }, "none (a free rubric)"),
      ...Object.keys((run && run.metrics) || {}).map((m) => el("option", { value: m }, m)));
  };
  runPick.addEventListener("change", fillMetrics);
  fillMetrics();
  const kind = (form.kind = el("select", { id: "queue-kind" }, ["pass_fail", "scale", "categories"].map((k) =>
    el("option", { value: k }, k.replace("_", "/")))));
  const order = (form.order = el("select", { id: "queue-order" }, [["run", "run order"],
    ["active", "active (where a label counts most)"]].map(([v, shown]) => el("option", { value: v }, shown))));
  const open = async () => {
    const body = { name: form.name.value, run: runPick.value, metric: metricPick.value, kind: kind.value,
      order: order.value };
    if (kind.value === "scale") body.scale = Number(form.scale.value);
    if (kind.value === "categories") body.categories = form.categories.value.split(",");
    try {
      const queue = await api("/api/queues", body);
      location.hash = `#/queue/${encodeURIComponent(queue.name)}`;
    } catch (error) { showError(error.message); }
  };
  main.replaceChildren(el("h2", {}, "Annotation queues"),
    el("ul", { id: "queues" }, queues.map((q) => el("li", {}, el("a", { href: `#/queue/${encodeURIComponent(q.name)}` }, q.name),
      ` — ${q.kind.replace("_", "/")}${q.metric ? ` for ${q.metric}` : ""}`))),
    el("h2", {}, "Open a queue"),
    el("div", { class: "filters" }, el("label", {}, "name ", input("name", {})), el("label", {}, "run ", runPick),
      el("label", {}, "metric ", metricPick), el("label", {}, "rubric ", kind), el("label", {}, "order ", order),
      el("label", {}, "scale 1–", input("scale", { value: "5", size: 2 })),
      el("label", {}, "categories ", input("categories", { placeholder: "a, b, c" })),
      el("button", { id: "queue-open", on: { click: open } }, "open")));
}

async function showQueue(name) {
  const path = `/api/queues/${encodeURIComponent(name)}`;
  const who = annotator();
  if (!who) {
    main.replaceChildren(el("p", {}, "Give your name as annotator (top right), then press Enter."));
    document.getElementById("annotator").focus();
    return;
  }
  const item = await api(`${path}/next?annotator=${encodeURIComponent(who)}`);
  const queue = item.queue;
  const choices = queue.kind === "pass_fail" ? [["1", "pass", "p"], ["0", "fail", "f"]]
    : queue.kind === "scale" ? Array.from({ length: queue.scale }, (_, i) => [String(i + 1), String(i + 1), String(i + 1)])
    : queue.categories.map((c, i) => [c, c, String(i + 1)]);
  const comment = el("textarea", { id: "comment", rows: 2, cols: 50, placeholder: "comment (optional)" });
  const record = item.record;
  const label = async (value) => {
    await api(`${path}/labels`, { record: record.id, annotator: who, label: value, comment: comment.value });
    showQueue(name);
  };
  const skip = async () => { await api(`${path}/skips`, { record: record.id, annotator: who }); showQueue(name); };
  const agreementBox = el("div", { id: "agreement" });
  const exportLink = el("div", {}, el("a", { id: "export", href: `${path}/export`, download: `${name}.labels.jsonl` }, "export labels (--labels)"),
    alignable(queue.metric) && queue.kind !== "categories" ? alignBox(path) : "");
  main.replaceChildren(el("h2", {}, `Queue ${queue.name}`),
    el("p", { id: "progress" }, `${who}: ${item.labelled} of ${item.total} labelled`,
      queue.metric ? ` · labels for ${queue.metric}` : " · free rubric"),
    record ? el("div", { class: "split" },
      el("div", {}, el("div", { id: "choices" }, choices.map(([value, shown, key]) =>
        el("button", { class: "choice", "data-value": value, on: { click: () => label(value) } }, `${shown} [${key}]`)),
        el("button", { class: "choice", id: "skip", on: { click: skip } }, "skip [s]")),
        el("p", {}, comment), el("p", { class: "keys" }, "keys: ", choices.map(([, shown, key]) => `${key} = ${shown}`).join(", "),
          ", s = skip; a comment is sent with the label"), el("h4", {}, "Estimate and agreement"), agreementBox, exportLink),
      el("div", { class: "detail", id: "record" }, recordView(record)))
      : el("div", {}, el("p", { id: "done" }, "Every record of this queue has your label."), agreementBox, exportLink));
  state.keys = (e) => {
    if (!record || e.target instanceof HTMLTextAreaElement || e.target instanceof HTMLInputElement) return;
    if (e.key === "s") { e.preventDefault(); skip(); return; }
    const found = choices.find(([, , key]) => key === e.key);
    if (found) { e.preventDefault(); label(found[0]); }
  };
  const estimateBox = el("p", { id: "estimate" });
  agreementBox.before(estimateBox);
  if (queue.order === "active") {
    await showActiveEstimate(path, queue, estimateBox);
  } else {
    const estimate = await api(`${path}/estimate`);
    estimateBox.replaceChildren(estimate.ppi
    ? `${queue.metric}: judge alone ${fmt(estimate.judge_mean)} · ${estimate.n_labelled} labels alone ` +
      `${fmt(estimate.labelled.value)} ${interval(estimate.labelled.ci)} · prediction-powered ` +
      `${fmt(estimate.ppi.value)} ${interval(estimate.ppi.ci)}${estimate.range_note ? ` (${estimate.range_note})` : ""}`
      : estimate.note || "");
  }
  const agreement = await api(`${path}/agreement`);
  agreementBox.replaceChildren(el("p", {}, `Krippendorff's α: ${fmt(agreement.alpha)} (annotators: ${agreement.annotators.join(", ") || "none"})`),
    el("ul", {}, agreement.pairs.map((p) => el("li", { class: "kappa" }, `${p.annotators.join(" & ")}: Cohen's κ ${fmt(p.kappa)} on ${p.n} records`))));
}

// The judged metrics evalcore align teaches: judge/custom and the one-call built-ins.
const ALIGNABLE = ["judge/custom", "judge/llm_judge", "judge/diff_semantic"];
const alignable = (metric) => Boolean(metric) && ALIGNABLE.some((id) => metric === id || metric.startsWith(`${id}(`));

// Teach the queue's judge from its labels (evalcore align) and show the old and the new judge's held-out agreement.
function alignBox(path) {
  const shown = el("div", { id: "alignment" });
  const button = el("button", { id: "align", on: { click: async () => {
    button.disabled = true;
    shown.replaceChildren(el("p", {}, "aligning the judge with the labels…"));
    try {
      const result = await api(`${path}/align`, {});
      const row = (name, hash, a) => el("tr", { class: name }, [name, hash, a.n, fmt(a.kappa), interval(a.kappa_ci),
        fmt(a.agreement), interval(a.agreement_ci), a.disagreements.length].map((v) => el("td", {}, String(v))));
      shown.replaceChildren(
        el("p", {}, `${result.train.length} labelled records learnt from, ${result.held_out.length} held out; ` +
          `${result.examples} examples added`),
        el("table", {}, el("tr", {}, ["judge", "prompt hash", "n", "Cohen's κ", "95% CI", "agreement", "95% CI",
          "disagreements"].map((h) => el("th", {}, h))),
          row("old", result.prompt_hash[0], result.before), row("new", result.prompt_hash[1], result.after)),
        el("p", {}, `κ change ${fmt(result.kappa_change)} ${interval(result.kappa_change_ci)} · next run: `,
          el("code", { id: "aligned-metric" }, result.metric)));
    } catch (error) {
      shown.replaceChildren(el("p", { class: "error" }, error.message));
    } finally {
      button.disabled = false;
    }
  } } }, "align the judge with these labels");
  return el("div", {}, button, shown);
}

// The active estimate after every label, and how many more labels reach the width asked for.
async function showActiveEstimate(path, queue, box) {
  const widthField = el("input", { id: "target-width", size: 6, value: state.width || "",
    placeholder: "e.g. 0.1" });
  const shown = el("span", { id: "active-estimate" });
  const needed = el("span", { id: "labels-needed" });
  const refresh = async () => {
    state.width = widthField.value.trim();
    const query = state.width && Number(state.width) > 0 ? `?width=${encodeURIComponent(state.width)}` : "";
    const estimate = await api(`${path}/estimate${query}`);
    shown.replaceChildren(estimate.active
      ? `${queue.metric}: judge alone ${fmt(estimate.judge_mean)} · active estimate ${fmt(estimate.active.value)} ` +
        `${interval(estimate.active.ci)}, width ${fmt(estimate.active.width)} (${estimate.active.labelled} labels, ` +
        `${estimate.active.draws} draws)`
      : estimate.note || "");
    needed.replaceChildren(estimate.labels_needed === undefined ? ""
      : `at most ${estimate.labels_needed} more labels reach width ${fmt(estimate.width)}`);
  };
  widthField.addEventListener("change", refresh);
  box.replaceChildren(shown, el("br"), el("label", {}, "interval width wanted ", widthField), " ", needed);
  await refresh();
}

// -- routing --------------------------------------------------------------------------------

async function route() {
  clearInterval(state.timer);
  state.keys = null;
  const parts = location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
  try {
    if (parts[0] === "run") await showRun(parts[1]);
    else if (parts[0] === "compare") await showCompare(parts[1], parts[2]);
    else if (parts[0] === "queues") await showQueues();
    else if (parts[0] === "queue") await showQueue(parts.slice(1).join("/"));
    else await showRuns();
  } catch (error) {
    showError(error.message);
  }
}

document.addEventListener("keydown", (e) => { if (state.keys) state.keys(e); });
const who = document.getElementById("annotator");
who.value = localStorage.getItem("evalcore-annotator") || "";
who.addEventListener("change", () => {
  localStorage.setItem("evalcore-annotator", annotator());
  if (location.hash.startsWith("#/queue/")) route();  // a queue shows the annotator's next record
});
window.addEventListener("hashchange", route);
route();
