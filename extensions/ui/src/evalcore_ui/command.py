"""``evalcore ui``: the workbench's server, on the command line."""

from __future__ import annotations

import secrets
import socket

import click

LOOPBACK = ("127.0.0.1", "localhost", "::1")


@click.command("ui")
@click.argument("folder", required=False, type=click.Path(exists=True, file_okay=False))
@click.option("--store", type=click.Path(dir_okay=False), metavar="FILE|URL",
              help="A 'runs --store' file of saved runs (with or instead of FOLDER); or a postgresql:// URL: "
              "the database a team's servers share for the record index and labels (needs "
              "evalcore-ui[postgres]; FOLDER names the runs).")
@click.option("--port", default=8765, show_default=True, type=click.IntRange(0, 65535),
              help="The port to listen on (0: any free port).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on; any but this machine's needs the token the printed address holds.")
@click.option("--data", type=click.Path(file_okay=False), metavar="DIRECTORY|URL",
              help="Where the record index and the labels are kept (default: .evalcore-ui in FOLDER, else "
              "beside the store; a postgresql:// URL as with --store).")
@click.option("--seed", type=int, help="Seed of the draws of queues in active order (default: unpredictable).")
def ui_command(folder: str | None, store: str | None, port: int, host: str, data: str | None,
               seed: int | None) -> None:
    """Open the evaluation workbench: runs, records, comparisons, trends and annotation queues in the browser."""
    import uvicorn

    from .app import create_app
    from .db import is_postgres

    if store is not None and is_postgres(store):
        if data is not None:
            raise click.UsageError("give --data or a postgresql:// --store, not both")
        store, data = None, store
        if folder is None:
            raise click.UsageError("a postgresql:// store keeps the record index and labels: give the FOLDER of runs")
    if folder is None and store is None:
        raise click.UsageError("give a FOLDER of runs or --store DB")
    token = None if host in LOOPBACK else secrets.token_urlsafe(24)
    app = create_app(folder, store, data, token=token, seed=seed)
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)  # connections wait in the backlog until the server accepts them
    except OSError as exc:
        raise click.ClickException(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    click.echo(f"evalcore ui: http://{shown}:{bound}/" + (f"?token={token}" if token else ""))
    config = uvicorn.Config(app, log_level="warning", access_log=False)
    uvicorn.Server(config).run(sockets=[sock])
