"""``ggpkit perft GAME DEPTH``: joint-move sequence counts per depth (the move-generator oracle)."""

from __future__ import annotations

import time
from typing import Annotated

import typer

from ggpkit.cli.app import app
from ggpkit.cli.common import status_line


@app.command("perft")
def perft_command(
    game: Annotated[str, typer.Argument(help="A registered or library game name, or a .kif path.")],
    depth: Annotated[int, typer.Argument(min=0, help="Largest depth to count.")],
    engine: Annotated[
        str, typer.Option(help="Engine of a registered game: native or gdl.")
    ] = "native",
    generic: Annotated[
        bool, typer.Option("--generic", help="Use the generic perft, not a compiled one.")
    ] = False,
) -> None:
    """Print one line `depth nodes` for each depth 1..DEPTH (nodes = joint-move sequences).

    A line that reaches a terminal state before the depth counts nothing. While a depth
    is counted, stderr shows an estimate of its time: the last depth's time times the
    growth of the counts so far.
    """
    from ggpkit.games.perft import perft
    from ggpkit.games.registry import load

    loaded = load(game, engine=engine)
    state = loaded.initial_state()
    counts: list[int] = []
    seconds = 0.0
    with status_line("counting") as say:
        for d in range(1, depth + 1):
            say(f"depth {d}{_estimate(counts, seconds)}")
            started = time.perf_counter()
            counts.append(perft(loaded, state, d, compiled=not generic))
            seconds = time.perf_counter() - started
            typer.echo(f"{d} {counts[-1]}")


def _estimate(counts: list[int], seconds: float) -> str:
    """``, about N s`` for the next depth: the last time times the last growth of the counts."""
    if len(counts) < 2 or counts[-2] == 0 or seconds < 0.5:
        return ""
    return f", about {seconds * counts[-1] / counts[-2]:.0f} s"
