"""``ggpkit tournament``: run, resume and rank tournaments of many players on many games.

``run`` prints the new tournament's id first (scripts read it from the first line of
stdout), then plays on Ray with a live view on stderr, then prints the standings.
``resume ID`` plays only what has no result yet; ``standings ID`` reads the store.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer

from ggpkit.cli.app import app
from ggpkit.cli.common import fail, open_store, plural

if TYPE_CHECKING:
    from ggpkit.store.tournaments import TournamentStore
    from ggpkit.tournament.ray_backend import RayExecutor
    from ggpkit.tournament.runner import RunState

tournament_app = typer.Typer(
    help="Tournaments of many players on many games, played on Ray, with rated standings.\n\n"
    "A config (TOML) lists games, players (agent specs, GGP player URLs, or commands with "
    "{port}), the schedule (round-robin, gauntlet, swiss), matches_per_pairing, startclock, "
    "playclock and seed. Every match is kept in the match store; kill the run at any time "
    "and 'resume' it.",
    no_args_is_help=True,
    add_completion=False,
)
app.add_typer(tournament_app, name="tournament")

DbOption = Annotated[Path | None, typer.Option(help="Match database (default: $GGPKIT_DB).")]
AddressOption = Annotated[
    str | None,
    typer.Option(help="Join this Ray cluster (e.g. 10.0.0.5:6379 or 'auto'); default: start one."),
]
CpusOption = Annotated[
    int | None, typer.Option("--cpus", min=1, help="Cores of the embedded Ray (default: all).")
]


def _tstore(db: Path | None) -> TournamentStore:
    from ggpkit.store.tournaments import TournamentStore

    store = open_store(db, no_db=False)
    assert store is not None
    return TournamentStore(store)


_SETTINGS: tuple[tuple[str, type, str], ...] = (
    ("schedule", str, "round-robin, gauntlet or swiss."),
    ("matches_per_pairing", int, "Matches per pairing."),
    ("startclock", int, "Start clock, whole seconds."),
    ("playclock", int, "Play clock, whole seconds."),
    ("seed", int, "Seed of the schedule and players."),
    ("champion", str, "The gauntlet's champion."),
    ("rounds", int, "Rounds of a Swiss tournament."),
    ("max_steps", int, "Abort a match after this many steps (default: no limit)."),
)
"""The config's scalar keys that ``run`` also takes as options (``--matches-per-pairing``):
one table, so that the options, their help and the keys they override cannot drift."""

F = TypeVar("F", bound=Callable[..., None])


def _with_settings(command: F) -> F:
    """Give ``command`` (which takes ``**overrides``) one ``--KEY`` option per entry of
    :data:`_SETTINGS`, each None unless given."""
    signature = inspect.signature(command, eval_str=True)
    kept = [p for p in signature.parameters.values() if p.kind is not p.VAR_KEYWORD]
    added = [
        inspect.Parameter(
            key,
            inspect.Parameter.KEYWORD_ONLY,
            default=None,
            annotation=Annotated[kind | None, typer.Option(help=text)],
        )
        for key, kind, text in _SETTINGS
    ]
    command.__signature__ = signature.replace(parameters=[*kept, *added])  # type: ignore[attr-defined]
    return command


@tournament_app.command("run")
@_with_settings
def run_command(
    config: Annotated[
        Path | None,
        typer.Argument(metavar="CONFIG", help="Tournament file (TOML); options override it."),
    ] = None,
    db: DbOption = None,
    address: AddressOption = None,
    cpus: CpusOption = None,
    game: Annotated[
        list[str] | None, typer.Option("--game", help="A game (name or .kif); repeat for more.")
    ] = None,
    player: Annotated[
        list[str] | None,
        typer.Option("--player", help="NAME=SPEC (agent spec, URL or command); repeat."),
    ] = None,
    **overrides: str | int | None,
) -> None:
    """Start a tournament: print its id, play every match, print the standings."""
    from ggpkit.errors import GgpkitError
    from ggpkit.tournament.config import config_from_options, load_config
    from ggpkit.tournament.games import resolve_games
    from ggpkit.tournament.runner import create_tournament
    from ggpkit.tournament.schedule import check_games

    given = {"games": game or None, "players": _players(player or []) or None, **overrides}
    options = {key: value for key, value in given.items() if value is not None}
    if config is None and not options:
        raise fail("give a tournament file (CONFIG) or --game and --player options")
    try:
        settings = load_config(config, options) if config else config_from_options(options)
        refs = resolve_games(settings)
        check_games(settings, refs)
    except GgpkitError as e:
        raise fail(str(e)) from None
    tstore = _tstore(db)
    tournament_id = create_tournament(tstore, settings, refs)
    typer.echo(tournament_id)
    _play(tstore, tournament_id, address, cpus)


def _players(items: list[str]) -> dict[str, str]:
    players = {}
    for item in items:
        name, eq, spec = item.partition("=")
        if not eq or not name.strip():
            raise fail(f"--player {item!r}: give NAME=SPEC, e.g. fast=mcts:time=0.5")
        players[name.strip()] = spec.strip()
    return players


@tournament_app.command("resume")
def resume_command(
    tournament_id: Annotated[str, typer.Argument(metavar="ID", help="The tournament's id.")],
    db: DbOption = None,
    address: AddressOption = None,
    cpus: CpusOption = None,
) -> None:
    """Play the matches of tournament ID that have no result yet (after a crash or kill)."""
    _play(_tstore(db), tournament_id, address, cpus)


def _play(
    tstore: TournamentStore, tournament_id: str, address: str | None, cpus: int | None
) -> None:
    """Play what is left on Ray (live view at a terminal), then the standings and a summary."""
    from rich.console import Console

    from ggpkit.cli.tournament_view import LiveView, standings_table
    from ggpkit.errors import GgpkitError
    from ggpkit.tournament.ray_backend import RayExecutor
    from ggpkit.tournament.runner import has_work, run_tournament, stored_setup
    from ggpkit.tournament.standings import standings

    try:
        config, _ = stored_setup(tstore, tournament_id)
        work = has_work(tstore, tournament_id)
        executor = RayExecutor(address=address, num_cpus=cpus) if work else None
    except GgpkitError as e:
        raise fail(str(e)) from None
    names = [p.name for p in config.players]
    state = None
    if executor is not None:
        try:
            with LiveView(tstore, names) as view:
                state = run_tournament(tstore, tournament_id, executor, view)
        except GgpkitError as e:  # the store refused a write: said in one line, not a trace
            raise fail(f"{e}; 'ggpkit tournament resume {tournament_id}' goes on") from None
        except KeyboardInterrupt:
            typer.echo(
                f"ggpkit: 'ggpkit tournament resume {tournament_id}' plays the rest", err=True
            )
            raise
        finally:
            executor.close()
    slots = tstore.slots(tournament_id)
    Console().print(standings_table(standings(slots, names, seed=config.seed)))
    _summary(tournament_id, executor, state)


def _summary(tournament_id: str, executor: RayExecutor | None, state: RunState | None) -> None:
    """Matches per Ray node on stderr; the failures, and exit status 2 when there were any."""
    if executor is None or state is None:
        typer.echo(f"{tournament_id} has no match left to play", err=True)
        return
    nodes = ", ".join(f"{node[:8]}: {count}" for node, count in executor.nodes.most_common())
    typer.echo(
        f"{plural(sum(executor.nodes.values()), 'match')} played on "
        f"{plural(len(executor.nodes), 'Ray node')}" + (f" ({nodes})" if nodes else ""),
        err=True,
    )
    if state.failed:
        for key, error in state.failed[:10]:
            typer.echo(f"ggpkit: match {key} failed: {error}", err=True)
        raise fail(
            f"{plural(len(state.failed), 'match')} failed; "
            f"'ggpkit tournament resume {tournament_id}' plays them again"
        )


@tournament_app.command("standings")
def standings_command(
    tournament_id: Annotated[str, typer.Argument(metavar="ID", help="The tournament's id.")],
    db: DbOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON list instead.")] = False,
    game: Annotated[str | None, typer.Option(help="Only this game's matches.")] = None,
) -> None:
    """Ratings (95% interval), points and matches per player, and the cross-table."""
    import json

    from rich.console import Console

    from ggpkit.cli.tournament_view import cross_table_view, standings_table
    from ggpkit.store.sqlite import StoreError
    from ggpkit.tournament.runner import stored_setup
    from ggpkit.tournament.standings import cross_table, standings

    tstore = _tstore(db)
    try:
        config, refs = stored_setup(tstore, tournament_id)
    except StoreError as e:
        raise fail(str(e)) from None
    if game is not None and game not in {r.label for r in refs}:
        raise fail(
            f"{tournament_id} has no game {game!r}; its games: {', '.join(r.label for r in refs)}"
        )
    slots = tstore.slots(tournament_id)
    rows = standings(slots, [p.name for p in config.players], game=game, seed=config.seed)
    if as_json:
        typer.echo(json.dumps([r.to_json() for r in rows], indent=1))
        return
    done = sum(s.match_id is not None for s in slots)
    console = Console()
    console.print(standings_table(rows, f"{tournament_id}: {done}/{len(slots)} matches played"))
    if game is None:
        names = [p.name for p in config.players]
        console.print(cross_table_view(cross_table(slots, names), names))


@tournament_app.command("list")
def list_command(db: DbOption = None) -> None:
    """The stored tournaments, newest first, with matches played and scheduled."""
    for t in _tstore(db).tournaments():
        typer.echo(f"{t.tournament_id}  {t.played}/{t.slots} matches  {t.name}")
