"""``ggpkit perftest``: the gdl-perf engine contract, ``COMMAND GDL_FILE RESULTS_FILE SECONDS``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ggpkit.cli.app import app
from ggpkit.cli.common import os_error_line, plural


@app.command("perftest")
def perftest_command(
    gdl_file: Annotated[Path, typer.Argument(help="The game rules (KIF).")],
    results_file: Annotated[Path, typer.Argument(help="Where to write the key=value results.")],
    seconds: Annotated[float, typer.Argument(help="How long to run random rollouts.")],
    scalar: Annotated[
        bool,
        typer.Option(
            "--scalar",
            help="On the propnet, one rollout at a time on the scalar kernel (as a tree "
            "search uses it) instead of 64 at a time.",
        ),
    ] = False,
    timeout: Annotated[
        float,
        typer.Option(help="Seconds the propnet's grounding and building may take."),
    ] = 60.0,
) -> None:
    """Benchmark random rollouts on the reasoner a loaded game plays on; write gdl-perf results.

    The reasoner is the propnet where the rules ground within --timeout, else the
    join code; the results' version line names it. Loading is not timed, only the
    rollouts. A game that cannot be read or run is reported in the results file
    (``errorMessage=``), as gdl-perf expects, and the command exits with status 1.
    """
    from ggpkit.tools.perftest import perftest

    if seconds <= 0:
        raise typer.BadParameter("SECONDS must be positive")
    if timeout <= 0:
        raise typer.BadParameter("--timeout must be positive")
    unreadable = None
    try:
        with gdl_file.open("rb"):
            pass
    except OSError as e:
        unreadable = os_error_line(e)  # still reported in the results file, as gdl-perf expects
    result = perftest(gdl_file, seconds, "scalar" if scalar else "batch", timeout)
    results_file.write_text(result.lines(), encoding="utf-8")
    if result.error is not None:
        typer.echo(f"ggpkit: error: {unreadable or result.error}", err=True)
        raise typer.Exit(1)
    typer.echo(
        f"{result.engine}: {plural(result.rollouts, 'rollout')}, "
        f"{plural(result.state_changes, 'state change')} in "
        f"{result.milliseconds} ms ({result.rollouts_per_second:.1f} rollouts/s)"
    )
