"""``python -m evalcore`` runs the CLI."""

from ._cli import main

main()
