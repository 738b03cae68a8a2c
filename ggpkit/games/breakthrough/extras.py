"""What breakthrough with holes declares beyond the rules: its evaluation and exact solver."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from ggpkit.games.api import Game
from ggpkit.games.capabilities import Evaluation, Solution, Solver


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
