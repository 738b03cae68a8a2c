"""``ggpkit arena``: play many matches between agents and show who is stronger."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ggpkit.agents.specs import describe_agents
from ggpkit.cli.app import app
from ggpkit.cli.common import fail, plural, stderr_progress

if TYPE_CHECKING:
    from rich.table import Table

    from ggpkit.games.api import Game
    from ggpkit.match.arena import ArenaResult
    from ggpkit.match.arena import MatchRecord as ArenaMatch


@app.command(
    "arena",
    help="Play matches between agents, rotating roles, and report mean goals and wins.\n\n"
    "Agents (one per role): " + "; ".join(describe_agents().splitlines()),
)
def arena_command(
    game: Annotated[str, typer.Argument(help="A registered or library game name, or a .kif path.")],
    agents: Annotated[
        list[str], typer.Argument(help="Agent specs, one per role, e.g. mcts:time=1 random.")
    ],
    matches: Annotated[int, typer.Option("--matches", "-n", min=1, help="Matches to play.")] = 10,
    seed: Annotated[int | None, typer.Option(help="Seed of the run (default: random).")] = None,
    jobs: Annotated[
        int | None, typer.Option("--jobs", "-j", min=1, help="Worker processes (default: cores).")
    ] = None,
    time: Annotated[
        float | None, typer.Option("--time", min=0.001, help="Seconds per move for every agent.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
    db: Annotated[
        Path | None,
        typer.Option(
            help="Match database to store every match in (default: $GGPKIT_DB or ~/.local/share)."
        ),
    ] = None,
    store: Annotated[
        bool, typer.Option("--store/--no-store", help="Keep every match in the match store.")
    ] = True,
) -> None:
    """Run the arena and print the table (or JSON).

    A progress line on stderr (matches done, elapsed, an estimate of the time left)
    follows the run when stderr is a terminal; stdout gets only the result.
    """
    import json

    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from ggpkit.agents.specs import SpecError
    from ggpkit.games.registry import load
    from ggpkit.match.arena import run_arena

    loaded = load(game)
    seats = loaded.seats  # every role but nature's (GDL-II's random), whose moves are drawn
    if len(agents) != len(seats):
        raise fail(
            f"{loaded.name} has {plural(len(seats), 'role' if seats == loaded.roles else 'seat')}"
            f" ({', '.join(seats)}): "
            f"give {plural(len(seats), 'agent')}, got {len(agents)}"
        )
    keep = _keeper(loaded, db) if store else None
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("matches"),
        TimeElapsedColumn(),
        TextColumn("left"),
        TimeRemainingColumn(),
    )
    try:
        with stderr_progress(*columns) as bar:
            task = bar.add_task(f"{loaded.name}: {' vs '.join(agents)}", total=matches)
            result = run_arena(
                game,
                agents,
                matches,
                seed=seed,
                jobs=jobs,
                time_limit=time,
                progress=lambda done, _total: bar.update(task, completed=done),
                on_match_done=keep,
            )
    except SpecError as e:
        raise fail(str(e)) from None
    if as_json:
        print(json.dumps(result.to_json(), indent=2))
    else:
        Console().print(_table(result))


def _keeper(game_obj: Game[Any], db: Path | None) -> Callable[[ArenaMatch], None]:
    """A hook that writes each finished arena match to the match store as it arrives."""
    from ggpkit.match.records import new_match_id
    from ggpkit.match.replay import record_from_arena
    from ggpkit.store.sqlite import MatchStore, default_db_path

    path = db or default_db_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    match_store = MatchStore(path)

    def keep(record: ArenaMatch) -> None:
        match_store.save(record_from_arena(record, game_obj, new_match_id(f"arena-{record.game}")))

    return keep


def _table(result: ArenaResult) -> Table:
    from rich.table import Table

    limit = f", {result.time:g} s/move" if result.time is not None else ""
    table = Table(
        title=f"{result.game}: {plural(result.matches, 'match')}, seed {result.seed}{limit}",
        caption=f"mean length {result.mean_length:.1f} moves, {result.seconds:.1f} s; "
        "win = strictly highest goal",
    )
    for name in ("agent", "mean goal", "95% CI", "wins", "draws", "losses"):
        table.add_column(name, justify="left" if name == "agent" else "right")
    for s in result.stats:
        table.add_row(
            s.spec,
            f"{s.mean_goal:.1f}",
            f"±{s.ci95:.1f}",
            str(s.wins),
            str(s.draws),
            str(s.losses),
        )
    return table
