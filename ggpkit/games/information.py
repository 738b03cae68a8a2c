"""Information sets: the states a role's view of a match leaves possible, and how likely each is.

A role of a GDL-II game knows only its view (:class:`~ggpkit.games.views.RoleView`): its
own moves and its percepts. A *history* is a line of states from the initial state in
which, at every step, some joint move gave the role the move it played and exactly the
percepts it saw; its last state is one the role may be in. The set of those last states
is the role's information set.

Small games enumerate every history (:func:`histories`) or the posterior of every state
(:func:`weighted_states`); big ones sample them (:mod:`~ggpkit.games.sampling`).

Why weights: the states of an information set are not equally likely. In Monty Hall a
host who could open either of two doors opens the one seen half the time only, so the
contestant's first door hides the car one time in three, not one in two. Each step of a
sampled history carries a *factor*: the share of the other roles' joint moves (nature's
and the opponents', taken as uniformly random) that give the view. Sampling picks a
consistent joint move uniformly (near enough where a step has many: see
:mod:`~ggpkit.games.sampling`), so the product of the factors is the history's
importance weight (HyperPlay's, Schofield et al. 2012): the prior probability of the
line over the probability of sampling it.

``use_percepts=False`` reads a view as if its percepts were never told: histories need
only give the role its own moves. It is the honest baseline of a player that ignores
what it sees. Everything here reads the game through its contract only (the unchecked
steps, ``_next`` and ``_percepts``, on joint moves made of legal moves: checking each
again doubled the cost of a walk).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ggpkit.errors import GgpkitError
from ggpkit.games.api import Game
from ggpkit.games.views import RoleView
from ggpkit.gdl.terms import Term

History = tuple[Hashable, ...]
"""The states of a line of play, from the initial state; the last is the current one."""

MAX_JOINTS = 100_000
"""Joint moves one step may have before :func:`joint_moves` refuses to list them."""


class InformationSetError(GgpkitError, ValueError):
    """A view no history gives (it is not of this game), or a set too big to list."""


@dataclass(frozen=True, slots=True)
class Hypothesis:
    """A sampled history and the factor of each of its steps (see the module doc)."""

    line: History
    factors: tuple[float, ...] = ()

    @property
    def weight(self) -> float:
        """The history's importance weight: the product of its steps' factors."""
        return math.prod(self.factors)

    @property
    def state(self) -> Hashable:
        """The state the history ends in."""
        return self.line[-1]

    def prefix(self, steps: int) -> Hypothesis:
        """The history's first ``steps`` joint moves."""
        return Hypothesis(self.line[: steps + 1], self.factors[:steps])


def joint_moves(game: Game[Any], state: Hashable, role: str, move: Term) -> Iterator[list[Term]]:
    """Every joint move of ``state`` (role order) in which ``role`` plays ``move``."""
    options = [[move] if other == role else game.legal_moves(state, other) for other in game.roles]
    count = math.prod(len(moves) for moves in options)
    if count > MAX_JOINTS:
        raise InformationSetError(f"{count} joint moves in one step: too many to list")
    for joint in itertools.product(*options):
        yield list(joint)


def fits_view(game: Game[Any], state: Hashable, joint: list[Term], view: RoleView, step: int,
          use_percepts: bool) -> bool:  # fmt: skip
    """Whether ``joint`` (legal in ``state``) gives the role the percepts of ``step``."""
    return not use_percepts or game._percepts(state, joint)[view.role] == view.percepts[step]


def can_play(game: Game[Any], state: Hashable, view: RoleView, step: int) -> bool:
    """Whether the role could play its move of ``step`` in ``state``."""
    return not game.is_terminal(state) and view.moves[step] in game.legal_moves(state, view.role)


def successors(
    game: Game[Any], state: Hashable, view: RoleView, step: int, use_percepts: bool = True
) -> list[Hashable]:
    """The states after ``state`` that give ``view``'s role its move and percepts of
    joint move number ``step`` (duplicates kept once)."""
    if not can_play(game, state, view, step):
        return []
    found: dict[Hashable, None] = {}
    for joint in joint_moves(game, state, view.role, view.moves[step]):
        if fits_view(game, state, joint, view, step, use_percepts):
            found.setdefault(game._next(state, joint), None)
    return list(found)


def histories(
    game: Game[Any], view: RoleView, limit: int = 10_000, use_percepts: bool = True
) -> list[History]:
    """Every history that gives ``view`` (states merged where two lines meet).

    InformationSetError when there are more than ``limit`` (sample them instead) or none.
    """
    frontier: list[History] = [(game.initial_state(),)]
    for step in range(view.turn):
        grown: dict[Hashable, History] = {}
        for line in frontier:
            for after in successors(game, line[-1], view, step, use_percepts):
                grown.setdefault(after, (*line, after))
                if len(grown) > limit:
                    raise InformationSetError(
                        f"more than {limit} states fit {view.role}'s view at step {step + 1}"
                    )
        frontier = list(grown.values())
    if not frontier:
        raise InformationSetError(f"no line of {game.name} gives {view.role} this view")
    return frontier


def information_set(
    game: Game[Any], view: RoleView, limit: int = 10_000, use_percepts: bool = True
) -> list[Hashable]:
    """Every state ``view``'s role may be in (see :func:`histories`)."""
    return [line[-1] for line in histories(game, view, limit, use_percepts)]


def weighted_states(
    game: Game[Any], view: RoleView, limit: int = 10_000, use_percepts: bool = True
) -> dict[Hashable, float]:
    """The posterior probability of each state of ``view``'s information set, the other
    roles (nature and opponents) playing uniformly at random: exact, by a forward pass
    over every history. InformationSetError as for :func:`histories`."""
    belief: dict[Hashable, float] = {game.initial_state(): 1.0}
    for step in range(view.turn):
        belief = advance_belief(game, belief, view, step, limit, use_percepts)
    return belief


def advance_belief(
    game: Game[Any],
    belief: dict[Hashable, float],
    view: RoleView,
    step: int,
    limit: int = 10_000,
    use_percepts: bool = True,
    parents: dict[Hashable, Hashable] | None = None,
) -> dict[Hashable, float]:
    """``belief`` (state: probability, at joint move ``step`` of ``view``) one joint move
    on, by Bayes' rule with the other roles uniformly random; ``parents``, where given,
    gets one state before for each state after. InformationSetError when more than
    ``limit`` states (or ``limit`` times 8 joint moves to try) would be needed, or none
    is left."""
    grown: dict[Hashable, float] = {}
    work = 0
    for state, mass in belief.items():
        if not can_play(game, state, view, step):
            continue
        joints = list(joint_moves(game, state, view.role, view.moves[step]))
        work += len(joints)
        if work > 8 * limit:
            raise InformationSetError(f"more than {8 * limit} joint moves to weigh")
        for joint in joints:
            if fits_view(game, state, joint, view, step, use_percepts):
                after = game._next(state, joint)
                grown[after] = grown.get(after, 0.0) + mass / len(joints)
                if parents is not None:
                    parents.setdefault(after, state)
        if len(grown) > limit:
            raise InformationSetError(
                f"more than {limit} states fit {view.role}'s view at step {step + 1}"
            )
    total = sum(grown.values())
    if not grown or total <= 0:
        raise InformationSetError(f"no line of {game.name} gives {view.role} this view")
    return {state: mass / total for state, mass in grown.items()}


def views_agree(
    game: Game[Any], line: Sequence[Hashable], view: RoleView, use_percepts: bool = True
) -> bool:
    """Whether ``line`` (a history) can give ``view``: each state follows from the one
    before by a joint move that gives the role its move and percepts."""
    if len(line) != view.turn + 1 or line[0] != game.initial_state():
        return False
    return all(
        line[k + 1] in successors(game, line[k], view, k, use_percepts) for k in range(view.turn)
    )
