"""Fill puzzles: slots found in the rules, searched one slot at a time, fewest moves first.

Why: in a sudoku, a futoshiki or a hidato, every move writes one blank cell and the
goal asks that none stay blank. A depth-first search over every legal move meets
each partial grid in every order its cells were filled, and learns that a grid is
hopeless only when it has filled everything else around the cell that has no digit
left. Constraint solvers branch on one variable at a time, the one with the fewest
values left ("fail first"), and give a state up as soon as some variable has none.

GDL declares no variables; they are found. A *slot* is a base fact whose value alone
rules out the role's top goal (:func:`~ggpkit.reasoning.propnet.latches.top_goal_blockers`:
a blank cell, where the goal asks for no blank cell), so every winning line changes
it; a move *fills* the slots it changes from that value. Branching on the moves of
one slot only loses no solution where the order of moves does not matter and a move
once illegal stays so; a slot no legal move fills is then never filled. Those two
properties are findings from random matches (:func:`find_plan`), not proofs, as goal
monotony is (:mod:`~ggpkit.search.puzzles.goal_monotony`): the solver that uses them
no longer calls its values exact, and its lines are real in any case (every move of
them was played).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
from numba import njit

from ggpkit.reasoning.propnet.latches import top_goal_blockers
from ggpkit.search.puzzles.commuting import commute
from ggpkit.search.puzzles.nested import child

if TYPE_CHECKING:
    from ggpkit.gdl.terms import Term
    from ggpkit.reasoning.propnet.reasoner import PropnetReasoner

MATCHES = 100
"""Random matches played to the end (or to :data:`MOST_STATES` states in all)."""
MOST_STATES = 5_000
"""States visited over all the matches."""
CPU_SECONDS = 1.0
"""Safety limit on the matches' CPU time (slow rules: fewer matches)."""
MIN_FILLS = 20
"""Moves seen filling a slot for the finding to count (a puzzle must be seen filled)."""
MIN_PAIRS = 20
"""Pairs of moves seen played in both orders for the finding to count."""
WIDEST = 8
"""Most slots one move may fill (a move that fills more is no slot filler)."""
UNKNOWN = -1
"""``fill_count`` of a move whose filled slots the search has not seen yet."""


@dataclass(frozen=True, slots=True)
class FillPlan:
    """Where a one-role game is a fill puzzle: ``blocking[i]`` is the value of base fact
    ``i`` that rules the top goal out (-1: none), and ``fills`` / ``fill_count``
    (rows per legal literal of the network) the slots each move fills, as seen so far
    (:data:`UNKNOWN` count: not yet; the search fills them in as it meets moves)."""

    blocking: npt.NDArray[np.int8]
    fills: npt.NDArray[np.int32]
    fill_count: npt.NDArray[np.int32]


def unlearned(blocking: npt.NDArray[np.int8], legal_literals: int) -> FillPlan:
    """A plan over ``blocking`` whose moves' slots are all still to be seen."""
    return FillPlan(
        blocking,
        np.zeros((legal_literals, WIDEST), dtype=np.int32),
        np.full(legal_literals, UNKNOWN, dtype=np.int32),
    )


def no_plan(legal_literals: int) -> FillPlan:
    """The plan of a game that is no fill puzzle (empty ``blocking``: the search
    branches on every move)."""
    return unlearned(np.zeros(0, dtype=np.int8), legal_literals)


def find_plan(reasoner: PropnetReasoner, rng: random.Random) -> FillPlan | None:
    """The fill plan of role 0's game, or None where it is no fill puzzle: no base fact
    rules out its top goal alone, or random matches saw a move become legal again,
    two moves whose order mattered, a slot emptied again, a move fill different
    slots at two times, or too few fills and pairs to tell."""
    net = reasoner.net
    blocking = top_goal_blockers(net)
    if blocking is None or not (blocking >= 0).any():
        return None
    start = int(net.move_start[0])
    index = {move: start + i for i, move in enumerate(net.moves[0])}
    plan = unlearned(blocking, len(net.legal_lits))
    seen = _Sample(reasoner, plan, index)
    if not seen.play(rng):
        return None
    return plan if seen.fills >= MIN_FILLS and seen.pairs >= MIN_PAIRS else None


class _Sample:
    """The random matches of :func:`find_plan` and what they saw."""

    def __init__(self, reasoner: PropnetReasoner, plan: FillPlan, index: dict[Term, int]) -> None:
        self.reasoner = reasoner
        self.plan = plan
        self.index = index
        self.fills = 0
        self.pairs = 0

    def play(self, rng: random.Random) -> bool:
        """Play the matches; False as soon as one breaks a property of fill puzzles."""
        reasoner, states = self.reasoner, 0
        cpu_limit = time.process_time() + CPU_SECONDS
        for _ in range(MATCHES):
            state = reasoner.initial()
            moves = reasoner.legal(state, 0)  # (sorted by text: the same draws each time)
            while moves and not reasoner.terminal(state):
                if states >= MOST_STATES or time.process_time() > cpu_limit:
                    return True
                states += 1
                move = rng.choice(moves)
                after = reasoner.next(state, [move])
                after_moves = reasoner.legal(after, 0)
                if not set(after_moves) <= set(moves) or not self._filled(state, move, after):
                    return False
                if len(moves) > 1 and not self._commute(state, move, rng.choice(moves)):
                    return False
                state, moves = after, after_moves
        return True

    def _filled(self, state: bytes, move: Term, after: bytes) -> bool:
        """Record the slots ``move`` filled; False where it emptied one or filled others
        than before."""
        blocking = self.plan.blocking
        slots = blocking >= 0
        was_blocking = slots & (self.reasoner.bits(state) == blocking)
        now_blocking = slots & (self.reasoner.bits(after) == blocking)
        if (now_blocking & ~was_blocking).any():
            return False
        filled = np.flatnonzero(was_blocking & ~now_blocking).astype(np.int32)
        if len(filled) > WIDEST:
            return False
        k = self.index[move]
        count = int(self.plan.fill_count[k])
        if count != UNKNOWN and not np.array_equal(self.plan.fills[k, :count], filled):
            return False
        self.plan.fills[k, : len(filled)] = filled
        self.plan.fill_count[k] = len(filled)
        self.fills += len(filled) > 0
        return True

    def _commute(self, state: bytes, first: Term, second: Term) -> bool:
        """Whether two legal moves played in either order reach one state, with each
        legal after the other in both orders or in neither (see :func:`commute`)."""
        both = commute(self.reasoner, state, first, second)
        self.pairs += both is True
        return both is not False


@njit(cache=True, nogil=True)
def one_slot(net, work, val, bits, moves, n, blocking, fills, fill_count, counts, tmp):  # type: ignore[no-untyped-def]
    """Keep of state ``bits``'s legal moves ``moves[:n]`` those that fill the slot with
    the fewest filling moves, at the front: their number; 0 where some slot still to
    fill has none (the state is hopeless), ``n`` where no slot is left to fill or a
    move's slots are unclear. ``counts`` is scratch, one per base fact."""
    for i in range(n):  # the slots of moves met for the first time
        k = moves[i]
        if fill_count[k] == UNKNOWN and not _learn(
            net, work, val, bits, k, blocking, fills, fill_count, tmp
        ):
            return n
    counts[:] = 0
    for i in range(n):
        k = moves[i]
        for j in range(fill_count[k]):
            counts[fills[k, j]] += 1
    best, fewest = -1, n + 1
    for s in range(blocking.shape[0]):
        if blocking[s] >= 0 and bits[s] == blocking[s] and counts[s] < fewest:
            best, fewest = s, counts[s]
    if best < 0:
        return n
    if fewest == 0:
        return 0
    kept = 0
    for i in range(n):
        k = moves[i]
        for j in range(fill_count[k]):
            if fills[k, j] == best:
                moves[kept], moves[i] = moves[i], moves[kept]
                kept += 1
                break
    return kept


@njit(cache=True, nogil=True)
def _learn(net, work, val, bits, k, blocking, fills, fill_count, tmp):  # type: ignore[no-untyped-def]
    """Record the slots move ``k`` fills from ``bits``; False where it fills too many."""
    child(net, work, val, bits, k, tmp)
    count = 0
    for s in range(blocking.shape[0]):
        if blocking[s] >= 0 and bits[s] == blocking[s] and tmp[s] != blocking[s]:
            if count == fills.shape[1]:
                return False
            fills[k, count] = s
            count += 1
    fill_count[k] = count
    return True
