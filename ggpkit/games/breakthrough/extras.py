"""What breakthrough with holes declares beyond the rules: notation, board, evaluation, solver."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from ggpkit.games.api import Game
from ggpkit.games.capabilities import BoardStyle, Evaluation, Solution, Solver
from ggpkit.games.notation import SquareNotation
from ggpkit.gdl.terms import Func, Term

BOARD = BoardStyle(
    relation="cell",
    pieces={"hole": {"color": "hole"}},
    look="checkered",
    col_labels={str(x): "abcdef"[x - 1] for x in range(1, 7)},
)
"""``(cell X Y content)``, x across and y up; the holes are gaps in the board."""

NOTATION = SquareNotation(help="b2-c3 (the piece on x=2, y=2 moves to x=3, y=3)", size=6)
"""``b2-c3`` for ``(move 2 2 3 3)``: column letter (x), row number (y)."""


class BreakthroughExactSolver:
    """The breakthrough-holes solver behind the ``Solver`` protocol (a table kept between calls).

    The first question from the start is a full solve (about a minute); later ones are
    answered from the table.
    """

    def __init__(self) -> None:
        from ggpkit.games.breakthrough.solver import BreakthroughSolver

        self.solver = BreakthroughSolver(table_bits=24)

    def solve(self, game: Game[Any], state: Hashable, role: str) -> Solution:
        from ggpkit.games.breakthrough.solver import position_of_facts

        outcome, nodes = self.solver.outcome(position_of_facts(game.facts(state)))
        move = None if game.is_terminal(state) else self.solver.best_move(game, state)
        return Solution(
            outcome.goals(),
            move,
            plies=outcome.plies,
            notes=(f"winner with perfect play: {outcome.winner}", f"positions searched: {nodes}"),
        )


def solver() -> Solver:
    return BreakthroughExactSolver()


def evaluation_without_capture() -> Evaluation:
    from ggpkit.games.breakthrough.evaluation import BreakthroughEvaluation

    return BreakthroughEvaluation(capture=False)


def evaluation_with_capture() -> Evaluation:
    from ggpkit.games.breakthrough.evaluation import BreakthroughEvaluation

    return BreakthroughEvaluation(capture=True)


def end_reason(facts: frozenset[Term]) -> str:
    """A piece on the far row (white on y=6, black on y=1), else the mover is stuck."""
    for f in facts:
        if isinstance(f, Func) and f.name == "cell":
            y, who = str(f.args[1]), str(f.args[2])
            if (who, y) in (("white", "6"), ("black", "1")):
                return f"{who} reached the far row ({chr(96 + int(str(f.args[0])))}{y})"
    mover = next((str(f.args[0]) for f in facts if isinstance(f, Func) and f.name == "control"), "")
    return f"{mover or 'the player to move'} has no legal move"
