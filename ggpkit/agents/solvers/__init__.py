"""Exact solving for any game: the generic solver for small games, and the solver agent.

A game with its own solver declares it (``game.info.capabilities.solver``; the
solvers live in the game's folder); ``SolverAgent`` plays by that solver when there
is one and by the generic solver otherwise; ``ggpkit solve GAME`` prints solved values.
"""

from ggpkit.agents.solvers.agent import SolverAgent
from ggpkit.agents.solvers.generic import GenericSolver, NodeLimitError, SolverError

__all__ = [
    "GenericSolver",
    "NodeLimitError",
    "SolverAgent",
    "SolverError",
]
