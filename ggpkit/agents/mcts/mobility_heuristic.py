"""The mobility heuristic: where having more moves than the others foretells the result.

In many games the side with more choices is the side that is winning (in checkers and
knightThrough the mobility difference of random matches' late states goes with the
result). A role's mobility in a state is its number of legal moves
there, or, where it has no choice (the other side's turn), in the state just before
(where it chose, when two roles take turns; with more roles, or a role moving twice,
it may have had no choice there either and counts 1): a compiled tree reads the same
two states, a new child and its parent
(:func:`~ggpkit.search.tree.kernels.mobility_goals`). Asked for (``mcts:mobility=W``),
a leaf is then worth that share of each role's share of all roles' mobility, the rest
of its playouts, like the goal and material heuristics, where neither of those two is
used and the probe's matches show the share going with the final goals for every role
(Pearson correlation at least :data:`MIN_CORRELATION`).

Off unless asked for: against the same player without it, on the games where the probe
picks it, it did not win more than it lost (docs/results.md).
"""

from __future__ import annotations

import statistics
from typing import Any

from ggpkit.agents.mcts.probe import ProbeMatch
from ggpkit.games.api import Game

MIN_CORRELATION = 0.15
"""A role's share of the mobility must correlate at least this much with its final goal
in the second half of the probe's matches (random matches' correlations: checkersSmall
0.44, knightThrough 0.22, breakthroughSmall 0.14, reversi 0.07, connectFour -0.05)."""


def mobility(now: tuple[int, ...], before: tuple[int, ...]) -> list[int]:
    """Each role's mobility: its legal moves ``now``, or ``before`` where it has one now."""
    return [n if n > 1 else max(1, b) for n, b in zip(now, before, strict=True)]


def mobility_foretells(game: Game[Any], matches: list[ProbeMatch] | None) -> bool:
    """Whether each role's share of the mobility in the late states of ``matches`` goes
    with its final goal (False without matches)."""
    if not matches:
        return False
    for role_index, role in enumerate(game.roles):
        shares, finals = [], []
        for match in matches:
            for now, before in match.late_moves:
                counts = mobility(now, before)
                shares.append(counts[role_index] / sum(counts))
                finals.append(match.final[role])
        if len(set(shares)) < 2 or len(set(finals)) < 2:
            return False
        if statistics.correlation(shares, finals) < MIN_CORRELATION:
            return False
    return True
