"""``ggpkit games``: list the registered games."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from ggpkit.cli.app import app
from ggpkit.games.registry import games


@app.command("games")
def games_command() -> None:
    """List the registered games with a one-line description each."""
    table = Table(title="ggpkit games")
    table.add_column("name")
    table.add_column("description")
    for name, description in games().items():
        table.add_row(name, description)
    Console().print(table)
