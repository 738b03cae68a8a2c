"""A one-role game's step counter, seen in random matches: facts a search may leave out
of the key it keeps states by.

Why: most puzzles count their steps in the state (``(step 12)``), so a position
reached in 9 moves and the same position reached in 11 are two states, and a search
that keeps each state once keeps each position once per count it is reached at. A
breadth-first search reaches each position first by a shortest line; keyed on the
position alone, it keeps that first arrival and drops the later ones, which a puzzle
that pays for short lines never needs. A goal that asks for a
later arrival (an exact step) may need them, so with the counter left out the
search's failure to find a line is no proof; its lines are real in any case (a state
keeps its whole bits, counter included, and its goal is read from them).

A counter is a group of base facts with one functor (``step``) of which exactly one
is true in every state seen, whose true fact changes at every step to one that
depends only on the one before (whatever was played) and never comes back within a
match. This is a finding from samples, as goal monotony is
(:mod:`~ggpkit.search.puzzles.goal_monotony`).
"""

from __future__ import annotations

import random
import time
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from ggpkit.gdl.terms import functor

if TYPE_CHECKING:
    from ggpkit.reasoning.propnet.reasoner import PropnetReasoner

MATCHES = 50
"""Random matches played to the end (or to :data:`MOST_STATES` states in all)."""
MOST_STATES = 5_000
"""States visited over all the matches."""
CPU_SECONDS = 0.3
"""Safety limit on the matches' CPU time (slow rules: fewer matches)."""
MIN_STEPS = 20
"""Steps a group must be seen to count for the finding to stand."""


class _Group:
    """One functor's base facts, and what random matches have shown of them."""

    def __init__(self, indices: list[int]) -> None:
        self.indices = np.array(indices, dtype=np.int64)
        self.after: dict[int, int] = {}
        self.steps = 0
        self.broken = False

    def true_fact(self, bits: npt.NDArray[np.uint8]) -> int:
        """The one fact of the group true in ``bits`` (-1: none or several)."""
        true = self.indices[bits[self.indices] != 0]
        return int(true[0]) if true.shape[0] == 1 else -1

    def step(self, before: int, bits: npt.NDArray[np.uint8], seen: set[int]) -> int:
        """Note the step from fact ``before`` to the state ``bits``; its fact there."""
        now = self.true_fact(bits)
        if now < 0 or now in seen or self.after.setdefault(before, now) != now:
            self.broken = True
        self.steps += 1
        return now


def step_counter(reasoner: PropnetReasoner, rng: random.Random) -> npt.NDArray[np.uint8] | None:
    """Flags over the network's base facts, 1 on those of the step counters random
    matches show (None: none shown)."""
    base = reasoner.net.base
    by_name: dict[str, list[int]] = {}
    for i, fact in enumerate(base):
        by_name.setdefault(functor(fact), []).append(i)
    groups = [_Group(ix) for ix in by_name.values() if len(ix) > 1]
    states = 0
    cpu_limit = time.process_time() + CPU_SECONDS
    for _ in range(MATCHES):
        state = reasoner.initial()
        bits = reasoner.bits(state)
        facts = [g.true_fact(bits) for g in groups]
        seen: list[set[int]] = [{f} for f in facts]
        for group, first in zip(groups, facts, strict=True):
            group.broken = group.broken or first < 0
        while not reasoner.terminal(state) and any(not g.broken for g in groups):
            if states >= MOST_STATES or time.process_time() > cpu_limit:
                return _flags(len(base), groups)
            state = reasoner.next(state, [rng.choice(reasoner.legal(state, 0))])
            bits = reasoner.bits(state)
            states += 1
            for k, group in enumerate(groups):
                if not group.broken:
                    facts[k] = group.step(facts[k], bits, seen[k])
                    seen[k].add(facts[k])
    return _flags(len(base), groups)


def _flags(nb: int, groups: list[_Group]) -> npt.NDArray[np.uint8] | None:
    counters = [g for g in groups if not g.broken and g.steps >= MIN_STEPS]
    if not counters:
        return None
    flags = np.zeros(nb, dtype=np.uint8)
    for group in counters:
        flags[group.indices] = 1
    return flags
