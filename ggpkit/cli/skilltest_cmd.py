"""``ggpkit skilltest SPEC``: score an agent on positions whose good moves a solver knows."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ggpkit.cli.app import app
from ggpkit.cli.common import fail, plural

if TYPE_CHECKING:
    from ggpkit.games.api import Game


@app.command(
    "skilltest",
    help="Score an agent on positions of public games (tic-tac-toe, nim, sum15, ...) "
    "where an exact solver found which moves keep the player's value. A point for each "
    "position where the agent plays one of them; the score is the share of points. "
    "Public games are read from --games-dir, else from the game library (ggpkit games "
    "fetch ticTacToe nim1 nim2 sum15 toetictac); positions of missing games are skipped.",
)
def skilltest_command(
    spec: Annotated[str, typer.Argument(help="Agent spec, e.g. mcts:time=1 or random.")],
    time: Annotated[float, typer.Option("--time", min=0.01, help="Seconds per move.")] = 1.0,
    seed: Annotated[int, typer.Option(help="Seed of the agents.")] = 0,
    games_dir: Annotated[
        Path | None,
        typer.Option(help="Folder of the public games (default: the game library)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
) -> None:
    """Play every position once and print the score per game and overall."""
    import json

    from ggpkit.agents.specs import SpecError, make_agent
    from ggpkit.tools.skilltest import answer, load_positions, open_game

    try:
        make_agent(spec)
    except SpecError as e:
        raise fail(str(e)) from None
    where = str(games_dir) if games_dir is not None else "the game library"
    answers, skipped = [], []
    loaded: dict[str, Game[Any] | None] = {}
    for position in load_positions():
        if position.game not in loaded:
            loaded[position.game] = open_game(position, games_dir)
        game = loaded[position.game]
        if game is None:
            skipped.append(position)
            continue
        answers.append(answer(position, game, spec, time, seed))
    if not answers:
        raise fail(f"no position could be played: their public games are not in {where}")
    rows = _per_game([(a.position.game, a.good) for a in answers])
    total = sum(a.good for a in answers)
    if as_json:
        doc = {
            "agent": spec,
            "score": total / len(answers),
            "good": total,
            "positions": len(answers),
            "skipped": len(skipped),
            "games": [{"game": g, "good": good, "positions": n} for g, good, n in rows],
            "answers": [{"id": a.position.id, "move": a.move, "good": a.good} for a in answers],
        }
        typer.echo(json.dumps(doc, indent=1))
        return
    for game_name, good, n in rows:
        typer.echo(f"{game_name:20} {good:3}/{n:<3} {100 * good / n:5.1f}%")
    typer.echo(
        f"{spec}: {total}/{len(answers)} good moves, score {100 * total / len(answers):.1f}%"
    )
    if skipped:
        typer.echo(
            f"{plural(len(skipped), 'position')} skipped: their games are not in {where}", err=True
        )


def _per_game(results: list[tuple[str, bool]]) -> list[tuple[str, int, int]]:
    names = sorted({g for g, _ in results})
    return [
        (g, sum(ok for name, ok in results if name == g), sum(name == g for name, _ in results))
        for g in names
    ]
