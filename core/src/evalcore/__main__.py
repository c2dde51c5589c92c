"""``python -m evalcore`` runs the CLI."""

from evalcore._cli.main import run

run()
