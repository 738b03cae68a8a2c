"""``ggpkit games``: list the registered games with what each declares about itself."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from ggpkit.cli.app import app
from ggpkit.games.registry import games, load


@app.command("games")
def games_command() -> None:
    """List the registered games: description, kind (roles, dynamics, utility) and extras."""
    table = Table(title="ggpkit games")
    table.add_column("name")
    table.add_column("description")
    table.add_column("kind")
    table.add_column("capabilities")
    for name, description in games().items():
        game = load(name)
        info = game.info
        kind = f"{len(game.roles)} role(s), {info.dynamics.value}, {info.utility.value}"
        table.add_row(name, description, kind, ", ".join(info.capabilities.names()))
    Console().print(table)
