"""Exact solvers: peg solitaire, breakthrough-holes, a generic one for small games, and an agent.

``SolverAgent`` plays by them; ``ggpkit solve GAME`` prints solved values.
"""

from ggpkit.agents.solvers.agent import SolverAgent
from ggpkit.agents.solvers.generic import (
    GenericSolver,
    NodeLimitError,
    SimultaneousMovesError,
    SolverError,
)

__all__ = [
    "GenericSolver",
    "NodeLimitError",
    "SimultaneousMovesError",
    "SolverAgent",
    "SolverError",
]
