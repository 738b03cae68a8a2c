"""Random matches played in the start clock, for the heuristics decided per game.

The goal, material and mobility heuristics all ask what mid-game states say about how
a match ends; they read the same matches, so the start clock pays for them once.
The probe is bounded by counts (matches and states), and by CPU time only as a safety
for slow rules, so it decides the same on a loaded machine as on a quiet one unless
the rules are too slow to probe at all (then there are no matches to read).
"""

from __future__ import annotations

import random
import time
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ggpkit.games.api import Game

T = TypeVar("T")

PROBE_MATCHES = 400
"""Random matches the probe plays to the end (a piece count's correlation with the
result is near 0.1 in breakthrough: it takes hundreds of matches to tell from noise)."""

PROBE_STATES = 40_000
"""Most states the probe visits, over all its matches."""

SAMPLES_PER_MATCH = 6
"""Mid-game states kept per match, evenly spaced (neighbours say nearly the same)."""

MIN_MATCHES = 8
"""Matches the probe must finish for anything to be decided from them."""

PROBE_CPU_SECONDS = 1.0
"""Safety limit on the probe's CPU time (slow rules: fewer matches, or none). The 400
matches took 0.3-0.9 s on eight of the 12 usual games; reversi, the checkers files and
quarto reach this limit (quarto with fewer than 30 matches)."""


@dataclass(frozen=True, slots=True)
class ProbeMatch:
    """One random match: some states of its middle third, some of its second half (at
    most :data:`SAMPLES_PER_MATCH` each, evenly spaced) and its final goals."""

    middle: list[Hashable]
    late: list[Hashable]
    final: dict[str, int]
    late_moves: list[tuple[tuple[int, ...], tuple[int, ...]]] = field(default_factory=list)
    """For each state of ``late``: each role's number of legal moves there, and in the
    state before it (what a mobility heuristic reads)."""


def probe_matches(game: Game[Any], rng: random.Random) -> list[ProbeMatch] | None:
    """Random matches of ``game`` within the budget; None where fewer than
    :data:`MIN_MATCHES` end within it."""
    matches: list[ProbeMatch] = []
    states = 0
    cpu_limit = time.process_time() + PROBE_CPU_SECONDS
    for _ in range(PROBE_MATCHES):
        line, counts, end = _random_match(game, rng, PROBE_STATES - states, cpu_limit)
        states += len(line)
        if end is None:
            break
        middle = _spaced(line[len(line) // 3 : 2 * len(line) // 3 + 1])
        half = len(line) // 2
        before = [counts[max(0, k - 1)] for k in range(len(counts))]
        late_moves = list(zip(_spaced(counts[half:]), _spaced(before[half:]), strict=True))
        matches.append(ProbeMatch(middle, _spaced(line[half:]), end, late_moves))
    return matches if len(matches) >= MIN_MATCHES else None


def _spaced(items: list[T]) -> list[T]:
    step = max(1, len(items) // SAMPLES_PER_MATCH)
    return items[::step][:SAMPLES_PER_MATCH]


def _random_match(
    game: Game[Any], rng: random.Random, max_states: int, cpu_limit: float
) -> tuple[list[Hashable], list[tuple[int, ...]], dict[str, int] | None]:
    """The non-terminal states of one random match, each role's number of legal moves
    in each, and the match's goals (None: out of budget)."""
    state = game.initial_state()
    line: list[Hashable] = []
    counts: list[tuple[int, ...]] = []
    while not game.is_terminal(state):
        if len(line) >= max_states or time.process_time() > cpu_limit:
            return line, counts, None
        line.append(state)
        legal = game.all_legal_moves(state)
        counts.append(tuple(len(ms) for ms in legal))
        state = game.next_state(state, [rng.choice(ms) for ms in legal])
    return line, counts, dict(game.goals(state))
