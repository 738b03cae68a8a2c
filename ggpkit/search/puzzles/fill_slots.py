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

The other side of the grid: in a hidato every number goes in one cell, so a number
is a variable too, and one with a single cell left is as forced as a cell with a
single number. Where random matches show an argument of the moves never legal again
once played (the number of ``(place cell number)``) and no slot's name (one value
filled two slots), the plan numbers the moves by it (``FillPlan.values``). Each move
filling one slot, the empty slots then need as many values that still have a legal
move (the pigeonhole): fewer, and the state is hopeless; exactly as many, and each
must be played, so the search may branch on the value with the fewest moves where
it has fewer than any slot (hidato37: see the results file).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
from numba import njit

from ggpkit.reasoning.propnet.latches import top_goal_blockers
from ggpkit.search.puzzles.commuting import commute
from ggpkit.search.puzzles.nested import child

if TYPE_CHECKING:
    from collections.abc import Sequence

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
    (:data:`UNKNOWN` count: not yet; the search fills them in as it meets moves).
    ``values`` (per legal literal; empty: none found) numbers each move's *value*, an
    argument of the move that random matches never saw played twice (hidato's
    number), or -1 for a move without one."""

    blocking: npt.NDArray[np.int8]
    fills: npt.NDArray[np.int32]
    fill_count: npt.NDArray[np.int32]
    values: npt.NDArray[np.int32]


def unlearned(blocking: npt.NDArray[np.int8], legal_literals: int) -> FillPlan:
    """A plan over ``blocking`` whose moves' slots are all still to be seen, no values."""
    return FillPlan(
        blocking,
        np.zeros((legal_literals, WIDEST), dtype=np.int32),
        np.full(legal_literals, UNKNOWN, dtype=np.int32),
        np.zeros(0, dtype=np.int32),
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
    if seen.fills < MIN_FILLS or seen.pairs < MIN_PAIRS:
        return None
    position = seen.value_position()
    if position is None:
        return plan
    return replace(plan, values=_values(net.moves[0], start, len(net.legal_lits), position))


def _values(
    moves: Sequence[Term], start: int, legal_literals: int, position: int
) -> npt.NDArray[np.int32]:
    """Per legal literal, the number of its move's argument at ``position`` (-1: none)."""
    values = np.full(legal_literals, -1, dtype=np.int32)
    numbers: dict[Term, int] = {}
    for i, move in enumerate(moves):
        args = getattr(move, "args", ())
        if len(args) > position:
            values[start + i] = numbers.setdefault(args[position], len(numbers))
    return values


class _Sample:
    """The random matches of :func:`find_plan` and what they saw."""

    def __init__(self, reasoner: PropnetReasoner, plan: FillPlan, index: dict[Term, int]) -> None:
        self.reasoner = reasoner
        self.plan = plan
        self.index = index
        self.fills = 0
        self.pairs = 0
        self.once: dict[int, bool] = {}
        """Per argument position of the moves: whether no value there was seen legal
        again after it was played (False once one was)."""
        self.spread: set[int] = set()
        """Positions where one value was seen filling two slots (so it is no slot's name)."""
        self.slot_of: dict[tuple[int, Term], int] = {}

    def play(self, rng: random.Random) -> bool:
        """Play the matches; False as soon as one breaks a property of fill puzzles."""
        reasoner, states = self.reasoner, 0
        cpu_limit = time.process_time() + CPU_SECONDS
        for _ in range(MATCHES):
            state = reasoner.initial()
            moves = reasoner.legal(state, 0)  # (sorted by text: the same draws each time)
            played: dict[int, set[Term]] = {}
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
                self._played_once(move, after_moves, played)
                state, moves = after, after_moves
        return True

    def value_position(self) -> int | None:
        """The argument position whose values were never seen played twice and are no
        slot's name (one value filled two slots), where every move that fills a slot
        fills one and has that argument (None: no such position)."""
        filling = [m for m, k in self.index.items() if self.plan.fill_count[k] > 0]
        if not filling or any(self.plan.fill_count[self.index[m]] != 1 for m in filling):
            return None
        for position in sorted(p for p, once in self.once.items() if once and p in self.spread):
            if all(len(getattr(m, "args", ())) > position for m in filling):
                return position
        return None

    def _played_once(
        self, move: Term, after_moves: list[Term], played: dict[int, set[Term]]
    ) -> None:
        """Note ``move``'s arguments as played this match; a position whose played value
        is legal again is no value position."""
        k = self.index[move]
        args = getattr(move, "args", ())
        for position, arg in enumerate(args):
            self.once.setdefault(position, True)
            played.setdefault(position, set()).add(arg)
            if self.plan.fill_count[k] == 1:
                slot = int(self.plan.fills[k, 0])
                if self.slot_of.setdefault((position, arg), slot) != slot:
                    self.spread.add(position)
        for other in after_moves:
            for position, arg in enumerate(getattr(other, "args", ())):
                if arg in played.get(position, ()):
                    self.once[position] = False

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
def one_slot(net, work, val, bits, moves, n, blocking, fills, fill_count, values, counts, tmp):  # type: ignore[no-untyped-def]
    """Keep of state ``bits``'s legal moves ``moves[:n]`` those that fill the slot with
    the fewest filling moves, at the front: their number; 0 where some slot still to
    fill has none (the state is hopeless), ``n`` where no slot is left to fill or a
    move's slots are unclear. With ``values`` (the plan's), the values too are counted
    (:func:`_one_value`). ``counts`` is scratch, one per base fact and one per value."""
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
    best, fewest, empty = -1, n + 1, 0
    for s in range(blocking.shape[0]):
        if blocking[s] >= 0 and bits[s] == blocking[s]:
            empty += 1
            if counts[s] < fewest:
                best, fewest = s, counts[s]
    if best < 0:
        return n
    if fewest == 0:
        return 0
    if values.shape[0] > 0:
        kept = _one_value(moves, n, fill_count, values, counts, blocking.shape[0], empty, fewest)
        if kept >= 0:
            return kept
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
def _one_value(moves, n, fill_count, values, counts, nb, empty, fewest):  # type: ignore[no-untyped-def]
    """The pigeonhole over the moves' values: each fills one slot, and a value played
    is never legal again, so the ``empty`` slots need as many values with a legal
    move. Fewer: 0 (hopeless). Exactly as many: every such value must be played, and
    where one has fewer moves than the slot with the ``fewest``, its moves are kept at
    the front of ``moves[:n]`` (their number). Else -1 (branch on the slot).
    ``counts[nb:]`` is scratch, one per value."""
    for i in range(n):
        k = moves[i]
        if fill_count[k] > 0:
            if values[k] < 0 or fill_count[k] != 1:
                return -1  # (not the plan's shape here: no pigeonhole)
            counts[nb + values[k]] += 1
    used, best, least = 0, -1, fewest
    for v in range(nb, counts.shape[0]):
        if counts[v] > 0:
            used += 1
            if counts[v] < least:
                best, least = v - nb, counts[v]
    if used < empty:
        return 0
    if used > empty or best < 0:
        return -1
    kept = 0
    for i in range(n):
        k = moves[i]
        if fill_count[k] > 0 and values[k] == best:
            moves[kept], moves[i] = moves[i], moves[kept]
            kept += 1
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
