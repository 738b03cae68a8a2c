"""``python -m ggpkit`` runs the command line."""

from ggpkit.cli import main

main()
