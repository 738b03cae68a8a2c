"""``ggpkit check FILE.kif``: the static checks of a GDL game description, one line each."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ggpkit.cli.app import app
from ggpkit.gdl.checker import check_file


@app.command("check")
def check_command(
    files: Annotated[list[Path], typer.Argument(help="GDL game descriptions (.kif) to check.")],
    warnings: Annotated[
        bool, typer.Option("--warnings/--no-warnings", help="Also print warnings.")
    ] = True,
) -> None:
    """Check GDL files: syntax, arities, keyword use, safety, stratification, recursion.

    Each problem is one line ``file:line:col: error|warning: message``. The exit
    status is 1 when any file has an error, 0 otherwise (warnings do not fail).
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
    if failed:
        raise typer.Exit(1)
