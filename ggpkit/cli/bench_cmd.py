"""``ggpkit bench``: random playouts/s and joint moves/s of every game on every engine."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ggpkit.cli.app import app
from ggpkit.cli.common import plural, stderr_progress

if TYPE_CHECKING:
    from rich.table import Table

    from ggpkit.tools.bench import BenchRow


def _table(rows: list[BenchRow], seconds: float, repeat: int) -> Table:
    from rich.table import Table

    table = Table(
        title="ggpkit bench: per CPU-second of one core, "
        f"median of {plural(repeat, 'run')} of ~{seconds:g}s"
    )
    table.add_column("game")
    table.add_column("engine")
    table.add_column("playouts/s", justify="right")
    table.add_column("joint moves/s", justify="right")
    searched = any(row.search_per_s is not None for row in rows)
    if searched:
        table.add_column("MCTS simulations/s", justify="right")
        table.add_column("sims / raw", justify="right")
        table.add_column("MCTS iterations/s", justify="right")
        table.add_column("iters / raw", justify="right")
    table.add_column("note")
    for row in rows:
        cells = [
            row.game,
            row.engine,
            _rate(row.playouts_per_s),
            _rate(row.moves_per_s),
        ]
        if searched:
            cells += [
                _rate(row.search_per_s),
                _ratio(row.search_per_s, row.playouts_per_s),
                _rate(row.search_iterations_per_s),
                _ratio(row.search_iterations_per_s, row.playouts_per_s),
            ]
        table.add_row(*cells, row.note)
    return table


def _ratio(part: float | None, whole: float | None) -> str:
    return f"{part / whole:.0%}" if part is not None and whole else "-"


def _rate(value: float | None) -> str:
    return f"{value:,.0f}" if value is not None else "-"


@app.command("bench")
def bench_command(
    games_opt: Annotated[
        str | None,
        typer.Option(
            "--games",
            help="Comma-separated game names or .kif files (default: all registered).",
        ),
    ] = None,
    engine: Annotated[str, typer.Option(help="native, gdl or all.")] = "all",
    seconds: Annotated[float, typer.Option(min=0.0001, help="Seconds per timed run.")] = 1.0,
    repeat: Annotated[int, typer.Option(min=1, help="Timed runs; the median is shown.")] = 3,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
    mcts: Annotated[
        bool,
        typer.Option(
            "--mcts",
            help="Also measure MCTS simulations/s choosing the first move (REPEAT fresh "
            "searches of SECONDS each) and its ratio to the raw playout rate.",
        ),
    ] = False,
) -> None:
    """Measure random playouts/s and joint moves/s from the initial state, on one core.

    Each game and engine gets a warm-up (compilation excluded), then REPEAT timed
    runs of about SECONDS each; the median is reported. Games that fail to load
    or run show a note instead of numbers. With --mcts, how many of those playouts
    a tree search gets through is measured too.
    """
    import json

    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    from ggpkit.games.api import GameError
    from ggpkit.games.registry import games
    from ggpkit.tools.bench import ENGINES, bench
    from ggpkit.tools.search_rate import mcts_speed

    if engine == "all":
        engines: tuple[str, ...] = ENGINES
    elif engine in ENGINES:
        engines = (engine,)
    else:
        raise GameError(f"unknown engine {engine!r}; use native, gdl or all")
    names = [n.strip() for n in games_opt.split(",") if n.strip()] if games_opt else list(games())
    known = games()
    for name in names:
        if name.endswith(".kif"):
            if not Path(name).is_file():
                raise GameError(f"{name}: no such file")
        elif name not in known:
            raise GameError(f"unknown game {name!r}; known games: {', '.join(known)}")
    columns = (
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("measured"),
        TimeElapsedColumn(),
    )
    rows: list[BenchRow] = []
    with stderr_progress(*columns) as progress:
        pairs = [(n, e) for n in names for e in (("gdl",) if n.endswith(".kif") else engines)]
        task = progress.add_task("benchmarking", total=len(pairs))
        for name, eng in pairs:  # one (game, engine) pair at a time, so the bar counts pairs
            progress.update(task, description=f"{name} ({eng})")
            rows += bench(
                [name],
                [eng],
                seconds,
                repeat,
                progress=lambda message: progress.update(task, description=message),
                search=mcts_speed if mcts else None,
            )
            progress.advance(task)
    if as_json:
        data = {
            "seconds": seconds,
            "repeat": repeat,
            "results": [row.as_dict() for row in rows],
        }
        typer.echo(json.dumps(data, indent=2))
    else:
        Console().print(_table(rows, seconds, repeat))
