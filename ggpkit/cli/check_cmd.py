"""``ggpkit check FILE.kif``: the static checks of a GDL game description, one line each.

The checks are strict: a defect that ``ggpkit.load`` repairs (``ggpkit.gdl.repairs``,
the reading a Prolog-style reasoner gives it) is still an error here, so that the game's
author sees it; one line then says that ``ggpkit.load`` repairs the file's errors, one
warning per repair says how, and the file is loaded repaired. A warning that ``load``
acts on (a relation never defined, one letter from a defined one: read as that one) is
shown the same way, in a file that still passes. A file without errors
(or with repaired ones) is then loaded as ``ggpkit.load`` would load it, and the
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
from ggpkit.gdl.checker import Problem, check_file


def describe_game(game: Game[Any]) -> str:
    """One line on what a loaded game is: roles, dynamics, utility and its reasoner."""
    info = game.info
    roles = ", ".join(game.roles)
    return (
        f"{len(game.roles)} role(s) ({roles}), {info.dynamics.value}, {info.utility.value}; "
        f"reasoner: {info.reasoner}"
    )


def _repairs(path: Path, problems: list[Problem]) -> list[Problem]:
    """The repairs ``ggpkit.load`` makes of a file's errors; none when an error stays."""
    from ggpkit.gdl.kif import GdlSyntaxError, parse_rules, read_kif_file
    from ggpkit.gdl.repairs import repair_rules

    try:
        repaired = repair_rules(parse_rules(read_kif_file(path), str(path)), problems)
    except GdlSyntaxError:
        return []
    return [] if repaired.errors else list(repaired.repairs)


def _reread(problems: list[Problem]) -> bool:
    """True when a warning is one that ``ggpkit.load`` may act on (a relation never
    defined, read as a misspelling where one defined relation is one letter away)."""
    return any(p.code == "undefined" and p.severity == "warning" for p in problems)


def _repairs_note(n_err: int, n_repairs: int) -> str:
    """What ``ggpkit.load`` makes of the problems printed above it."""
    if n_err:
        return (
            f"ggpkit.load repairs these {n_err} error(s): {n_repairs} repair(s), each read "
            "as its warning says"
        )
    return f"ggpkit.load reads these warnings so: {n_repairs} repair(s), each as its warning says"


def _load_and_describe(
    path: Path, check_seconds: float, stats: bool, repaired: bool = False
) -> Game[Any] | None:
    """Load the game and print what it is (and with ``stats``, where the time went).

    A ``repaired`` file is loaded checked, as ``ggpkit.load`` loads it: the checks find
    the errors the repairs read; its repairs, printed already, are not printed again."""
    from ggpkit.games.gdl.game import load_kif_file

    try:
        game = load_kif_file(path, check=repaired)
    except GgpkitError as e:
        typer.echo(f"{path}: error: the game does not load: {e}")
        return None
    typer.echo(f"{path}: {describe_game(game)}")
    for note in game.info.notes:
        if not (repaired and note in game.rule_notes and ": warning: " in note):
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
    move. Errors that ``ggpkit.load`` repairs stay errors here; one line says that it
    repairs them and a warning per repair says how, and the file is loaded repaired (so
    too for a misspelt relation, a warning that ``load`` reads as the relation meant). The
    exit status is 1 when any file has an error or does not load, 0 otherwise (warnings
    do not fail). ``--stats`` adds one line on where the loading time went.
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
        repairs = _repairs(path, problems) if n_err or _reread(problems) else []
        if repairs:
            typer.echo(f"{path}: note: {_repairs_note(n_err, len(repairs))}")
            for p in repairs:
                if warnings:
                    typer.echo(str(p))
            n_warn += len(repairs)
        if load and (n_err == 0 or repairs):
            game = _load_and_describe(path, check_seconds, stats, repaired=bool(repairs))
            failed = failed or game is None
            if game is not None and playouts > 0:
                n_warn += _probe_warnings(path, game, playouts, warnings)
        typer.echo(f"{path}: {n_err} error(s), {n_warn} warning(s)", err=True)
    if failed:
        raise typer.Exit(1)
