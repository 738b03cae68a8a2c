"""The reasoner contract: what a GDL-backed game needs from any reasoner.

Two families implement it: the slow, simple reference prover (the oracle) and
the fast grounded propositional network. ``ggpkit.games.gdl_game`` wraps a
reasoner into the game API; the differential tests play them side by side.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Protocol, TypeVar

from ggpkit.errors import GgpkitError
from ggpkit.gdl.terms import Term

RS = TypeVar("RS", bound=Hashable)


class ReasonerError(GgpkitError):
    """The rules do not define a proper game here (e.g. no goal value, or two, for a role)."""


class Reasoner(Protocol[RS]):
    """A state machine computed from GDL rules. States are immutable and hashable."""

    roles: tuple[str, ...]

    def initial(self) -> RS:
        """The state described by ``init``."""
        ...

    def legal(self, state: RS, role_index: int) -> list[Term]:
        """The legal moves of one role, in a deterministic order."""
        ...

    def next(self, state: RS, moves: Sequence[Term]) -> RS:
        """The state after a joint move in role order."""
        ...

    def terminal(self, state: RS) -> bool:
        """True in a terminal state."""
        ...

    def goal(self, state: RS, role_index: int) -> int:
        """The goal value of one role; ReasonerError unless exactly one is defined."""
        ...

    def facts(self, state: RS) -> frozenset[Term]:
        """The state as the set of its true facts."""
        ...
