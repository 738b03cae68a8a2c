"""``ggpkit play``: a person plays one role of any game at the terminal against agents.

Everything goes through the game API (``render``, ``legal_moves``, ``to_move``,
``next_state``), so every registered game and every ``.kif`` file plays the same
way: the board is drawn each turn, the person's role is asked for its move by the
:class:`~ggpkit.agents.human.HumanAgent`, the other roles are played by agents
(random by default), and the final goals are shown.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ggpkit.cli.app import app
from ggpkit.cli.common import plural

if TYPE_CHECKING:
    from rich.console import Console

    from ggpkit.agents.base import Agent
    from ggpkit.games.api import Game
    from ggpkit.match.driver import StepResult


def load_game(name_or_path: str, engine: str = "native") -> Game[Any]:
    """A registered or library game, or a ``.kif`` file, with one-line errors for what users
    get wrong.

    A file that cannot be read raises its OSError, which ``main`` prints as
    ``path: no such file`` like every command that takes a path.
    """
    from ggpkit.games.api import GameError
    from ggpkit.games.registry import load

    try:
        return load(name_or_path, engine=engine)
    except ImportError as e:
        raise GameError(f"the GDL engine is not available here ({e})") from None


def play_match(
    game: Game[Any],
    human_role: str,
    human: Agent,
    opponents: Mapping[str, Agent],
    console: Console,
    state: Hashable | None = None,
) -> tuple[Hashable, int]:
    """Play from ``state`` (default: the start) to the end; return (final state, joint moves).

    The steps are played by the match driver, as in every other match: the person is
    asked only when their role has a real choice (never for a lone ``noop``), the
    agents have no clock beyond their own limits, and a failed or illegal agent move
    is replaced by a random legal one and reported. The board is drawn before every
    joint move and once more at the end.
    """
    import asyncio

    from rich.panel import Panel
    from rich.text import Text

    from ggpkit.match.clock import UNTIMED_START
    from ggpkit.match.driver import MatchDriver
    from ggpkit.match.players import HumanPlayer, LocalPlayer, Player
    from ggpkit.match.records import MatchRecord, new_match_id

    record = MatchRecord(
        match_id=new_match_id(game.name),
        game_name=game.name,
        rules="",
        roles=list(game.roles),
        start_clock=0.0,
        play_clock=0.0,
    )
    driver = MatchDriver(game, record, state=state)
    players: list[Player] = [
        HumanPlayer(human, human_role) if role == human_role else LocalPlayer(opponents[role])
        for role in game.roles
    ]

    def show_board() -> None:
        mover = game.to_move(driver.state)
        who = f"{mover} to move" if mover is not None else "all roles move at once"
        console.print(Panel.fit(Text(game.render(driver.state)), title=f"{game.name}: {who}"))

    def show_step(step: StepResult) -> None:
        for role, move, error in zip(game.roles, step.joint, step.errors, strict=True):
            if str(move) != "noop" or len(game.roles) == 1:
                you = " (you)" if role == human_role else ""
                console.print(Text(f"{role}{you} plays {move}", style="bold"), soft_wrap=True)
            if error:
                console.print(Text(f"{role}: its agent failed ({error}); a random legal move "
                                   "was played", style="red"), soft_wrap=True)  # fmt: skip
        if not driver.finished:
            show_board()

    async def run() -> None:
        for player, role in zip(players, game.roles, strict=True):
            await player.start(record.match_id, role, game, "", UNTIMED_START, 0.0)
        try:
            if not driver.finished:
                show_board()
            await driver.run(players, None, show_step)
        finally:
            for player in players:
                await player.stop(record.match_id, driver.last, 1.0)

    asyncio.run(run())
    return driver.state, record.steps


def show_result(
    game: Game[Any], state: Hashable, steps: int, human_role: str, console: Console
) -> None:
    """The final board and every role's goal."""
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    console.print(Panel.fit(Text(game.render(state)), title=f"{game.name}: game over"))
    console.print(Text(f"Game over after {plural(steps, 'move')}.", style="bold"))
    table = Table()
    table.add_column("role")
    table.add_column("goal", justify="right")
    for role, goal in game.goals(state).items():
        table.add_row(f"{role} (you)" if role == human_role else role, str(goal))
    console.print(table)


@app.command("play")
def play_command(
    game: Annotated[
        str,
        typer.Argument(
            metavar="GAME",
            help="A registered or library game's name (see `ggpkit games`), or a .kif file.",
        ),
    ],
    role: Annotated[
        str | None, typer.Option("--as", help="The role you play (default: the first role).")
    ] = None,
    seed: Annotated[
        int | None, typer.Option(help="Seed of the opponents, for a repeatable game.")
    ] = None,
    opponent: Annotated[
        str,
        typer.Option(help="Agent for the other roles: random, mcts:time=1, alphabeta:depth=4..."),
    ] = "random",
    engine: Annotated[
        str, typer.Option(help="native, or gdl to play a registered game by its GDL rules.")
    ] = "native",
) -> None:
    """Play GAME at the terminal: you take one role, agents the others.

    Type a move as its number in the list, as a GDL term such as (jump b c4 d c4),
    or in the game's short form (peg: b4-d4). Commands: help, moves, board, quit.
    GAME may also be the path of a .kif file.
    """
    from rich.console import Console
    from rich.text import Text

    from ggpkit.agents.base import QuitGame
    from ggpkit.agents.human import HumanAgent
    from ggpkit.agents.specs import SpecError, make_agent

    console = Console(highlight=False)
    loaded = load_game(game, engine)
    human_role = role if role is not None else loaded.roles[0]
    loaded.role_index(human_role)
    human = HumanAgent(console=console, show_board=False)
    opponents: dict[str, Agent] = {}
    for i, other in enumerate(loaded.roles):
        if other != human_role:
            try:
                opponents[other] = make_agent(opponent, seed=None if seed is None else seed + i)
            except SpecError as e:
                raise typer.BadParameter(e.reason, param_hint="--opponent") from None
    others = ", ".join(f"{r} ({opponents[r].name})" for r in opponents) or "nobody"
    intro = f"{loaded.name}: you play {human_role} against {others}. Type help for help."
    console.print(Text(intro), soft_wrap=True)
    try:
        state, steps = play_match(loaded, human_role, human, opponents, console)
    except QuitGame:
        console.print(Text("You left the game."))
        return
    show_result(loaded, state, steps, human_role, console)
