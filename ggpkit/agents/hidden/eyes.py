"""States as an opponent sees the match, for a search's model of that opponent.

Information Set MCTS lets an opponent choose by what it learns in the searcher's
sampled states, and so lets it know what only the searcher knows: in the banker and
the thief, the banker sees which bank is the target and every state it samples has
that target, so the thief of its search always raids it, and the banker, sure to lose
whatever it does, deposits at random. Here the opponents' own views are rebuilt from
histories of the searcher's (their moves and percepts on those lines of play), and
states are drawn from *their* information sets: an opponent that learns how to play in
them learns from what it can know (the thief raids the fullest bank, and the banker
learns to keep its target from being the fullest).
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Hashable, Sequence
from typing import Any

from ggpkit.games.api import Game
from ggpkit.games.information import History, InformationSetError, joint_moves
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
        try:
            options = joint_moves(game, state, view.role, view.moves[step])
            tried = itertools.islice(options, JOINTS_A_STEP)
            found = next((j for j in tried if _reached(game, state, j, after, deadline)), None)
        except (InformationSetError, TimeoutError):
            return None
        if found is None:
            return None
        joints.append(found)
    return joints


def _reached(game: Game[Any], state: Hashable, joint: list[Term], after: Hashable,
             deadline: float) -> bool:  # fmt: skip
    """Whether ``joint`` leads from ``state`` to ``after``; TimeoutError past ``deadline``."""
    if time.perf_counter() > deadline:
        raise TimeoutError
    return bool(game._next(state, joint) == after)


def opponent_views(
    game: Game[Any], lines: Sequence[History], view: RoleView, deadline: float
) -> dict[str, list[RoleView]]:
    """Each other role's distinct views of a few of ``lines`` (the searcher's histories
    of ``view``), the joint moves of each line rebuilt once for all of them; fewer, or
    none, where ``deadline`` (``perf_counter``) comes first."""
    views: dict[str, dict[RoleView, None]] = {r: {} for r in game.roles if r != view.role}
    for line in lines[:EYE_HISTORIES]:
        joints = joints_of(game, line, view, deadline)
        if joints is None:
            continue
        steps = zip(line[:-1], joints, strict=True)
        percepts = [game._percepts(state, joint) for state, joint in steps]
        for role, seen in views_of_line(game.roles, joints, percepts).items():
            if role in views:
                views[role].setdefault(seen, None)
    return {role: list(seen) for role, seen in views.items()}


def opponent_states(
    game: Game[Any], views: Sequence[RoleView], rng: random.Random, deadline: float
) -> list[Hashable]:
    """Up to :data:`EYE_STATES` live states of the information sets of ``views`` (one
    opponent's), drawn in turns over them; fewer, or none, where ``deadline`` comes
    first."""
    found: list[Hashable] = []
    dead = [DeadStates() for _ in views]
    for attempt in range(EYE_STATES if views else 0):
        if time.perf_counter() > deadline:
            break
        index = attempt % len(views)
        drawn = sample_history(game, views[index], rng, EYE_BUDGET, dead=dead[index],
                               deadline=deadline)  # fmt: skip
        if drawn is not None and not game.is_terminal(drawn[-1]):
            found.append(drawn[-1])
    return found
