"""The goal heuristic: whether a game's goals, read before the end, foretell its result.

Many rules define ``goal`` in every state, not only in terminal ones: checkers-like
games count pieces, and the count mid-game says much about who wins. A compiled tree
can value a new leaf partly by those goals (the ``goals`` option of
:class:`~ggpkit.search.options.SearchOptions`). Where the goals of a state say nothing
(reversi's "who has more discs now" in random play), the same blend is a disaster: it
lost nearly every reversi match, while in checkersSmall and checkers it won clearly the
other way. So the agent decides per game, in its start clock, by random matches: the
heuristic is used only where the goals of mid-game states go with the final goals
(Pearson correlation over the middle third of each match, at least
:data:`MIN_CORRELATION` for every role whose goals vary), and never on banked goals
(:func:`banks_goals`).

The random matches are :mod:`~ggpkit.agents.mcts.probe`'s, shared with the material heuristic.
"""

from __future__ import annotations

import itertools
import statistics
from typing import Any

from ggpkit.agents.mcts.probe import ProbeMatch
from ggpkit.games.api import Game, GameError

MIN_CORRELATION = 0.3
"""Mid-game goals must correlate at least this much with the final goals."""

GOAL_WEIGHT = 0.6
"""A leaf's share of its state's goals where the heuristic is used (0.3 and 0.6 both
won against none on checkersSmall, 0.6 by more)."""


def goal_heuristic_weight(game: Game[Any], matches: list[ProbeMatch] | None) -> float:
    """:data:`GOAL_WEIGHT` where ``game``'s mid-game goals foretell the results of the
    probe's ``matches``, else 0 (also without matches).

    Each role is judged on its own: pooled, a role that always "has" 100 before the
    end and mostly wins (sheepAndWolf's sheep) would look like information.

    Banked goals (:func:`banks_goals`) are left out however well they correlate:
    such a goal is blind to what a role is about to lose, and the playouts count it
    anyway. Valued by them, both sides of checkersBarrelNoKings trade pieces greedily
    and lose to the same player without them, as in checkersTorusNoKings and
    point_grab.
    """
    samples = None if matches is None else _mid_game_goals(game, matches)
    if matches is None or samples is None or banks_goals(game, matches):
        return 0.0
    correlations = [
        statistics.correlation(middle, final)
        for middle, final in samples.values()
        if len(set(middle)) > 1 and len(set(final)) > 1
    ]
    if not correlations:
        return 0.0
    return GOAL_WEIGHT if min(correlations) >= MIN_CORRELATION else 0.0


def _mid_game_goals(
    game: Game[Any], matches: list[ProbeMatch]
) -> dict[str, tuple[list[int], list[int]]] | None:
    """Per role, (its goal in a mid-game state, its goal at the end) for every sampled
    state; None where a state has no goals."""
    samples: dict[str, tuple[list[int], list[int]]] = {r: ([], []) for r in game.roles}
    try:
        for match in matches:
            for state in match.middle:
                goals = game.goals(state)
                for role, (middle, final) in samples.items():
                    middle.append(goals[role])
                    final.append(match.final[role])
    except GameError:  # a role has no goal (or several) before the end
        return None
    return samples


def banks_goals(game: Game[Any], matches: list[ProbeMatch]) -> bool:
    """Whether the goals count what each role has banked: some role's goal rises before
    the end, and none ever falls, in the probe's samples (the middle states in order,
    then the late ones, each followed by the end).

    Such goals (captures counted, points collected) need no static heuristic at all:
    the playouts count them, and both the goal and the material heuristic misjudge
    what a role is about to lose. In checkersBarrelNoKings, checkersTorusNoKings and
    the native pawn-checkers-barrel, the material heuristic's player lost most matches
    to the same player without it.
    """
    rises = False
    try:
        for match in matches:
            for states in (match.middle, match.late):
                seen = [game.goals(s) for s in states]
                for before, after in itertools.pairwise([*seen, match.final]):
                    if any(after[r] < before[r] for r in game.roles):
                        return False
                for before, after in itertools.pairwise(seen):
                    rises = rises or any(after[r] > before[r] for r in game.roles)
    except GameError:  # a role has no goal (or several) before the end
        return False
    return rises
