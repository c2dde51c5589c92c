"""``evalcore watch``: receive OpenTelemetry traces over OTLP/HTTP and score them as they arrive."""

from __future__ import annotations

import asyncio
import logging

import click
from evalcore.plugin import InputError, reports_errors

__all__ = ["watch_command"]


@click.command("watch")
@click.option("--config", "config_path", type=click.Path(dir_okay=False, exists=True),
              help="TOML file: [watch] settings, [[score]] rules, [budget], [[monitor]] alarms.")
@click.option("-m", "--metric", "metrics", multiple=True, help="Score every trace with this metric (repeatable).")
@click.option("--host", default=None, help="Address to listen on (default 127.0.0.1).")
@click.option("--port", type=int, default=None, help="Port to listen on (default 4318, OTLP/HTTP's).")
@click.option("--store", default=None, type=click.Path(file_okay=False),
              help="Folder of the spool, batches and runs (default watch-store).")
@click.option("--webhook", default=None, help="URL that alarms are POSTed to as JSON.")
@click.option("--max-queue-spans", type=int, default=None,
              help="Spans held before scoring; beyond it requests are answered 429 with Retry-After.")
@click.option("--batch-size", type=int, default=None, help="Traces scored together (one run per batch).")
@click.option("--trace-timeout-s", type=float, default=None,
              help="Seconds after a trace's last span before it is scored without its root span.")
@click.option("--executor", default=None, metavar="NAME",
              help="Where batches are scored: local (default), or an executor a plugin provides "
                   "(ray from evalcore-ray).")
@click.option("--executor-option", "executor_options", multiple=True, metavar="NAME=VALUE",
              help="An option of the executor, by the name its plugin declares, e.g. address=ray://head:10001 "
                   "(repeatable).")
@click.option("--chunk-size", type=click.IntRange(min=1), default=None,
              help="Traces per chunk of a batch: with the Ray executor, the traces of one task.")
@reports_errors
def watch_command(config_path: str | None, metrics: tuple[str, ...], executor_options: tuple[str, ...],
                  **flags: object) -> None:
    """Receive OpenTelemetry traces (OTLP/HTTP, protobuf or JSON, at /v1/traces), score each complete
    trace with the metrics named, keep everything in the store, and raise alarms."""
    from .config import load_config

    config = load_config(config_path, metrics, executor_options=_pairs(executor_options), **flags)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    try:
        asyncio.run(_serve(config))
    except KeyboardInterrupt:
        pass


def _pairs(given: tuple[str, ...]) -> dict[str, str]:
    """``NAME=VALUE`` strings as a dict; one without ``=`` is an error naming it."""
    pairs = {}
    for item in given:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise InputError(f"expected NAME=VALUE, got {item!r}", field="--executor-option")
        pairs[name.strip()] = value
    return pairs


async def _serve(config: object) -> None:
    from .server import Watch

    await Watch(config).serve()  # type: ignore[arg-type]
