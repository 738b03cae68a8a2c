"""What one role knows of a match in a game of imperfect information: its view.

In GDL-II (``game.info.imperfect``) a role is never shown the state. After each joint
move it learns two things only: its own move as played (which tells it when a move it
sent was replaced) and its percepts, what the rules' ``sees`` give it. A
:class:`RoleView` is that and nothing else, one entry per joint move so far. It stands
where the state stands in a game of perfect information: the match driver hands a
player its view instead of the state, the GDL-II protocol sends a view's last entry
(``LASTMOVE`` and ``PERCEPTS``), and interfaces show a role its view.

The states a view leaves possible are found with :mod:`ggpkit.games.information`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ggpkit.gdl.terms import Term


@dataclass(frozen=True, slots=True)
class RoleView:
    """A role's own moves and its percepts, for each joint move of a match so far."""

    role: str
    moves: tuple[Term, ...] = ()
    """The role's move in each joint move, as played (not as it was sent)."""
    percepts: tuple[frozenset[Term], ...] = ()
    """What the role perceived of each joint move (``sees``), in the same order."""

    def __post_init__(self) -> None:
        if len(self.moves) != len(self.percepts):
            raise ValueError(
                f"a view needs one set of percepts per move: {len(self.moves)} moves, "
                f"{len(self.percepts)} sets of percepts"
            )

    @property
    def turn(self) -> int:
        """How many joint moves the role has seen played."""
        return len(self.moves)

    @property
    def last_move(self) -> Term | None:
        """The role's move in the last joint move, None before the first."""
        return self.moves[-1] if self.moves else None

    @property
    def last_percepts(self) -> frozenset[Term] | None:
        """What the role perceived of the last joint move, None before the first."""
        return self.percepts[-1] if self.percepts else None

    def then(self, move: Term, percepts: frozenset[Term]) -> RoleView:
        """This view after one more joint move, in which the role played ``move``."""
        return RoleView(self.role, (*self.moves, move), (*self.percepts, frozenset(percepts)))


def views_of_line(
    roles: Sequence[str],
    joints: Sequence[Sequence[Term]],
    percepts: Sequence[Mapping[str, frozenset[Term]]],
) -> dict[str, RoleView]:
    """Each role's view of a line of play: its joint moves (in role order) and what each
    role perceived of each (as :meth:`~ggpkit.games.api.Game.percepts` gives them)."""
    if len(joints) != len(percepts):
        raise ValueError(f"{len(joints)} joint moves but {len(percepts)} sets of percepts")
    views = {role: RoleView(role) for role in roles}
    for joint, seen in zip(joints, percepts, strict=True):
        for index, role in enumerate(roles):
            views[role] = views[role].then(joint[index], seen[role])
    return views
