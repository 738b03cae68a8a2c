"""``ggpkit games``: list the games (registered and in the library); fetch, add and remove them."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ggpkit.cli.app import app
from ggpkit.cli.common import fail, plural, status_line, stderr_progress

if TYPE_CHECKING:
    from ggpkit.games.library import FetchOutcome, FetchReport, FetchRequest

games_app = typer.Typer(
    help="List the games: the registered ones and the game library (games fetched from a "
    "repository, and folders of .kif files). Subcommands fetch, add and remove games.",
    no_args_is_help=False,
    add_completion=False,
)
app.add_typer(games_app, name="games")


@games_app.callback(invoke_without_command=True)
def games_list(
    ctx: typer.Context,
    long: Annotated[
        bool, typer.Option("--long", "-l", help="Also show each game's description.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
) -> None:
    """List every game by name: its roles, its kind, where it comes from and its extras."""
    # Registered games from their registry summaries, library games from a read of their
    # rules (reader and checker, cached by content): listing imports no engine.
    if ctx.invoked_subcommand is not None:
        return
    import json

    from ggpkit.games.library import library_dir, library_games

    listing = library_games()
    rows = _registered_rows()
    rows += _library_rows(listing.games, [r["name"] for r in rows])
    for problem in listing.problems:
        typer.echo(f"ggpkit: warning: {problem}", err=True)
    if as_json:
        typer.echo(json.dumps(rows, indent=1))
        return
    _print_table(rows, long, f"library: {library_dir()}")
    if listing.hidden:
        hidden = ", ".join(f"{g.name} ({g.origin})" for g in listing.hidden)
        typer.echo(f"hidden by a game of the same name earlier in the library: {hidden}")


def _registered_rows() -> list[dict[str, Any]]:
    from ggpkit.games.registry import games, summary

    rows = []
    for name, description in games().items():
        game = summary(name)
        rows.append(
            {
                "name": name,
                "roles": list(game.roles),
                "kind": f"{len(game.roles)} role(s), {game.dynamics.value}, {game.utility.value}",
                "source": "registered",
                "from": "registered",
                "path": None,
                "version": None,
                "capabilities": list(game.capabilities),
                "description": description,
            }
        )
    return rows


def _library_rows(games: list[Any], registered: list[str]) -> list[dict[str, Any]]:
    from ggpkit.games.library import outlines

    with status_line(f"reading the rules of {plural(len(games), 'library game')}"):
        read = outlines([g.path for g in games])
    rows = []
    for game, outline in zip(games, read, strict=True):
        hidden = " (hidden by the registered game)" if game.name in registered else ""
        rows.append(
            {
                "name": game.name,
                "roles": list(outline.roles),
                "kind": f"{len(outline.roles)} role(s), {outline.kind}",
                "source": game.source,
                "from": game.origin + hidden,
                "path": str(game.path),
                "version": game.version,
                "capabilities": [],
                "description": game.description(),
            }
        )
    return rows


def _print_table(rows: list[dict[str, Any]], long: bool, caption: str) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="ggpkit games", caption=caption)
    for column in ("name", "roles", "kind", "from", "capabilities"):
        table.add_column(column, overflow="fold")
    if long:
        table.add_column("description", overflow="fold")
    for row in rows:
        cells = [
            row["name"],
            ", ".join(row["roles"]),
            row["kind"],
            row["from"],
            ", ".join(row["capabilities"]),
        ]
        table.add_row(*cells, *([row["description"]] if long else []))
    Console().print(table)


@games_app.command("fetch")
def games_fetch(
    names: Annotated[
        list[str] | None, typer.Argument(help="Game keys, as the repository names them.")
    ] = None,
    every: Annotated[bool, typer.Option("--all", help="Every game the repository lists.")] = False,
    repo: Annotated[
        str | None,
        typer.Option(
            "--repo",
            help="Repository URL (default: the ggp.org base repository, "
            "http://games.ggp.org/base).",
        ),
    ] = None,
    refresh: Annotated[
        bool,
        typer.Option(
            "--refresh",
            help="Ask the repository for a newer version of games already fetched "
            "(without it, a fetched game is used as it is, offline).",
        ),
    ] = False,
    timeout: Annotated[
        float | None,
        typer.Option("--timeout", min=0.1, help="Seconds allowed for each request (default 60)."),
    ] = None,
) -> None:
    """Fetch games from a ggp.org-style game repository into the library.

    A version of a game never changes, so a fetched game stays usable offline. Each game
    that fails is one line on stderr; the exit status is 1 when any failed.
    """
    from ggpkit.games.library import (
        DEFAULT_REPOSITORY,
        FetchRequest,
        LibraryError,
        Limits,
        repository_url,
    )

    if every == bool(names):
        raise fail("give game names or --all (not both)")
    try:
        url = repository_url(repo or DEFAULT_REPOSITORY)
    except LibraryError as e:
        raise fail(str(e)) from None
    limits = Limits().with_deadline(timeout) if timeout is not None else None
    request = FetchRequest(None if every else names, url, refresh, limits)
    report = _fetch_with_progress(request) if every else _fetch_named(request)
    if report.stopped is not None:
        typer.echo(f"ggpkit: error: {report.stopped}", err=True)
    _note_hidden([o.key for o in report.outcomes if o.status != "failed"])
    if report.failed:
        raise typer.Exit(1)


def _fetch_named(request: FetchRequest) -> FetchReport:
    """Each game's outcome printed as it ends."""
    from ggpkit.games.library import fetch_games

    return fetch_games(request, on_outcome=lambda o: _say(o, request.repository))


def _fetch_with_progress(request: FetchRequest) -> FetchReport:
    """Every game of the repository, with a progress bar on stderr; failures as lines on
    stderr, then one line of counts on stdout."""
    from collections import Counter

    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn

    from ggpkit.games.library import fetch_games

    with stderr_progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn()
    ) as progress:
        task = progress.add_task("listing the games", total=None)

        def advance(outcome: FetchOutcome) -> None:
            progress.update(task, advance=1, description=f"{outcome.key}: {outcome.status}")
            if outcome.error is not None:
                progress.console.print(f"ggpkit: error: {outcome.error}", highlight=False)

        report = fetch_games(
            request,
            on_total=lambda n: progress.update(task, total=n, description="fetching"),
            on_outcome=advance,
        )
    counts = Counter(o.status for o in report.outcomes)
    done = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    typer.echo(f"{plural(len(report.outcomes), 'game')} from {report.repository}: {done or '-'}")
    return report


def _say(outcome: FetchOutcome, repository: str) -> None:
    version = f"version {outcome.version}"
    if outcome.status == "fetched":
        typer.echo(f"{outcome.key}: fetched {version} from {repository}")
    elif outcome.status == "up to date":
        typer.echo(f"{outcome.key}: {version} is the newest")
    elif outcome.status == "cached":
        typer.echo(f"{outcome.key}: {version} already fetched (--refresh asks for a newer one)")
    else:
        typer.echo(f"ggpkit: error: {outcome.error}", err=True)


def _note_hidden(keys: list[str]) -> None:
    """A note for each fetched game that another of the same name hides."""
    from ggpkit.games.library import find_game
    from ggpkit.games.registry import games

    registered = games()
    for key in keys:
        if key in registered:
            typer.echo(
                f"ggpkit: note: {key}: the registered game of that name comes first", err=True
            )
            continue
        found = find_game(key)
        if found is not None and found.source != "repository":
            typer.echo(f"ggpkit: note: {key}: the game in {found.origin} comes first", err=True)


@games_app.command("add")
def games_add(
    folder: Annotated[
        Path,
        typer.Argument(
            help="A folder of .kif files, of game folders in the repository layout, or a "
            "checkout of github.com/ggp-org/ggp-repository."
        ),
    ],
) -> None:
    """Add a folder of games to the library (it is read again at every use)."""
    from ggpkit.games.library import LibraryError, add_folder
    from ggpkit.games.library.folders import scan

    try:
        added = add_folder(folder)
    except LibraryError as e:
        raise fail(str(e)) from None
    found, problems = scan(added)
    for problem in problems:
        typer.echo(f"ggpkit: warning: {problem}", err=True)
    typer.echo(f"added {added}: {plural(len(found), 'game')}")


@games_app.command("remove")
def games_remove(
    what: Annotated[str, typer.Argument(help="An added folder, or a fetched game's name.")],
) -> None:
    """Forget an added folder (its files stay), or delete a fetched game from the cache."""
    from ggpkit.games.library import GameCache, LibraryError, remove_folder

    try:
        if remove_folder(Path(what)):
            typer.echo(f"removed the folder {what} from the library (its files stay)")
            return
    except LibraryError as e:
        raise fail(str(e)) from None
    if GameCache().remove(what):
        typer.echo(f"removed {what} from the fetched games")
        return
    raise fail(f"{what}: neither a folder added to the library nor a fetched game")
