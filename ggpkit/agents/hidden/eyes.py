"""States as an opponent sees the match, for a search's model of that opponent.

Information Set MCTS lets an opponent choose by what it learns in the searcher's
sampled states, and so lets it know what only the searcher knows: in the banker and
the thief, the banker sees which bank is the target and every state it samples has
that target, so the thief of its search always raids it, and the banker, sure to lose
whatever it does, deposits at random. Here the opponent's own view is rebuilt from a
history of the searcher's (its moves and percepts on that line of play), and states
are drawn from *its* information set: an opponent that learns how to play in them
learns from what it can know (the thief raids the fullest bank, and the banker learns
to keep its target from being the fullest).
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Hashable, Sequence
from typing import Any

from ggpkit.games.api import Game
from ggpkit.games.information import History
from ggpkit.games.sampling import DeadStates, sample_history
from ggpkit.games.views import RoleView, views_of_line
from ggpkit.gdl.terms import Term

EYE_HISTORIES = 4
"""The searcher's histories whose opponent views are rebuilt (views often coincide)."""
EYE_STATES = 16
"""States drawn from an opponent's information sets, over its views."""
JOINTS_A_STEP = 2_000
"""Joint moves tried for one step of a history before its rebuilding is given up (a
step where nature had thousands of options; the opponent is then modelled as before)."""
EYE_BUDGET = 400
"""Expanded steps one walk of the sampler may take for an opponent's state."""


def joints_of(
    game: Game[Any], line: History, view: RoleView, deadline: float
) -> list[list[Term]] | None:
    """The joint moves of ``line``, a history that gives ``view``: at each step one that
    leads from its state to the next with the role playing its own move; None where a
    step's joint moves run past :data:`JOINTS_A_STEP` or ``deadline``."""
    joints: list[list[Term]] = []
    for step, (state, after) in enumerate(itertools.pairwise(line)):
        options = [
            [view.moves[step]] if role == view.role else game.legal_moves(state, role)
            for role in game.roles
        ]
        found = None
        for tried, joint in enumerate(itertools.product(*options)):
            if tried >= JOINTS_A_STEP or time.perf_counter() > deadline:
                return None
            if game._next(state, list(joint)) == after:
                found = list(joint)
                break
        if found is None:
            return None
        joints.append(found)
    return joints


def opponent_view(
    game: Game[Any], line: History, view: RoleView, opponent: str, deadline: float
) -> RoleView | None:
    """``opponent``'s view of ``line`` (a history that gives ``view``), or None where
    its joint moves could not be rebuilt in time."""
    joints = joints_of(game, line, view, deadline)
    if joints is None:
        return None
    percepts = [game._percepts(state, joint) for state, joint in zip(line, joints, strict=False)]
    return views_of_line(game.roles, joints, percepts)[opponent]


def opponent_states(
    game: Game[Any],
    lines: Sequence[History],
    view: RoleView,
    opponent: str,
    rng: random.Random,
    deadline: float,
) -> list[Hashable]:
    """Up to :data:`EYE_STATES` live states of ``opponent``'s information sets, drawn on
    the views it has of a few of ``lines`` (the searcher's histories of ``view``), in
    turns over those views; fewer, or none, where ``deadline`` (``perf_counter``) comes
    first."""
    views: dict[RoleView, None] = {}
    for line in lines[:EYE_HISTORIES]:
        seen = opponent_view(game, line, view, opponent, deadline)
        if seen is not None:
            views.setdefault(seen, None)
    found: list[Hashable] = []
    dead: dict[RoleView, DeadStates] = {seen: DeadStates() for seen in views}
    for attempt in range(EYE_STATES if views else 0):
        if time.perf_counter() > deadline:
            break
        seen = list(views)[attempt % len(views)]
        drawn = sample_history(game, seen, rng, EYE_BUDGET, dead=dead[seen], deadline=deadline)
        if drawn is not None and not game.is_terminal(drawn[-1]):
            found.append(drawn[-1])
    return found
