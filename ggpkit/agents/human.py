"""The human agent: a person chooses moves at the terminal.

It shows the board (``game.render``) and the legal moves, numbered, and reads one
line. A move may be typed as

* its number in the list (``3``),
* its GDL term (``(jump b c4 d c4)``; the brackets may be left out: ``jump b c4 d c4``),
* the game's short form where it declares one (``game.info.capabilities.notation``).

In a game of imperfect information (GDL-II) the person is never shown the state: the
agent is given the role's :class:`~ggpkit.games.views.RoleView` instead (its
``plays_from_views``), shows that (the turn, the role's own moves and its percepts
turn by turn) where it would draw the board, and finds the legal moves in a state
the view leaves possible (:func:`~ggpkit.games.sampling.sample_history`): a role's
legal moves are the same in every state it cannot tell apart.

``help``, ``moves``, ``board`` and ``quit`` are commands. An illegal or unreadable
input is answered with one line, the reason of the :class:`IllegalMoveError`, and
the question is asked again; the agent never returns an illegal move.
Input and output are injectable (``input_fn``, ``console``) so tests can type.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable
from typing import Any

from rich.columns import Columns
from rich.console import Console
from rich.panel import Panel
from rich.text import Text

from ggpkit.agents.base import Agent, Limit, QuitGame
from ggpkit.games.api import Game, GameError, IllegalMoveError, MoveError
from ggpkit.games.notation import move_from_text
from ggpkit.games.sampling import sample_history
from ggpkit.games.views import RoleView
from ggpkit.gdl.terms import Term

HELP = """\
Type a move as:
  a number from the list        3
  a GDL term                    (jump b c4 d c4)   (brackets optional)
{short}Commands: moves (list the legal moves), board (show the board), help, quit"""


class HumanAgent(Agent):
    """Asks a person for each move; see the module docstring."""

    name = "human"
    plays_from_views = True

    def __init__(
        self,
        input_fn: Callable[[str], str] | None = None,
        console: Console | None = None,
        show_board: bool = True,
    ) -> None:
        self.console = console if console is not None else Console(highlight=False)
        self.input_fn = input_fn if input_fn is not None else self.console.input
        self.show_board = show_board
        self.rng = random.Random()

    def position(self, game: Game[Any], state: Hashable) -> Hashable:
        """The state to read legal moves from: ``state`` itself, or for a role's view
        (imperfect information) one state of its information set, never shown."""
        if not isinstance(state, RoleView):
            return state
        line = sample_history(game, state, self.rng)
        if line is None:
            raise GameError(f"no state of {game.name} was found for {state.role}'s view")
        return line[-1]

    # ---- the dialogue ---------------------------------------------------------------

    def select(self, game: Game[Any], state: Hashable, role: str, limit: Limit) -> Term:
        """The move the person types; illegal input is explained and asked again."""
        shown, state = state, self.position(game, state)
        legal = game.legal_moves(state, role)
        if self.show_board or isinstance(shown, RoleView):
            self.print_board(game, shown, role)
        self.print_moves(game, legal)
        while True:
            try:
                text = self.input_fn(f"{role}> ").strip()
            except EOFError:
                raise QuitGame() from None
            command = text.lower()
            if not text:
                continue
            if command in ("quit", "exit", "q"):
                raise QuitGame()
            if command in ("help", "?", "h"):
                self.console.print(Text(self.help_text(game)), soft_wrap=True)
                continue
            if command in ("moves", "m"):
                self.print_moves(game, legal)
                continue
            if command in ("board", "b"):
                self.print_board(game, shown, role)
                continue
            try:
                return self.read_move(game, state, role, text, legal)
            except MoveError as e:
                self.console.print(Text(str(e), style="red"), soft_wrap=True)

    def read_move(
        self, game: Game[Any], state: Hashable, role: str, text: str, legal: list[Term]
    ) -> Term:
        """The legal move ``text`` stands for; IllegalMoveError (with the reason) otherwise."""
        if text.isdigit():
            number = int(text)
            if 1 <= number <= len(legal):
                return legal[number - 1]
            raise IllegalMoveError(
                text, role, f"there is no move number {number}; choose 1..{len(legal)}"
            )
        return game.check_move(state, role, move_from_text(game, text))

    # ---- output ---------------------------------------------------------------------

    def print_board(self, game: Game[Any], state: Hashable, role: str) -> None:
        """The game's own picture of the state, framed, with who is to move; for a view
        (imperfect information), the view."""
        if isinstance(state, RoleView):
            title = f"{game.name}: {state.role}'s view, turn {state.turn + 1}"
            self.console.print(Panel.fit(Text(view_lines(state)), title=title))
            return
        self.console.print(
            Panel.fit(Text(game.render(state)), title=f"{game.name}: {role} to move")
        )

    def print_moves(self, game: Game[Any], legal: list[Term]) -> None:
        """The legal moves, numbered (with their short form when the game has one)."""
        items = []
        notation = game.info.capabilities.notation
        for i, move in enumerate(legal, 1):
            label = f"{i:>2}. {move}"
            if notation is not None:
                label += f"  {notation.short(move)}"
            items.append(Text(label))
        self.console.print(Text(f"{len(legal)} legal moves (type help for how to enter one):"))
        self.console.print(Columns(items, padding=(0, 3)))

    def help_text(self, game: Game[Any]) -> str:
        """How to type a move in this game."""
        short = ""
        notation = game.info.capabilities.notation
        if notation is not None:
            short = f"  a short form                  {notation.help}\n"
        return HELP.format(short=short)


def view_lines(view: RoleView) -> str:
    """A role's view as the person reads it: what it played and perceived, turn by turn."""
    if not view.turn:
        return "nothing played yet"
    lines = []
    for k, (move, seen) in enumerate(zip(view.moves, view.percepts, strict=True), 1):
        percepts = ", ".join(sorted(map(str, seen))) or "nothing"
        lines.append(f"turn {k}: you played {move}; you saw {percepts}")
    return "\n".join(lines)
