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
    from ggpkit.match.players import Player


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
    seed: int | None = None,
) -> tuple[Hashable, int]:
    """Play from ``state`` (default: the start) to the end; return (final state, joint moves).

    The steps are played by the match driver, as in every other match: a person is
    asked only when their role has a real choice (never for a lone ``noop``), the
    agents have no clock beyond their own limits, and a failed or illegal agent move
    is replaced by a random legal one and reported. Nature's moves (GDL-II's
    ``random``) are drawn by the driver, from ``seed`` when given. Every opponent that
    is a :class:`~ggpkit.agents.human.HumanAgent` is one more person at this terminal.

    In a game of perfect information the board is drawn before every joint move and
    once more at the end. In one of imperfect information nobody is shown the state or
    another seat's moves: each person is shown their own view when asked, and, where
    several people share the terminal, a hand-over line comes first.
    """
    import asyncio
    import random

    from rich.panel import Panel
    from rich.text import Text

    from ggpkit.match.clock import UNTIMED_START
    from ggpkit.match.driver import MatchDriver
    from ggpkit.match.records import MatchRecord, new_match_id

    record = MatchRecord(
        match_id=new_match_id(game.name),
        game_name=game.name,
        rules="",
        roles=list(game.roles),
        start_clock=0.0,
        play_clock=0.0,
    )
    rng = random.Random(seed) if seed is not None else None
    driver = MatchDriver(game, record, state=state, rng=rng)
    hidden = game.info.imperfect
    players: list[Player] = seat_players(game, human_role, human, opponents, console)

    def show_board() -> None:
        if hidden:
            return
        mover = game.to_move(driver.state)
        who = f"{mover} to move" if mover is not None else "all roles move at once"
        console.print(Panel.fit(Text(game.render(driver.state)), title=f"{game.name}: {who}"))

    def show_step(step: StepResult) -> None:
        if hidden:
            console.print(Text(f"Turn {record.steps} played.", style="bold"))
        for role, move, error in zip(game.roles, step.joint, step.errors, strict=True):
            if not hidden and (str(move) != "noop" or len(game.roles) == 1):
                you = " (you)" if role == human_role else ""
                console.print(Text(f"{role}{you} plays {move}", style="bold"), soft_wrap=True)
            if error:
                console.print(Text(f"{role}: its agent failed ({error}); a random legal move "
                                   "was played", style="red"), soft_wrap=True)  # fmt: skip
        if not driver.finished:
            show_board()

    async def run() -> None:
        for player, role in zip(players, game.seats, strict=True):
            await player.start(record.match_id, role, game, "", UNTIMED_START, 0.0)
        try:
            if not driver.finished:
                show_board()
            await driver.run(players, None, show_step)
        finally:
            for player, role in zip(players, game.seats, strict=True):
                await player.stop(record.match_id, driver.told(role), 1.0)

    asyncio.run(run())
    return driver.state, record.steps


def seat_players(
    game: Game[Any],
    human_role: str,
    human: Agent,
    opponents: Mapping[str, Agent],
    console: Console,
) -> list[Player]:
    """One player per seat: the person, the opponents' agents, and one person more for
    each opponent that is a human agent (asked in turn: see :class:`TerminalPerson`)."""
    from ggpkit.agents.human import HumanAgent
    from ggpkit.match.players import HumanPlayer, LocalPlayer

    people = {human_role: human} | {
        r: a for r, a in opponents.items() if isinstance(a, HumanAgent) and r != human_role
    }
    hand_over = game.info.imperfect and len(people) > 1
    players: list[Player] = []
    for role in game.seats:
        if role not in people:
            players.append(LocalPlayer(opponents[role]))
        elif len(people) == 1:
            players.append(HumanPlayer(people[role], role))
        else:
            players.append(TerminalPerson(people[role], console, hand_over))
    return players


class TerminalPerson:
    """One of several people sharing the terminal: asked on the event loop, not in a
    thread, so that people who move at once are asked one after the other, in role
    order; in a game of imperfect information a hand-over line comes first, so that
    each sees only their own view."""

    is_human = True

    def __init__(self, agent: Agent, console: Console, hand_over: bool) -> None:
        self.agent, self.console, self.hand_over = agent, console, hand_over
        self.name = "human"
        self.game: Game[Any] | None = None
        self.role = ""

    async def start(
        self, match_id: str, role: str, game: Game[Any], rules: str, start: float, play: float
    ) -> None:
        self.game, self.role = game, role

    async def play(self, match_id: str, last: Any, state: Hashable, clock: float | None) -> str:
        """The person's move, after the hand-over (Enter) where there is one."""
        from rich.text import Text

        from ggpkit.agents.base import Limit, QuitGame

        assert self.game is not None, "play before start"
        if self.hand_over:
            line = f"{self.role}'s view: pass the keyboard to {self.role}, press Enter"
            self.console.print(Text(line, style="bold"), soft_wrap=True)
            read = getattr(self.agent, "input_fn", input)
            try:
                read("")
            except EOFError:
                raise QuitGame() from None
        return str(self.agent.select(self.game, state, self.role, Limit()))

    async def observe(self, match_id: str, last: Any, state: Hashable, clock: float | None) -> None:
        pass

    async def stop(self, match_id: str, last: Any, clock: float) -> None:
        pass

    async def abort(self, match_id: str) -> None:
        pass


def show_result(
    game: Game[Any], state: Hashable, steps: int, people: str | set[str], console: Console
) -> None:
    """The final board (the true state, shown to everyone, also after a game of imperfect
    information) and every seat's goal."""
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    you = {people} if isinstance(people, str) else people
    console.print(Panel.fit(Text(game.render(state)), title=f"{game.name}: game over"))
    console.print(Text(f"Game over after {plural(steps, 'move')}.", style="bold"))
    table = Table()
    table.add_column("role")
    table.add_column("goal", justify="right")
    goals = game.goals(state)
    for role in game.seats:
        mark = " (you)" if role in you and len(you) == 1 else ""
        table.add_row(f"{role}{mark}", str(goals[role]))
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
    GAME may also be the path of a .kif file. With --opponent human every role is
    played by a person at this terminal. In a game of imperfect information (GDL-II)
    each person sees only their own moves and percepts, nature's moves are drawn, and
    the true final state is shown at the end.
    """
    from rich.console import Console
    from rich.text import Text

    from ggpkit.agents.base import QuitGame
    from ggpkit.agents.human import HumanAgent

    console = Console(highlight=False)
    loaded = load_game(game, engine)
    human_role = role if role is not None else loaded.seats[0]
    loaded.role_index(human_role)
    if human_role not in loaded.seats:
        raise typer.BadParameter(
            f"{human_role} is nature: its moves are drawn; play one of {', '.join(loaded.seats)}",
            param_hint="--as",
        )
    human = HumanAgent(console=console, show_board=False)
    opponents = make_opponents(loaded, human_role, opponent, seed, console)
    console.print(Text(introduction(loaded, human_role, opponents)), soft_wrap=True)
    try:
        state, steps = play_match(loaded, human_role, human, opponents, console, seed=seed)
    except QuitGame:
        console.print(Text("You left the game."))
        return
    people = {human_role} | {r for r, a in opponents.items() if isinstance(a, HumanAgent)}
    show_result(loaded, state, steps, people, console)


def make_opponents(
    game: Game[Any], human_role: str, spec: str, seed: int | None, console: Console
) -> dict[str, Agent]:
    """An agent for every other seat (nature is drawn, not played); ``human`` makes each
    another person at this terminal."""
    from ggpkit.agents.human import HumanAgent
    from ggpkit.agents.specs import SpecError, make_agent

    opponents: dict[str, Agent] = {}
    for i, other in enumerate(game.roles):
        if other == human_role or other not in game.seats:
            continue
        if spec == "human":
            opponents[other] = HumanAgent(console=console, show_board=False)
            continue
        try:
            opponents[other] = make_agent(spec, seed=None if seed is None else seed + i)
        except SpecError as e:
            raise typer.BadParameter(e.reason, param_hint="--opponent") from None
    return opponents


def introduction(game: Game[Any], human_role: str, opponents: Mapping[str, Agent]) -> str:
    """Who plays what: the person, the agents, other people, nature."""
    from ggpkit.agents.human import HumanAgent

    people = [r for r, a in opponents.items() if isinstance(a, HumanAgent)]
    agents = [f"{r} ({a.name})" for r, a in opponents.items() if r not in people]
    chance = game.info.chance_role
    others = ", ".join(agents + ([f"{chance} (nature: its moves are drawn)"] if chance else []))
    if people:
        everyone = ", ".join([human_role, *people])
        text = f"{game.name}: {everyone} are played by people at this terminal"
        text += f", against {others}." if others else "."
    else:
        text = f"{game.name}: you play {human_role} against {others or 'nobody'}."
    return text + " Type help for help."
