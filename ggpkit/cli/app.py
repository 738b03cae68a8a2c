"""The Typer application object that every command module attaches its commands to."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="ggpkit",
    help="ggpkit: General Game Playing toolkit. Play, check, solve, benchmark and serve games.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


@app.callback()
def _root() -> None:
    """ggpkit: General Game Playing toolkit. Play, check, solve, benchmark and serve games."""
