"""``ggpkit check FILE.kif``: the static checks of a GDL game description, one line each.

A file without errors is then loaded as ``ggpkit.load`` would load it, and the
command says what the game is (its declared ``GameInfo``) and which reasoner runs
it, with the reason when the fast propnet could not be used.
"""

from __future__ import annotations

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


def _load_and_describe(path: Path) -> bool:
    """Load the game and print what it is; False when it does not load."""
    from ggpkit.games.gdl_game import load_kif_file

    try:
        game = load_kif_file(path, check=False)
    except GgpkitError as e:
        typer.echo(f"{path}: error: the game does not load: {e}")
        return False
    typer.echo(f"{path}: {describe_game(game)}")
    for note in game.info.notes:
        typer.echo(f"{path}: note: {note}")
    return True


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
) -> None:
    """Check GDL files: syntax, arities, keyword use, safety, stratification, recursion.

    Each problem is one line ``file:line:col: error|warning: message``. A file without
    errors is then loaded: one line says what the game is and which reasoner runs it
    (propnet, or the prover with the reason the propnet could not be built). The exit
    status is 1 when any file has an error or does not load, 0 otherwise (warnings do
    not fail).
    """
    failed = False
    for path in files:
        problems = check_file(path)
        shown = [p for p in problems if warnings or p.severity == "error"]
        for p in shown:
            typer.echo(str(p))
        n_err = sum(1 for p in problems if p.severity == "error")
        n_warn = len(problems) - n_err
        failed = failed or n_err > 0
        typer.echo(f"{path}: {n_err} error(s), {n_warn} warning(s)", err=True)
        if load and n_err == 0 and not _load_and_describe(path):
            failed = True
    if failed:
        raise typer.Exit(1)
