"""Whether a one-role game's moves commute, seen in random matches.

Why: where two moves played in either order reach one state, and no move becomes
legal that was not (placing queens, knights or marks), every state reachable from a
root is reached by its moves in one order, the order of the network's move indices:
a search that, after a move, tries only moves of that index or later visits each
state once instead of once per order of its moves. queens12ug has 144 moves a
level; a search over orders meets each set of queens up to 12! times.

This is a finding from samples, as goal monotony is
(:mod:`~ggpkit.search.puzzles.goal_monotony`): the search that uses it no longer calls
its values exact, and its lines are real in any case.
"""

from __future__ import annotations

import random
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ggpkit.gdl.terms import Term
    from ggpkit.reasoning.propnet.reasoner import PropnetReasoner

MATCHES = 50
"""Random matches played to the end (or to :data:`MOST_STATES` states in all)."""
MOST_STATES = 2_000
"""States visited over all the matches."""
CPU_SECONDS = 0.5
"""Safety limit on the matches' CPU time (slow rules: fewer matches)."""
MIN_PAIRS = 20
"""Pairs of moves seen played in both orders for the finding to count."""


def commute(reasoner: PropnetReasoner, state: bytes, first: Term, second: Term) -> bool | None:
    """Whether two legal moves of ``state`` played in either order reach one state, each
    legal after the other in both orders or in neither; None where that says nothing
    (the same move, a terminal state after one, or neither legal after the other)."""
    if first == second:
        return None
    a = reasoner.next(state, [first])
    b = reasoner.next(state, [second])
    if reasoner.terminal(a) or reasoner.terminal(b):
        return None
    second_after = second in reasoner.legal(a, 0)
    first_after = first in reasoner.legal(b, 0)
    if second_after != first_after:
        return False
    if not second_after:
        return None
    return reasoner.next(a, [second]) == reasoner.next(b, [first])


def moves_commute(reasoner: PropnetReasoner, rng: random.Random) -> bool:
    """Whether role 0's moves commuted in random matches, no move became legal that was
    not, and at least :data:`MIN_PAIRS` pairs were seen played in both orders."""
    pairs, states = 0, 0
    cpu_limit = time.process_time() + CPU_SECONDS
    for _ in range(MATCHES):
        state = reasoner.initial()
        moves = reasoner.legal(state, 0)
        while moves and not reasoner.terminal(state):
            if states >= MOST_STATES or time.process_time() > cpu_limit:
                return pairs >= MIN_PAIRS
            states += 1
            move = rng.choice(moves)
            after = reasoner.next(state, [move])
            after_moves = reasoner.legal(after, 0)
            if not set(after_moves) <= set(moves):
                return False
            both = commute(reasoner, state, move, rng.choice(moves))
            if both is False:
                return False
            pairs += both is True
            state, moves = after, after_moves
    return pairs >= MIN_PAIRS
