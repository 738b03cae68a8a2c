"""``ggpkit perft GAME DEPTH``: joint-move sequence counts per depth (the move-generator oracle)."""

from __future__ import annotations

from typing import Annotated

import typer

from ggpkit.cli.app import app


@app.command("perft")
def perft_command(
    game: Annotated[str, typer.Argument(help="A registered game name or a .kif path.")],
    depth: Annotated[int, typer.Argument(min=0, help="Largest depth to count.")],
    engine: Annotated[
        str, typer.Option(help="Engine of a registered game: native or gdl.")
    ] = "native",
    generic: Annotated[
        bool, typer.Option("--generic", help="Use the generic perft, not a compiled one.")
    ] = False,
) -> None:
    """Print one line `depth nodes` for each depth 1..DEPTH (nodes = joint-move sequences).

    A line that reaches a terminal state before the depth counts nothing.
    """
    from ggpkit.games.perft import perft
    from ggpkit.games.registry import load

    loaded = load(game, engine=engine)
    state = loaded.initial_state()
    for d in range(1, depth + 1):
        typer.echo(f"{d} {perft(loaded, state, d, compiled=not generic)}")
