"""``evalcore watch``: receive OpenTelemetry traces over OTLP/HTTP and score them as they arrive."""

from __future__ import annotations

import asyncio
import logging

import click
from evalcore.plugin import reports_errors

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
@reports_errors
def watch_command(config_path: str | None, metrics: tuple[str, ...], **flags: object) -> None:
    """Receive OpenTelemetry traces (OTLP/HTTP, protobuf or JSON, at /v1/traces), score each complete
    trace with the metrics named, keep everything in the store, and raise alarms."""
    from .config import load_config

    config = load_config(config_path, metrics, **flags)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    try:
        asyncio.run(_serve(config))
    except KeyboardInterrupt:
        pass


async def _serve(config: object) -> None:
    from .server import Watch

    await Watch(config).serve()  # type: ignore[arg-type]
