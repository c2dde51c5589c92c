"""What every command shares: one-line errors and exit codes, the registry of an invocation,
JSON and table output."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import click

from evalcore._contract.display import fit_rows
from evalcore._contract.errors import EvalcoreError
from evalcore._lazy import publish

if TYPE_CHECKING:
    from evalcore._registry.listing import Listing
    from evalcore._registry.registry import Registry

EXIT_INPUT = 1
EXIT_ERROR = 2


def fail(message: str, code: int = EXIT_ERROR) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


def _stop_quietly_if_reader_left(exc: BaseException) -> None:
    """Exit as a Unix tool does when the reader of its output goes away (``evalcore list | head``)."""
    if isinstance(exc, BrokenPipeError):
        import os
        import signal

        # the flush at exit would fail again: point stdout at nothing first
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(128 + signal.SIGPIPE)


def reports_errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Print evalcore errors as one line (a traceback only with ``--debug``)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        ctx = click.get_current_context()
        try:
            return fn(*args, **kwargs)
        except (EvalcoreError, OSError) as exc:
            _stop_quietly_if_reader_left(exc)
            if ctx.obj.get("debug"):
                raise
            fail(str(exc))

    wrapper.reports_errors = True  # type: ignore[attr-defined]
    return wrapper


def handle_errors(ctx: click.Context, work: Callable[[], Any]) -> Any:
    """Run ``work``, printing evalcore errors as one line (a traceback only with ``--debug``)."""
    try:
        return work()
    except (EvalcoreError, OSError) as exc:
        _stop_quietly_if_reader_left(exc)
        if ctx.find_root().obj.get("debug"):
            raise
        fail(str(exc))


def keep_loaded(ctx: click.Context) -> None:
    """Where the command runs in a process of its own (the ``evalcore`` script), move everything made
    so far (modules, registry, metrics: kept until the process exits) out of the garbage collector's
    sight (``gc.freeze``): neither its collections during the run nor the interpreter's exit walk it and
    free it one object at a time (at exit about 35 ms of a 0.7 s run); then resume the collector that
    the script paused for the start-up. A command called in another program's process (click's test
    runner) leaves the collector alone."""
    if ctx.find_root().obj.get("own_process"):
        import gc

        gc.freeze()
        gc.enable()


def registry_of(ctx: click.Context) -> Registry:
    """The registry of this invocation, created on first use (with a warning about a foreign ``evalcore``)."""
    if "registry" not in ctx.obj:
        from evalcore._registry.registry import Registry

        registry = ctx.obj["registry"] = Registry(strict=ctx.obj["strict"],
                                                  listing_cache=not ctx.obj.get("no_list_cache"))
        warning = ctx.obj["warning"] = registry.foreign_core_warning()
        if warning:
            click.echo(f"warning: {warning}", err=True)
    return ctx.obj["registry"]


def echo_json(data: Any) -> None:
    """Print ``data`` as indented JSON (what ``--json`` prints)."""
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def echo_rows(header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """Print a table whose columns fit the terminal."""
    for line in fit_rows(header, rows):
        click.echo(line)


def render_listing(listing: Listing, family: str | None, as_json: bool) -> None:
    """Print ``listing`` (only ``family``, a family or namespace, when given) as a table or JSON."""
    from evalcore._registry.listing import HEADER

    metrics = listing.metrics
    if family is not None:
        metrics = [m for m in metrics if family in (m["family"], m["namespace"])]
        if not metrics:
            known = sorted({m["family"] for m in listing.metrics} | {m["namespace"] for m in listing.metrics})
            raise EvalcoreError(f"--family {family!r}: no installed metric has this family or namespace; "
                                f"known: {', '.join(k for k in known if k)}")
    if as_json:
        echo_json([m["data"] for m in metrics])
    else:
        echo_rows(HEADER, [m["row"] for m in metrics])
    if listing.failed:
        click.echo(f"note: {listing.failed} plugin(s) did not load cleanly; run 'evalcore plugins'", err=True)


publish(globals())
