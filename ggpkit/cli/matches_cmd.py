"""``ggpkit matches`` (list, export, import) and ``ggpkit replay``: the stored matches."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ggpkit.cli.app import app
from ggpkit.cli.common import fail, open_store, os_error_line, step_panel

if TYPE_CHECKING:
    from rich.panel import Panel

    from ggpkit.match.records import MatchRecord
    from ggpkit.match.replay import Replay
    from ggpkit.store.sqlite import MatchStore

matches_app = typer.Typer(
    help="List, export and import stored matches.", no_args_is_help=False, add_completion=False
)
app.add_typer(matches_app, name="matches")

DbOption = Annotated[Path | None, typer.Option(help="Match database (default: $GGPKIT_DB).")]


def _store(db: Path | None) -> MatchStore:
    store = open_store(db, no_db=False)
    assert store is not None
    return store


@matches_app.callback(invoke_without_command=True)
def matches_list(
    ctx: typer.Context,
    game: Annotated[str | None, typer.Option(help="Only matches of this game.")] = None,
    limit: Annotated[int, typer.Option(min=1, help="At most this many, newest first.")] = 20,
    db: DbOption = None,
) -> None:
    """List stored matches, newest first."""
    import datetime

    from rich.console import Console
    from rich.table import Table

    if ctx.invoked_subcommand is not None:
        return
    with _store(db) as store:
        summaries = store.matches(game=game, limit=limit)
        table = Table(title=f"matches in {store.path}")
    table.add_column("match id", overflow="fold")  # whole, so it can be copied
    for column in ("game", "started", "steps", "players", "goals", "status"):
        table.add_column(column)
    for m in summaries:
        started = datetime.datetime.fromtimestamp(m.start_time / 1000).strftime("%Y-%m-%d %H:%M")
        goals = " ".join(map(str, m.goal_values)) if m.goal_values is not None else "-"
        players = ", ".join(p or "?" for p in m.players)
        table.add_row(m.match_id, m.game_name, started, str(m.steps), players, goals, m.status)
    Console().print(table)


@matches_app.command("export")
def matches_export(
    match_id: Annotated[str, typer.Argument(help="Match id (a unique prefix will do).")],
    file: Annotated[Path, typer.Argument(help="JSON file to write (- for stdout).")],
    db: DbOption = None,
) -> None:
    """Write a stored match as ggp.org match JSON, rules embedded."""
    from ggpkit.store.sqlite import StoreError

    try:
        with _store(db) as store:
            record = store.load(match_id)
    except StoreError as e:
        raise fail(str(e)) from None
    if str(file) == "-":
        print(record.dumps())
    else:
        file.write_text(record.dumps() + "\n", encoding="utf-8")


def _read_rules(path: Path | None) -> str | None:
    """The GDL text of ``--rules``, comments stripped as in the records ggpkit writes."""
    from ggpkit.match.protocol import strip_comments

    if path is None:
        return None
    try:
        return strip_comments(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise fail(f"--rules {os_error_line(e)}") from None
    except UnicodeDecodeError as e:
        raise fail(f"--rules {path}: {e}") from None


def _read_record(file: Path, rules_file: Path | None) -> MatchRecord:
    """The record in ``file``, with the rules of ``rules_file`` when it embeds none."""
    from rich.console import Console

    from ggpkit.match.records import MatchRecord, MissingRulesError, RecordError

    rules = _read_rules(rules_file)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError as e:
        raise fail(os_error_line(e)) from None
    except UnicodeDecodeError as e:
        raise fail(f"{file}: {e}") from None
    try:
        record = MatchRecord.loads(text, rules)
    except MissingRulesError as e:
        raise fail(f"{file}: {e}; give the game's rules with --rules FILE") from None
    except RecordError as e:
        raise fail(f"{file}: {e}") from None
    if rules_file is not None and record.rules != rules:
        Console(stderr=True).print(
            f"note: {file} embeds its own rules; --rules {rules_file} was not used",
            markup=False,
            highlight=False,
        )
    if rules_file is not None and not record.game_name:
        record.game_name = rules_file.stem  # ggp-base records name the game only by URL
    return record


@matches_app.command("import")
def matches_import(
    file: Annotated[Path, typer.Argument(help="ggp.org match JSON file.")],
    rules: Annotated[
        Path | None,
        typer.Option(
            "--rules",
            help="GDL rules (.kif) for a record without 'gameRulesheet' (ggp-base records).",
        ),
    ] = None,
    db: DbOption = None,
) -> None:
    """Store a match read from ggp.org match JSON (ggpkit's, or ggp-base's with --rules)."""
    from ggpkit.store.sqlite import StoreError

    record = _read_record(file, rules)
    try:
        with _store(db) as store:
            store.save(record)
    except StoreError as e:
        raise fail(f"{file}: {e}") from None
    print(f"imported {record.match_id}")


def _frame(rep: Replay, step: int) -> Panel:
    """The board after ``step`` joint moves, titled with the step the board itself shows."""
    record, game = rep.record, rep.game
    last = len(rep.states) - 1
    footer = []
    if step == last and record.goal_values is not None:
        goals = ", ".join(f"{r}={g}" for r, g in zip(game.roles, record.goal_values, strict=False))
        footer.append(f"goals: {goals}")
    moves = record.moves[step - 1] if step > 0 else []
    errors = record.errors[step - 1] if 0 < step <= len(record.errors) else []
    return step_panel(game, rep.states[step], step, moves, errors, record.match_id, last, footer)


@app.command("replay")
def replay_command(
    match_id: Annotated[str, typer.Argument(help="Match id (a unique prefix will do).")],
    show_all: Annotated[bool, typer.Option("--all", help="Print every step and exit.")] = False,
    db: DbOption = None,
) -> None:
    """Step through a stored match: enter for next, b for back, q to quit."""
    from rich.console import Console

    from ggpkit.match.replay import ReplayError, open_replay
    from ggpkit.store.sqlite import StoreError

    try:
        with _store(db) as store:
            record = store.load(match_id)
        rep = open_replay(record)
    except (StoreError, ReplayError) as e:
        raise fail(str(e)) from None
    console = Console(highlight=False)
    last = len(rep.states) - 1
    if show_all:
        for step in range(last + 1):
            console.print(_frame(rep, step))
        return
    step = 0
    while True:
        console.print(_frame(rep, step))
        try:
            key = input("[enter] next, b back, q quit: ").strip().lower()
        except EOFError:
            return
        if key == "q":
            return
        if key == "b":
            step = max(step - 1, 0)
        elif step == last:
            return
        else:
            step += 1
