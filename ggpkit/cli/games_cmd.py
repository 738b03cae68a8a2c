"""``ggpkit games``: list the registered games with what each declares about itself."""

from __future__ import annotations

from ggpkit.cli.app import app


@app.command("games")
def games_command() -> None:
    """List the registered games: description, kind (roles, dynamics, utility) and extras."""
    # All from the registry (its summary of each game's declarations): listing the games
    # imports no engine and compiles nothing.
    from rich.console import Console
    from rich.table import Table

    from ggpkit.games.registry import games, summary

    table = Table(title="ggpkit games")
    table.add_column("name")
    table.add_column("description")
    table.add_column("kind")
    table.add_column("capabilities")
    for name, description in games().items():
        game = summary(name)
        kind = f"{len(game.roles)} role(s), {game.dynamics.value}, {game.utility.value}"
        table.add_row(name, description, kind, ", ".join(game.capabilities))
    Console().print(table)
