"""Which way a one-role game's goal moves as it is played, seen in random matches.

Why: where it never rises, a state already at the role's least goal stays there
however the game goes on, so a solver may value it at once instead of searching
under it. queens06ug scores 0 as soon as two queens attack each other, but its rules
let play go on to the last queen: its latches (see :mod:`~ggpkit.reasoning.propnet.latches`)
do not show it, since a queen's cell keeps its queen only because placing on it is
not legal. Random matches do: the goal falls and never comes back.

This is a finding from samples, not a proof: the solver's values rest on it, so it
is an option (``mcts:monotone``), and the matches must see the goal change.

The other way round, a goal that rises at nearly every move and never falls counts
the moves made (a knight's tour scores the squares toured): the longest line wins,
and the solver may then try first the moves that leave the fewest ways on
(``mcts:ordered``), the classic rule for long paths.
"""

from __future__ import annotations

import random
import time
from typing import TYPE_CHECKING

from ggpkit.reasoning.base import ReasonerError

if TYPE_CHECKING:
    from ggpkit.reasoning.propnet.reasoner import PropnetReasoner

MATCHES = 200
"""Random matches played to the end (or to :data:`MOST_STATES` states in all)."""
MOST_STATES = 20_000
"""States visited over all the matches."""
CPU_SECONDS = 0.5
"""Safety limit on the matches' CPU time (slow rules: fewer matches)."""
MIN_FALLS = 10
"""Matches in which the goal must be seen to fall for the finding to count."""
MOST_FLAT = 0.1
"""Share of moves with the goal unchanged that a goal counting the moves may have."""
MIN_MOVES = 100
"""Moves that must be seen for a goal to count as counting them."""


def never_rises(reasoner: PropnetReasoner, rng: random.Random) -> bool:
    """Whether role 0's goal never rose from one state to the next in random matches,
    and fell in at least :data:`MIN_FALLS` of them (a goal that never moves says
    nothing). States where the rules give no single goal are passed over."""
    falls, states = 0, 0
    cpu_limit = time.process_time() + CPU_SECONDS
    for _ in range(MATCHES):
        state, fell = reasoner.initial(), False
        last = _goal(reasoner, state)
        while not reasoner.terminal(state):
            if states >= MOST_STATES or time.process_time() > cpu_limit:
                return falls >= MIN_FALLS
            state = reasoner.next(state, [rng.choice(reasoner.legal(state, 0))])
            states += 1
            goal = _goal(reasoner, state)
            if goal is None:
                continue
            if last is not None and goal > last:
                return False
            fell = fell or (last is not None and goal < last)
            last = goal
        falls += fell
    return falls >= MIN_FALLS


def rises_every_move(reasoner: PropnetReasoner, rng: random.Random) -> bool:
    """Whether role 0's goal rose at all but :data:`MOST_FLAT` of the moves of random
    matches and never fell, over :data:`MIN_MOVES` moves or more (moves from or to a
    state where the rules give no single goal are passed over)."""
    moves, flat, states = 0, 0, 0
    cpu_limit = time.process_time() + CPU_SECONDS
    for _ in range(MATCHES):
        state = reasoner.initial()
        last = _goal(reasoner, state)
        while not reasoner.terminal(state):
            if states >= MOST_STATES or time.process_time() > cpu_limit:
                break
            state = reasoner.next(state, [rng.choice(reasoner.legal(state, 0))])
            states += 1
            goal = _goal(reasoner, state)
            if goal is not None and last is not None:
                if goal < last:
                    return False
                moves, flat = moves + 1, flat + (goal == last)
            last = goal
    return moves >= MIN_MOVES and flat <= MOST_FLAT * moves


def _goal(reasoner: PropnetReasoner, state: bytes) -> int | None:
    try:
        return reasoner.goal(state, 0)
    except ReasonerError:  # the rules give no single goal here
        return None
