"""The workbench's web application: the page, its script, and the JSON API the page reads.

``GET /api/runs`` lists the runs; ``/api/runs/{run}/records`` pages through a run's records
(filters: ``metric`` with ``low``/``high``, ``status``, ``label=key=value``; ``sort``, ``desc``,
``offset``, ``limit``); ``/api/runs/{run}/records/{id}`` is one record's view; ``/api/compare``
compares two runs (``evalcore.compare``), ``/api/trend`` follows a metric over the runs
(``evalcore.trend``); ``/api/queues`` opens annotation queues, gives each annotator the next
record (in run order, or in active order: drawn where a label narrows the estimate most), keeps
labels and skips, and says how far annotators agree; ``/api/queues/{q}/estimate`` is the metric's
estimate from the labels so far (``width``: the labels an interval that narrow still needs);
``/api/queues/{q}/export`` is the file ``--labels`` reads; ``POST /api/queues/{q}/align`` teaches
the queue's judge from its labels (``evalcore align``) and answers the old and the new judge's
held-out agreement. A bad request is answered with one line naming what is wrong.
"""

from __future__ import annotations

import contextlib
import os
import random
from collections.abc import AsyncIterator, Callable
from importlib.resources import files
from typing import Any

import attrs
import evalcore
from evalcore.plugin import EvalcoreError, InputError
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from . import active
from . import catalogue as runs_of
from .agreement import agreement
from .aligning import align_queue
from .db import is_postgres
from .index import RowIndex
from .jsontext import dumps, loads
from .labels import LabelStore, export_lines, mean_labels
from .record import record_detail
from .security import Guard

_STATIC = {"ui.js": "text/javascript; charset=utf-8", "ui.css": "text/css; charset=utf-8"}
PAGE_LIMIT = 200


@attrs.define
class Workbench:
    """What the application serves: the runs of ``folder`` / ``store``, indexed and labelled in ``data``
    (a folder of SQLite files, or a ``postgresql://`` URL)."""

    folder: str | None
    store: str | None
    data: str
    index: RowIndex = attrs.field(init=False)
    labels: LabelStore = attrs.field(init=False)
    populations: dict[tuple[str, str], tuple[int, active.Population]] = attrs.field(init=False, factory=dict)
    seed: int | None = None
    rng: random.Random = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        if is_postgres(self.data):
            self.index, self.labels = RowIndex(self.data), LabelStore(self.data)
        else:
            os.makedirs(self.data, exist_ok=True)
            self.index = RowIndex(os.path.join(self.data, "index.sqlite"))
            self.labels = LabelStore(os.path.join(self.data, "labels.sqlite"))
        self.rng = random.SystemRandom() if self.seed is None else random.Random(self.seed)

    def runs(self) -> list[runs_of.Entry]:
        return runs_of.catalogue(self.folder, self.store)

    def journal(self, run_id: str) -> str:
        entry = runs_of.find(self.runs(), run_id)
        if entry.journal is None:
            raise InputError("the run's report names no journal beside it, so its records cannot be shown",
                             source=entry.report)
        return entry.journal

    def population(self, journal: str, metric: str) -> active.Population:
        """The records an active queue for ``metric`` draws from (kept while the journal is unchanged)."""
        count = self.index.refresh(journal)
        kept = self.populations.get((journal, metric))
        if kept is None or kept[0] != count:
            kept = self.populations[(journal, metric)] = (count, active.population(self.index.judged(journal, metric)))
        return kept[1]


def create_app(folder: str | None = None, store: str | None = None, data: str | None = None,
               token: str | None = None, seed: int | None = None) -> Any:
    """The ASGI application over the runs of ``folder`` and/or ``store``; its index and labels live in
    ``data``: a folder (default: ``.evalcore-ui`` in the folder, else beside the store) or a
    ``postgresql://`` URL (a database a team's servers share); with ``token``, every
    request must carry it; ``seed`` makes the draws of queues in active order reproducible."""
    if folder is None and store is None:
        raise InputError("give a folder of runs or a store")
    where = data or os.path.join(folder or os.path.dirname(os.path.abspath(store or ".")), ".evalcore-ui")
    bench = Workbench(folder, store, where, seed)
    routes = [Route("/", _page), Route("/static/{name}", _static),
              Route("/api/runs", _api(bench, _runs)),
              Route("/api/runs/{run}/records", _api(bench, _records)),
              Route("/api/runs/{run}/records/{rid:path}", _api(bench, _record)),
              Route("/api/compare", _api(bench, _compare)),
              Route("/api/trend", _api(bench, _trend)),
              Route("/api/queues", _api(bench, _queues), methods=["GET", "POST"]),
              Route("/api/queues/{queue}/next", _api(bench, _next)),
              Route("/api/queues/{queue}/labels", _api(bench, _label), methods=["GET", "POST"]),
              Route("/api/queues/{queue}/skips", _api(bench, _skip), methods=["POST"]),
              Route("/api/queues/{queue}/agreement", _api(bench, _agreement)),
              Route("/api/queues/{queue}/estimate", _api(bench, _estimate)),
              Route("/api/queues/{queue}/export", _export(bench)),
              Route("/api/queues/{queue}/align", _api(bench, _align), methods=["POST"])]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        bench.index.close()
        bench.labels.close()

    return Guard(Starlette(routes=routes, lifespan=lifespan), token)


def _api(bench: Workbench, handler: Callable[[Workbench, Request, Any], Any]) -> Callable[[Request], Any]:
    async def endpoint(request: Request) -> Response:
        body = None
        if request.method == "POST":
            try:
                body = loads(await request.body())
            except ValueError:
                return _json({"error": "the request body is not JSON"}, 400)
        try:
            return _json(await run_in_threadpool(handler, bench, request, body))
        except EvalcoreError as exc:
            return _json({"error": str(exc)}, 400)
    return endpoint


def _json(value: Any, status: int = 200) -> Response:
    return Response(dumps(value), status_code=status, media_type="application/json")


async def _page(request: Request) -> Response:
    return Response(files(__package__).joinpath("static/index.html").read_bytes(), media_type="text/html")


async def _static(request: Request) -> Response:
    name = request.path_params["name"]
    if name not in _STATIC:
        return Response("not found", status_code=404)
    return Response(files(__package__).joinpath(f"static/{name}").read_bytes(), media_type=_STATIC[name])


def _runs(bench: Workbench, request: Request, body: Any) -> Any:
    return [{"id": e.id, **e.listing} for e in bench.runs()]


def _records(bench: Workbench, request: Request, body: Any) -> Any:
    journal = bench.journal(request.path_params["run"])
    q = request.query_params
    count = bench.index.refresh(journal)
    label = None
    if q.get("label"):
        key, sep, value = q["label"].partition("=")
        if not sep:
            raise InputError("a label slice is name=value", field="label")
        label = (key, value)
    page = bench.index.page(journal, metric=q.get("metric") or None, low=_number(q, "low"), high=_number(q, "high"),
                            status=q.get("status") or None, label=label, sort=q.get("sort") or None,
                            descending=q.get("desc") == "1", offset=int(_number(q, "offset") or 0),
                            limit=min(int(_number(q, "limit") or 50), PAGE_LIMIT))
    return {"records": count, "total": page.total, "rows": page.rows, "metrics": bench.index.metrics(journal),
            "slices": bench.index.slices(journal), "size": os.path.getsize(journal)}


def _record(bench: Workbench, request: Request, body: Any) -> Any:
    journal = bench.journal(request.path_params["run"])
    bench.index.refresh(journal)
    rid = request.path_params["rid"]
    row, item = bench.index.row(journal, rid)
    return record_detail(rid, row, item)


def _compare(bench: Workbench, request: Request, body: Any) -> Any:
    entries = bench.runs()
    a, b = (runs_of.find(entries, request.query_params.get(k, "")) for k in ("a", "b"))
    if a.report is None or b.report is None:
        raise InputError("a run in progress has no report to compare yet", field="run")
    comparison = evalcore.compare(a.report, b.report, names=[a.name, b.name], intersect=True).to_dict()
    comparison["comparisons"].sort(key=_regression)
    return comparison


def _regression(entry: dict[str, Any]) -> tuple[bool, float]:
    """Largest regressions first: the difference turned so that negative is worse."""
    difference = entry.get("difference")
    if difference is None:
        return True, 0.0
    return False, difference if entry.get("direction") != "lower" else -difference


def _trend(bench: Workbench, request: Request, body: Any) -> Any:
    metric = request.query_params.get("metric", "")
    return [p.to_dict() for p in evalcore.trend(bench.folder, metric, store=bench.store)]


def _queues(bench: Workbench, request: Request, body: Any) -> Any:
    if body is not None:
        if not isinstance(body, dict):
            raise InputError("send the queue as a JSON object")
        runs_of.find(bench.runs(), str(body.get("run", "")))
        queue = bench.labels.open_queue(str(body.get("name", "")), str(body["run"]), str(body.get("kind", "")),
                                        metric=body.get("metric") or None, scale=body.get("scale"),
                                        categories=body.get("categories") or (), order=body.get("order") or "run")
        return queue.to_dict()
    return [q.to_dict() for q in bench.labels.queues()]


def _next(bench: Workbench, request: Request, body: Any) -> Any:
    queue = bench.labels.queue(request.path_params["queue"])
    journal = bench.journal(queue.run)
    total = bench.index.refresh(journal)
    annotator = request.query_params.get("annotator", "")
    if queue.order == "active":
        people = bench.population(journal, str(queue.metric))
        rid = bench.labels.next_drawn(queue, annotator, lambda: people.draw(bench.rng), people.ids)
    else:
        rid = bench.labels.next_record(queue, annotator, lambda after: bench.index.ids(journal, after))
    mine = sum(1 for item in bench.labels.labels(queue) if item["annotator"] == annotator.strip())
    detail = record_detail(rid, *bench.index.row(journal, rid)) if rid is not None else None
    return {"queue": queue.to_dict(), "record": detail, "labelled": mine, "total": total}


def _label(bench: Workbench, request: Request, body: Any) -> Any:
    queue = bench.labels.queue(request.path_params["queue"])
    if body is None:
        return bench.labels.labels(queue)
    item = _object(body)
    journal = bench.journal(queue.run)
    rid = str(item.get("record", ""))
    bench.index.refresh(journal)
    bench.index.row(journal, rid)  # the record must be one of the run's
    bench.labels.label(queue, rid, str(item.get("annotator", "")), item.get("label"), item.get("comment"))
    return {"ok": True}


def _skip(bench: Workbench, request: Request, body: Any) -> Any:
    queue = bench.labels.queue(request.path_params["queue"])
    item = _object(body)
    journal = bench.journal(queue.run)
    rid = str(item.get("record", ""))
    bench.index.refresh(journal)
    bench.index.row(journal, rid)  # the record must be one of the run's
    bench.labels.skip(queue, rid, str(item.get("annotator", "")))
    return {"ok": True}


def _agreement(bench: Workbench, request: Request, body: Any) -> Any:
    queue = bench.labels.queue(request.path_params["queue"])
    return agreement(bench.labels.labels(queue), queue.kind)


def _estimate(bench: Workbench, request: Request, body: Any) -> Any:
    """The prediction-powered estimate of the queue's metric from the labels so far (``evalcore.ppi``)."""
    queue = bench.labels.queue(request.path_params["queue"])
    labels = mean_labels(bench.labels.labels(queue))
    if queue.metric is None or queue.kind == "categories":
        return {"note": "a queue for a metric (and labels that are numbers) has an estimate"}
    entry = runs_of.find(bench.runs(), queue.run)
    if entry.report is None:
        return {"n_labelled": len(labels), "note": "the run is still in progress"}
    if queue.order == "active":
        width = _number(request.query_params, "width")
        people = bench.population(bench.journal(queue.run), queue.metric)
        return {"n_labelled": len(labels), **active.estimate(people, bench.labels.draws(queue), labels, width)}
    if len(labels) < 2:
        return {"n_labelled": len(labels), "note": "the estimate needs at least 2 labelled records"}
    return evalcore.ppi(entry.report, {queue.metric: labels}, metrics=[queue.metric]).entries[0].to_dict()


def _align(bench: Workbench, request: Request, body: Any) -> Any:
    """The queue's judged metric (judge/custom or a one-call built-in) aligned with its labels
    (:mod:`evalcore_ui.aligning`)."""
    queue = bench.labels.queue(request.path_params["queue"])
    entry = runs_of.find(bench.runs(), queue.run)
    if entry.report is None:
        raise InputError("the run is still in progress; align its judge once it finished", field=queue.name)
    return align_queue(bench.labels, queue.name, entry.report, bench.data, seed=bench.seed or 0)


def _export(bench: Workbench) -> Callable[[Request], Any]:
    async def endpoint(request: Request) -> Response:
        try:
            queue = bench.labels.queue(request.path_params["queue"])
            text = "".join(export_lines(queue, bench.labels.labels(queue), request.query_params.get("annotator")))
        except EvalcoreError as exc:
            return _json({"error": str(exc)}, 400)
        filename = "".join(c if c.isalnum() or c in "-_" else "_" for c in queue.name) + ".labels.jsonl"
        return Response(text, media_type="application/x-ndjson",
                        headers={"content-disposition": f'attachment; filename="{filename}"'})
    return endpoint


def _object(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise InputError("send a JSON object")
    return body


def _number(query: Any, name: str) -> float | None:
    text = query.get(name)
    if text in (None, ""):
        return None
    try:
        return float(text)
    except ValueError:
        raise InputError(f"{text!r} is not a number", field=name) from None
