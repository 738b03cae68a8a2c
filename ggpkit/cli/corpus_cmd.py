"""``ggpkit corpus [DIR]``: load, check and play random matches of every public GDL game."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ggpkit.cli.app import app
from ggpkit.cli.common import plural, stderr_progress

if TYPE_CHECKING:
    from rich.table import Table

    from ggpkit.tools.corpus import GameResult


@app.command("corpus")
def corpus_command(
    folder: Annotated[
        Path | None,
        typer.Argument(
            help="Folder of .kif games (default: the GDL games of the game library: "
            "those fetched, the folders added and $GGPKIT_GAMES_DIR; see ggpkit games)."
        ),
    ] = None,
    timeout: Annotated[
        float, typer.Option("--timeout", min=0.1, help="Seconds allowed per game (all matches).")
    ] = 60.0,
    matches: Annotated[
        int, typer.Option("--matches", "-n", min=1, help="Random matches per game.")
    ] = 1,
    reasoner: Annotated[
        str,
        typer.Option(
            help="Reasoner: auto (propnet where grounding succeeds, as ggpkit.load), "
            "prover (the reference), joincode (the prover as generated code) or propnet."
        ),
    ] = "auto",
    seed: Annotated[int, typer.Option(help="Seed of the random matches.")] = 0,
    only: Annotated[
        str | None, typer.Option("--only", help="Comma-separated game names to run (no .kif).")
    ] = None,
    slowest: Annotated[
        int,
        typer.Option(
            "--slowest",
            min=0,
            help="Also list the N slowest games with their load and play times (0: none).",
        ),
    ] = 20,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")] = False,
) -> None:
    """Play N random matches of every .kif game in a folder (or the library), each in its own
    process.

    Every game ends as played (terminal reached, one goal value per role in every
    match) or rejected with a reason: syntax error, check error, reasoner
    error, no legal move, goal error, no terminal, timeout or crash. Prints the
    rejected games, the counts, the slowest games (load, check and compile time
    apart from play) and the time per game.
    """
    paths, names, where = _game_paths(folder, only, reasoner)
    results = _run_with_progress(paths, names, matches, timeout, seed, reasoner)
    if as_json:
        _print_json(results, where, matches, timeout, reasoner)
    else:
        _print_tables(results, matches, slowest)


def _game_paths(
    folder: Path | None, only: str | None, reasoner: str
) -> tuple[list[Path], dict[Path, str], str]:
    """The .kif files to run, their names, and where they are from (the folder, or
    ``library``); checked before any starts: a bad option fails at once."""
    from ggpkit.games.api import GameError
    from ggpkit.games.gdl.game import REASONERS
    from ggpkit.tools.corpus import game_files, library_game_files

    if reasoner not in REASONERS:
        raise GameError(f"unknown reasoner {reasoner!r}; use one of {', '.join(REASONERS)}")
    if folder is None:
        by_name = library_game_files()
        where = "library"
    elif not folder.is_dir():
        raise GameError(f"no games folder at {folder}")
    else:
        by_name = {p.stem: p for p in game_files(folder)}
        where = str(folder)
    if only:
        wanted = {n.strip() for n in only.split(",") if n.strip()}
        by_name = {n: p for n, p in by_name.items() if n in wanted}
    if not by_name:
        if folder is not None:
            raise GameError(f"no .kif games in {folder}")
        raise GameError(
            "no GDL games in the game library: ggpkit games fetch NAME... (or --all) fetches "
            "some, ggpkit games add DIR adds a folder of them; or give DIR"
        )
    return list(by_name.values()), {p: n for n, p in by_name.items()}, where


def _run_with_progress(
    paths: list[Path],
    names: dict[Path, str],
    matches: int,
    timeout: float,
    seed: int,
    reasoner: str,
) -> list[GameResult]:
    """Every game run, with a progress bar on stderr naming the last game done."""
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn

    from ggpkit.tools.corpus import run_corpus

    with stderr_progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    ) as progress:
        task = progress.add_task("games", total=len(paths))

        def advance(result: GameResult) -> None:
            progress.update(task, advance=1, description=f"{result.name}: {result.status}")

        return run_corpus(paths, matches, timeout, seed, reasoner, on_result=advance, names=names)


def _print_json(
    results: list[GameResult], where: str, matches: int, timeout: float, reasoner: str
) -> None:
    import json

    from ggpkit.tools.corpus import summary

    data = {
        "folder": where,
        "matches": matches,
        "timeout": timeout,
        "reasoner": reasoner,
        "counts": summary(results),
        "results": [r.as_dict() for r in results],
    }
    typer.echo(json.dumps(data, indent=2))


def _print_tables(results: list[GameResult], matches: int, slowest: int) -> None:
    """The rejected games, the counts, the slowest games and the time per game."""
    import statistics

    from rich.console import Console
    from rich.table import Table

    from ggpkit.tools.corpus import PLAYED, summary

    out = Console()
    rejected = [r for r in results if r.status != PLAYED]
    if rejected:
        table = Table(title="rejected games")
        table.add_column("game")
        table.add_column("reason")
        table.add_column("detail", overflow="fold")
        for r in rejected:
            table.add_row(r.name, r.reason, r.detail)
        out.print(table)
    counts_table = Table(
        title=f"{plural(len(results), 'game')}, {plural(matches, 'random match')} each"
    )
    counts_table.add_column("outcome")
    counts_table.add_column("games", justify="right")
    for k, n in summary(results).items():
        counts_table.add_row(k, str(n))
    out.print(counts_table)
    if slowest:
        out.print(_slowest_table(results, slowest))
    times = [r.seconds for r in results]
    played_times = [r.seconds for r in results if r.status == PLAYED]
    out.print(
        f"time per game: median {statistics.median(times):.2f} s, "
        f"mean {statistics.fmean(times):.2f} s, total {sum(times):.1f} s"
        + (f"; played games median {statistics.median(played_times):.2f} s" if played_times else "")
    )


def _slowest_table(results: list[GameResult], n: int) -> Table:
    """The ``n`` games that took longest, with their load and play times apart: a start
    clock must cover the load, a play clock the moves."""
    from rich.table import Table

    table = Table(title=f"slowest {plural(min(n, len(results)), 'game')}")
    for name in ("game", "outcome", "reasoner"):
        table.add_column(name)
    for name in ("load s", "play s", "total s", "moves"):
        table.add_column(name, justify="right")
    for r in sorted(results, key=lambda r: r.seconds, reverse=True)[:n]:
        outcome = r.status if not r.reason else r.reason
        table.add_row(
            r.name, outcome, r.reasoner, f"{r.load_seconds:.1f}", f"{r.play_seconds:.1f}",
            f"{r.seconds:.1f}", str(r.moves),
        )  # fmt: skip
    return table
