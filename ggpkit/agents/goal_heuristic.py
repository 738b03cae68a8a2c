"""The goal heuristic: whether a game's goals, read before the end, foretell its result.

Many rules define ``goal`` in every state, not only in terminal ones: checkers-like
games count pieces, and the count mid-game says much about who wins. A compiled tree
can value a new leaf partly by those goals (``MCTSAgent(goals=...)``). Where the goals
of a state say nothing (reversi's "who has more discs now" in random play), the
same blend is a disaster: 0.5 of the points against 9.5 in ten reversi matches at
0.5 s a move, while checkersSmall went 15-4-1 the other way (checkers, 6-0). So the
agent decides per game, in its start clock, by random matches: the heuristic is used only where the
goals of mid-game states go with the final goals (Pearson correlation over the
middle third of each match, at least :data:`MIN_CORRELATION` for every role whose
goals vary).

The probe is bounded by counts (matches and states), and by CPU time only as a
safety for slow rules, so it decides the same on a loaded machine as on a quiet one
unless the rules are too slow to probe at all (then it says no).
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Hashable
from typing import Any

from ggpkit.games.api import Game, GameError

PROBE_MATCHES = 24
"""Random matches the probe plays to the end."""

PROBE_STATES = 4000
"""Most states the probe visits, over all its matches."""

MIN_MATCHES = 8
"""Matches the probe must finish to decide anything."""

PROBE_CPU_SECONDS = 0.5
"""Safety limit on the probe's CPU time (slow rules: no heuristic). The probe takes
0.02-0.25 s on the games measured; quarto would take over a second of a start clock
that already holds its network's build."""

MIN_CORRELATION = 0.3
"""Mid-game goals must correlate at least this much with the final goals."""

GOAL_WEIGHT = 0.6
"""A leaf's share of its state's goals where the heuristic is used (0.3 and 0.6 both
won against none on checkersSmall, 12-4-4 and 15-4-1 in 20 matches at 0.5 s a move)."""


def goal_heuristic_weight(game: Game[Any], rng: random.Random) -> float:
    """:data:`GOAL_WEIGHT` where ``game``'s mid-game goals foretell its results, else 0.

    Each role is judged on its own: pooled, a role that always "has" 100 before the
    end and mostly wins (sheepAndWolf's sheep) would look like information.
    """
    samples = _mid_game_goals(game, rng)
    if samples is None:
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
    game: Game[Any], rng: random.Random
) -> dict[str, tuple[list[int], list[int]]] | None:
    """Per role, (its goal in a mid-game state, its goal at the end) for every sampled
    state; None where a state has no goals or too few matches end within the budget."""
    samples: dict[str, tuple[list[int], list[int]]] = {r: ([], []) for r in game.roles}
    states = 0
    finished = 0
    cpu_limit = time.process_time() + PROBE_CPU_SECONDS
    try:
        for _ in range(PROBE_MATCHES):
            line, end = _random_match(game, rng, PROBE_STATES - states, cpu_limit)
            states += len(line)
            if end is None:
                break
            finished += 1
            for state in line[len(line) // 3 : 2 * len(line) // 3 + 1]:
                goals = game.goals(state)
                for role, (middle, final) in samples.items():
                    middle.append(goals[role])
                    final.append(end[role])
    except GameError:  # a role has no goal (or several) before the end
        return None
    return samples if finished >= MIN_MATCHES else None


def _random_match(
    game: Game[Any], rng: random.Random, max_states: int, cpu_limit: float
) -> tuple[list[Hashable], dict[str, int] | None]:
    """The non-terminal states of one random match and its goals (None: out of budget)."""
    state = game.initial_state()
    line: list[Hashable] = []
    while not game.is_terminal(state):
        if len(line) >= max_states or time.process_time() > cpu_limit:
            return line, None
        line.append(state)
        state = game.next_state(state, [rng.choice(ms) for ms in game.all_legal_moves(state)])
    return line, dict(game.goals(state))
