"""``SolverAgent``: perfect play from the exact solvers.

It picks its solver from the game: the peg solitaire solver for ``peg`` (with the
built value table when there is one), the breakthrough-holes solver for
``breakthrough-holes``, and the generic solver (whole reachable graph) for any
other game, which works for small turn-taking games and stops with a clear
:class:`SolverError` for the rest (too many states, simultaneous moves, cycles).

The dedicated solvers read positions through ``game.facts``, so they serve the
native engines and their GDL twins alike. The agent ignores the limit: an exact
answer takes what it takes (the first breakthrough-holes move from the start is a
full solve; see ``ggpkit solve breakthrough-holes``).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from ggpkit.agents.base import Agent, Limit
from ggpkit.agents.solvers.breakthrough_solver import BreakthroughSolver
from ggpkit.agents.solvers.generic import GenericSolver, SolverError
from ggpkit.agents.solvers.peg_solver import PegSolver
from ggpkit.agents.solvers.peg_table import PegTable, PegTableError
from ggpkit.games.api import Game
from ggpkit.gdl.terms import Term

Chooser = Callable[[Game[Any], Hashable, str], Term]

PEG = "peg"
BREAKTHROUGH = "breakthrough-holes"


def dedicated_solver(game: Game[Any]) -> str | None:
    """The name of the dedicated solver for ``game`` (``"peg"``, ``"breakthrough-holes"``)."""
    if game.name == PEG and game.roles == ("jumper",):
        return PEG
    if game.name == BREAKTHROUGH and game.roles == ("white", "black"):
        return BREAKTHROUGH
    return None


def peg_solver() -> PegSolver:
    """A peg solver that answers from the built table when there is one, else by search."""
    try:
        table = PegTable() if PegTable.available() else None
    except PegTableError:
        table = None
    return PegSolver(lookup=table.lookup if table is not None else None)


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

    def start(self, game: Game[Any], role: str) -> None:
        """Pick (and keep for the match) the solver for ``game``."""
        self._game = game
        self._choose = self._chooser(game)

    def stop(self) -> None:
        """Drop the solver and its tables."""
        self._game = None
        self._choose = None

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
        kind = dedicated_solver(game)
        if kind == PEG:
            peg = peg_solver()
            return lambda g, s, r: peg.best_move(g, s)
        if kind == BREAKTHROUGH:
            bt = BreakthroughSolver(table_bits=24)
            return lambda g, s, r: bt.best_move(g, s)
        generic = GenericSolver(game, self.node_limit)
        return lambda g, s, r: generic.best_moves(s, r)[0]
