"""``ggpkit match``: one refereed match between agents, remote players and people.

Roles are given as ``--role ROLE=SPEC`` where SPEC is an agent spec (``mcts``,
``random``...), ``human``, or the URL of a GGP player (``http://127.0.0.1:9147``).
The board is shown after every step; the match goes to the match store.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ggpkit.cli.app import app
from ggpkit.cli.common import fail, open_store, plural, step_panel

if TYPE_CHECKING:
    from rich.console import Console

    from ggpkit.games.api import Game
    from ggpkit.match.clock import Clocks
    from ggpkit.match.referee import StepEvent


def rules_text(game: str) -> str:
    """The GDL text sent to remote players: the .kif file's (a fragment's with the game
    it extends), the registered game's twin, or the library game's rules ("" when there
    are none: a registered game without a twin)."""
    from ggpkit.games.api import GameError
    from ggpkit.games.gdl.game import rules_of_file
    from ggpkit.games.library import find_game
    from ggpkit.games.registry import games, rules_path
    from ggpkit.match.protocol import strip_comments

    path = Path(game)
    if path.suffix in (".kif", ".gdl") or "/" in game:
        return strip_comments(rules_of_file(path))
    if game in games():
        try:
            return strip_comments(rules_path(game).read_text(encoding="utf-8"))
        except (GameError, OSError):
            return ""
    found = find_game(game)  # as load(game) found it: the library comes after the registry
    return strip_comments(rules_of_file(found.path)) if found is not None else ""


def parse_roles(game: Game[Any], specs: list[str]) -> list[str]:
    """``ROLE=SPEC`` options as one spec per seat (every role but nature), in role order."""
    given: dict[str, str] = {}
    for item in specs:
        role, sep, spec = item.partition("=")
        if not sep or not spec:
            raise fail(f"--role {item!r}: expected ROLE=SPEC, e.g. --role {game.seats[0]}=mcts")
        if role not in game.seats:  # nature (GDL-II's random) is drawn, never seated
            count = plural(len(game.seats), "role" if game.seats == game.roles else "seat")
            raise fail(f"--role {item!r}: {game.name} has {count}: {', '.join(game.seats)}")
        given[role] = spec
    missing = [r for r in game.seats if r not in given]
    if missing:
        raise fail(f"no player for {', '.join(missing)}: give --role ROLE=SPEC for every role")
    return [given[r] for r in game.seats]


def parse_clocks(startclock: float, playclock: float) -> Clocks:
    """The match's clocks from the options: whole, positive seconds, or a one-line error.

    They go on the wire in START, and ggp-base's players parse integers: a
    ``--playclock 1.5`` would leave them silent for the whole match.
    """
    from ggpkit.match.clock import ClockError, Clocks, whole_seconds

    try:
        start = whole_seconds(startclock, "--startclock")
        play = whole_seconds(playclock, "--playclock")
    except ClockError as e:
        raise fail(str(e)) from None
    return Clocks(start, play)


class BoardDisplay:
    """Prints each step: the board, under the joint move and errors that led to it.

    The referee tells it the start too (step 0, no moves yet): the opening board.
    With ``hidden`` (a person plays a game of imperfect information at this terminal)
    it shows neither the board nor the moves until the match is over: the person sees
    only their own view, which their player shows them.
    """

    def __init__(self, game: Game[Any], console: Console, hidden: bool = False) -> None:
        self.game = game
        self.console = console
        self.hidden = hidden

    def __call__(self, event: StepEvent) -> None:
        if self.hidden and not self.game.is_terminal(event.state):
            self.console.print(f"Turn {event.step} played." if event.step else "The match begins.")
            return
        self.console.print(
            step_panel(
                self.game, event.state, event.step, event.moves, event.errors, self.game.name
            )
        )


@app.command("match")
def match_command(
    game_name: Annotated[
        str, typer.Argument(metavar="GAME", help="Registered or library game name, or .kif path.")
    ],
    role: Annotated[
        list[str], typer.Option("--role", help="ROLE=SPEC: agent spec, human, or player URL.")
    ],
    startclock: Annotated[
        float, typer.Option(help="Start clock, whole seconds (sent to players in START).")
    ] = 10,
    playclock: Annotated[float, typer.Option(help="Play clock, whole seconds.")] = 5,
    db: Annotated[Path | None, typer.Option(help="Match database (default: $GGPKIT_DB).")] = None,
    no_db: Annotated[bool, typer.Option("--no-db", help="Do not store the match.")] = False,
    seed: Annotated[int | None, typer.Option(help="Seed of agents and fallbacks.")] = None,
    scramble: Annotated[
        bool, typer.Option("--scramble", help="Send remote players scrambled symbol names.")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Only print the result.")] = False,
    max_steps: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Abort the match after this many steps: for rules without a step limit, "
            "where players can stall for ever (default: no limit).",
        ),
    ] = None,
) -> None:
    """Referee one match under the GGP protocol and print the result."""
    import asyncio
    import logging

    from rich.console import Console
    from rich.table import Table

    from ggpkit.agents.specs import SpecError
    from ggpkit.games.registry import load
    from ggpkit.gdl.kif import parse_terms
    from ggpkit.gdl.terms import split_facts_text
    from ggpkit.match.players import RefereedPlayer, player_from_spec
    from ggpkit.match.recorder import MatchRecorder, NullRecorder
    from ggpkit.match.referee import Referee
    from ggpkit.match.scramble import Scrambler

    clocks = parse_clocks(startclock, playclock)
    game = load(game_name)
    specs = parse_roles(game, role)
    rules = rules_text(game_name)
    if not rules and any(s.startswith(("http://", "https://")) for s in specs):
        raise fail(f"{game_name} has no GDL rules to send to remote players")
    try:
        scrambler = Scrambler(rules, seed) if scramble and rules else None
        players: list[RefereedPlayer] = [player_from_spec(s, seed, scrambler) for s in specs]
    except SpecError as e:
        raise fail(str(e)) from None
    store = open_store(db, no_db)
    recorder: MatchRecorder = store if store is not None else NullRecorder()
    console = Console(highlight=False)
    logging.getLogger("ggpkit.referee").setLevel(logging.ERROR)
    hidden = game.info.imperfect and any(p.is_human for p in players)
    observer = None if quiet else BoardDisplay(game, console, hidden)
    referee = Referee(
        game, rules, players, clocks, recorder, observer, seed=seed, max_steps=max_steps
    )
    try:
        record = asyncio.run(referee.run())
    finally:
        if store is not None:
            store.close()
    table = Table(title=f"{game.name}: match {record.match_id}, {plural(record.steps, 'step')}")
    for column in ("role", "player", "goal", "errors"):
        table.add_column(column)
    goals = record.goal_values or []
    for i, r in enumerate(game.roles):
        errors = sum(1 for step in record.errors if step[i])
        goal = str(goals[i]) if goals else "-"
        table.add_row(r, record.player_names[i], goal, str(errors))
    console.print(table)
    if record.is_aborted:
        console.print(f"aborted after {plural(record.steps, 'step')} (--max-steps)", markup=False)
    explain = game.info.capabilities.end_reason
    if explain is not None and not record.is_aborted and record.states:
        final = frozenset(parse_terms(split_facts_text(record.states[-1])))
        if game.is_terminal(game.state_from_facts(final)):
            console.print(f"why it ended: {explain(final)}", markup=False)
    if store is not None:
        console.print(f"stored in {store.path}", markup=False)
