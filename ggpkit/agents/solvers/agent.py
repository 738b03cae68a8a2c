"""``SolverAgent``: perfect play from the exact solvers.

It uses the exact solver a game declares (``game.info.capabilities.solver``: peg
solitaire's, with its value table when built; breakthrough-holes') and otherwise the
generic solver (whole reachable graph), which works for small turn-taking games and
stops with a clear :class:`SolverError` for the rest (too many states, cycles), or a
:class:`~ggpkit.search.contract.SimultaneousMovesError` where two roles choose at
once. The agent ignores the limit: an exact
answer takes what it takes (the first breakthrough-holes move from the start is a
full solve; see ``ggpkit solve breakthrough-holes``).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from ggpkit.agents.base import Agent, Limit, Thoughts
from ggpkit.agents.solvers.generic import GenericSolver, SolverError
from ggpkit.games.api import Game
from ggpkit.games.capabilities import Solution, Solver
from ggpkit.gdl.terms import Term

Chooser = Callable[[Game[Any], Hashable, str], Term]


def solver_for(game: Game[Any], node_limit: int) -> Solver:
    """The game's own exact solver when it declares one, else the generic solver."""
    declared = game.info.capabilities.solver
    if declared is not None:
        return declared()
    return GenericSolver(game, node_limit)


class SolverAgent(Agent):
    """Plays every move by an exact solver: never gives away a won position.

    ``node_limit`` bounds the generic solver (states expanded over the match); a game
    beyond it makes :meth:`select` raise :class:`SolverError` with the reason.
    """

    name = "solver"

    def __init__(self, node_limit: int = 500_000) -> None:
        self.node_limit = node_limit
        self._game: Game[Any] | None = None
        self._choose: Chooser | None = None
        self._last: tuple[str, Solution] | None = None

    def start(self, game: Game[Any], role: str) -> None:
        """Pick (and keep for the match) the solver for ``game``."""
        self._game = game
        self._choose = self._chooser(game)

    def stop(self) -> None:
        """Drop the solver and its tables."""
        self._game = None
        self._choose = None
        self._last = None

    def thoughts(self, role: str) -> Thoughts | None:
        """The exact value of the last position solved for ``role`` and the move that keeps it."""
        if self._last is None or self._last[0] != role:
            return None
        solution = self._last[1]
        value = solution.goals[role]
        plies = "" if solution.plies is None else f" in {solution.plies} moves"
        moves = () if solution.move is None else ((solution.move, 1.0),)
        return Thoughts(value, moves, f"with perfect play {role} gets {value}{plies}")

    def select(self, game: Game[Any], state: Hashable, role: str, limit: Limit) -> Term:
        """A move of ``role`` that keeps its exact value; the only move when it has one."""
        legal = game.legal_moves(state, role)
        if not legal:
            raise SolverError(f"{role} has no legal move: the game is over")
        if len(legal) == 1:
            return legal[0]
        if self._choose is None or self._game is not game:
            self.start(game, role)
        assert self._choose is not None
        return self._choose(game, state, role)

    def _chooser(self, game: Game[Any]) -> Chooser:
        solver = solver_for(game, self.node_limit)

        def choose(g: Game[Any], state: Hashable, role: str) -> Term:
            solution = solver.solve(g, state, role)
            self._last = (role, solution)
            move = solution.move
            if move is None:
                raise SolverError(f"the solver gave no move for {role}")
            return move

        return choose
