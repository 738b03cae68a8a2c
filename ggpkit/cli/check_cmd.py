"""``ggpkit check FILE.kif``: the static checks of a GDL game description, one line each.

A file without errors is then loaded as ``ggpkit.load`` would load it, and the
command says what the game is (its declared ``GameInfo``) and which reasoner runs
it, with the reason when the fast propnet could not be used. A few seeded random
playouts of the loaded game (``ggpkit.games.gdl.playout_probe``) then warn when one
reaches a non-terminal state where a role has no legal move.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from ggpkit.cli.app import app
from ggpkit.errors import GgpkitError
from ggpkit.games.api import Game
from ggpkit.gdl.checker import check_file


def describe_game(game: Game[Any]) -> str:
    """One line on what a loaded game is: roles, dynamics, utility and its reasoner."""
    info = game.info
    roles = ", ".join(game.roles)
    return (
        f"{len(game.roles)} role(s) ({roles}), {info.dynamics.value}, {info.utility.value}; "
        f"reasoner: {info.reasoner}"
    )


def _load_and_describe(path: Path, check_seconds: float, stats: bool) -> Game[Any] | None:
    """Load the game and print what it is (and with ``stats``, where the time went)."""
    from ggpkit.games.gdl.game import load_kif_file

    try:
        game = load_kif_file(path, check=False)
    except GgpkitError as e:
        typer.echo(f"{path}: error: the game does not load: {e}")
        return None
    typer.echo(f"{path}: {describe_game(game)}")
    for note in game.info.notes:
        typer.echo(f"{path}: note: {note}")
    report = game.load_report
    if stats and report is not None:
        report = dataclasses.replace(report, check_seconds=check_seconds)
        total = report.parse_seconds + report.check_seconds + report.compile_seconds
        typer.echo(f"{path}: stats: {report.describe()}; total {total:.2f} s")
    return game


def _probe_warnings(path: Path, game: Game[Any], playouts: int, show: bool) -> int:
    """Warn when random playouts reach a state where a role has no legal move (legal GDL
    the static checks cannot see, but no match can go on from there); the count of warnings."""
    from ggpkit.games.gdl.playout_probe import find_stuck_state

    try:
        stuck = find_stuck_state(game, playouts=playouts)
    except GgpkitError as e:
        message = f"a random playout stopped on an error: {e}"
    else:
        if stuck is None:
            return 0
        message = str(stuck)
    if show:
        typer.echo(f"{path}: warning: {message}")
    return 1


@app.command("check")
def check_command(
    files: Annotated[list[Path], typer.Argument(help="GDL game descriptions (.kif) to check.")],
    warnings: Annotated[
        bool, typer.Option("--warnings/--no-warnings", help="Also print warnings.")
    ] = True,
    load: Annotated[
        bool,
        typer.Option(
            "--load/--no-load",
            help="Also load a file without errors and say which reasoner runs it, and why.",
        ),
    ] = True,
    playouts: Annotated[
        int,
        typer.Option(
            "--playouts",
            min=0,
            help="Random playouts of a loaded game that look for a state where a role has "
            "no legal move (seeded, a few seconds at most; 0: none).",
        ),
    ] = 20,
    stats: Annotated[
        bool,
        typer.Option(
            "--stats",
            help="Also print how long each phase of loading took: parse, check, and the "
            "propnet's estimate, grounding and build (with their sizes).",
        ),
    ] = False,
) -> None:
    """Check GDL files: syntax, arities, keyword use, safety, stratification, recursion.

    Each problem is one line ``file:line:col: error|warning: message``. A file without
    errors is then loaded: one line says what the game is and which reasoner runs it
    (propnet, or the join code with the reason the propnet could not be built), and a few
    random playouts warn when one reaches a non-terminal state where a role has no legal
    move. The exit status is 1 when any file has an error or does not load, 0 otherwise
    (warnings do not fail). ``--stats`` adds one line on where the loading time went.
    """
    failed = False
    for path in files:
        began = time.perf_counter()
        problems = check_file(path)
        check_seconds = time.perf_counter() - began
        shown = [p for p in problems if warnings or p.severity == "error"]
        for p in shown:
            typer.echo(str(p))
        n_err = sum(1 for p in problems if p.severity == "error")
        n_warn = len(problems) - n_err
        failed = failed or n_err > 0
        if load and n_err == 0:
            game = _load_and_describe(path, check_seconds, stats)
            failed = failed or game is None
            if game is not None and playouts > 0:
                n_warn += _probe_warnings(path, game, playouts, warnings)
        typer.echo(f"{path}: {n_err} error(s), {n_warn} warning(s)", err=True)
    if failed:
        raise typer.Exit(1)
