"""A breadth-first search for the shortest line to a one-role game's top goal.

Why: where a puzzle pays for short solutions (pancakes: 100 within seven flips, less
for each flip more), the depth-first solver goes down its first line to the step
limit and must visit nearly every state before it meets the short line; a
breadth-first search visits the states level by level and meets the shortest line to
the top goal first, after the states no deeper than it. Where solutions are all
equally long or deep (sudoku, hanoi), it has no such edge, and its table fills: it
then stops for the match, and the depth-first solver has the time.

The table keeps each state once (its bits whole, as the depth-first solver's does),
with the state it was first reached from and the move: the line is read back along
those. States are expanded in the order they were made, which is breadth-first. A
search is resumable: each call expands a budget of states and the next goes on, until
a line is found, every reachable state is expanded, or the table is full. A search is
about one root; asked about another (the match moved on off its line), it starts
again from there. Where the game counts its steps in the state, the table may leave
the counter out of the key it tells states apart by
(:mod:`~ggpkit.search.puzzles.step_counter`): a position is then kept once, at its
first (shallowest) arrival.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from numba import njit

from ggpkit.search.puzzles.depth_first import terminal_value
from ggpkit.search.puzzles.nested import child, legal_moves
from ggpkit.search.puzzles.state_table import StateTable, call_states, find_key, key_hash

FOUND, OUT_OF_BUDGET, TABLE_FULL, EXHAUSTED = 0, 1, 2, 3


@njit(cache=True, nogil=True)
def expand(  # type: ignore[no-untyped-def]
    net, work, val, top, budget, key, keys, rows, used, parents, via, order, sizes, moves, tmp
):  # fmt: skip
    """Expand up to ``budget`` states in the order they were made, from ``order[sizes[1]]``
    on (``sizes[0]``: states made), until a terminal state with role 0's goal at ``top``
    (thousandths) is taken up. ``sizes[2]`` and ``sizes[3]`` keep the best goal of the
    terminal states taken up (thousandths) and the first state with it: the shortest
    line to it. A new state's slot records its parent and the move there (``parents``,
    ``via``); states are told apart by their bits where ``key`` is 1. Returns a status;
    the table is full at half its slots."""
    capacity = keys.shape[0] // 2
    made = 0
    while sizes[1] < sizes[0]:
        s = order[sizes[1]]
        n = legal_moves(net, work, val, rows[s], moves)
        if n < 0:
            sizes[1] += 1
            value = round(terminal_value(net, work, val, rows[s]) * 1000.0)
            if value > sizes[2]:
                sizes[2], sizes[3] = value, s
            if value >= top:
                return FOUND
            continue
        if made >= budget:
            return OUT_OF_BUDGET
        if sizes[0] + n > capacity:
            return TABLE_FULL
        for i in range(n):
            child(net, work, val, rows[s], moves[i], tmp)
            c = find_key(tmp, key, keys, rows, used)
            if c < 0:
                c = -1 - c
                keys[c], used[c] = key_hash(tmp, key), True
                rows[c] = tmp
                parents[c], via[c] = s, moves[i]
                order[sizes[0]] = c
                sizes[0] += 1
        made += 1
        sizes[1] += 1
    return EXHAUSTED


@dataclass(frozen=True)
class ShortestLine:
    """What a breadth-first search knows from its root: the best goal of the terminal
    states it has met (0..1; -1: none) and the shortest line to it (role 0's
    legal-literal indices), whether that is the root's value (the top goal, or every
    reachable state seen), and the states it holds."""

    value: float
    line: tuple[int, ...]
    exact: bool
    states: int


class BreadthFirstSearch:
    """The search's table over one network, about one root at a time (one thread)."""

    def __init__(
        self,
        net: tuple[object, ...],
        nb: int,
        nmoves: int,
        top: float,
        memory: int,
        counter: npt.NDArray[np.uint8] | None = None,
    ) -> None:
        """``counter``: flags over the base facts, 1 on a step counter's, which the
        table then leaves out of the key it tells states apart by
        (:mod:`~ggpkit.search.puzzles.step_counter`)."""
        table = StateTable(nb, memory, 33)
        self._key = np.ones(nb, dtype=np.uint8) if counter is None else 1 - counter
        self._proves = counter is None
        """Whether seeing every state without a line to the top proves there is none."""
        capacity = table.capacity
        self._net = net
        self._top = round(top * 1000)
        self._keys, self._rows, self._used = table.keys, table.rows, table.used
        self._parents = np.zeros(capacity, dtype=np.int64)
        self._via = np.zeros(capacity, dtype=np.int64)
        self._order = np.zeros(capacity // 2 + 1, dtype=np.int64)
        self._sizes = np.zeros(4, dtype=np.int64)
        self._moves = np.zeros(max(1, nmoves), dtype=np.int64)
        self._tmp = np.zeros(nb, dtype=np.uint8)
        self._root = b""
        self._status = OUT_OF_BUDGET
        self._line: tuple[int, ...] = ()
        self._line_to = -1
        """The slot ``_line`` leads to (-1: none)."""
        self._rate = 0.0

    def search(
        self,
        bits: npt.NDArray[np.uint8],
        seconds: float,
        work: tuple[object, ...],
        val: npt.NDArray[np.uint8],
        budget: int | None = None,
    ) -> ShortestLine:
        """Search from ``bits`` for about ``seconds`` (on the owner's propagation state),
        in calls of ``budget`` expansions each (default: about 50 ms of them)."""
        if bits.tobytes() != self._root and not self._on_line(bits, work, val):
            if self._status == TABLE_FULL:  # too big from any state: given up
                return ShortestLine(-1.0, (), False, int(self._sizes[0]))
            self._restart(bits)
        deadline = time.perf_counter() + seconds
        while self._status == OUT_OF_BUDGET:  # one call at least, then while time is left
            states = call_states(budget, self._rate)
            began, before = time.perf_counter(), int(self._sizes[1])
            self._status = int(expand(
                self._net, work, val, self._top, states, self._key, self._keys, self._rows,
                self._used,
                self._parents, self._via, self._order, self._sizes, self._moves, self._tmp,
            ))  # fmt: skip
            expanded = int(self._sizes[1]) - before
            if expanded > 0:
                self._rate = expanded / max(1e-6, time.perf_counter() - began)
            if time.perf_counter() >= deadline:
                break
        if self._sizes[3] >= 0 and self._line_to != int(self._sizes[3]):
            self._line_to = int(self._sizes[3])
            self._line = self._read_line(self._line_to)
        exact = self._status == FOUND or (self._status == EXHAUSTED and self._proves)
        value = float(self._sizes[2]) / 1000.0 if self._sizes[3] >= 0 else -1.0
        return ShortestLine(value, self._line, exact, int(self._sizes[0]))

    def _restart(self, bits: npt.NDArray[np.uint8]) -> None:
        """Forget the table and start from ``bits``."""
        self._root, self._line, self._line_to = bits.tobytes(), (), -1
        self._status = OUT_OF_BUDGET
        self._used[:] = False
        slot = -1 - int(find_key(bits, self._key, self._keys, self._rows, self._used))
        self._keys[slot], self._used[slot] = key_hash(bits, self._key), True
        self._rows[slot] = bits
        self._parents[slot], self._order[0] = -1, slot
        self._sizes[:] = (1, 0, -1, -1)

    def _on_line(
        self, bits: npt.NDArray[np.uint8], work: tuple[object, ...], val: npt.NDArray[np.uint8]
    ) -> bool:
        """Whether ``bits`` lies on the line found (which then starts there; the search
        is over then, or the rest of the table would be about the old root)."""
        if self._status == OUT_OF_BUDGET or not self._line:
            return False
        state = np.frombuffer(self._root, dtype=np.uint8).copy()
        for k, move in enumerate(self._line):
            child(self._net, work, val, state, move, self._tmp)
            state[:] = self._tmp
            if np.array_equal(state, bits):
                self._root, self._line = bits.tobytes(), self._line[k + 1 :]
                return True
        return False

    def _read_line(self, slot: int) -> tuple[int, ...]:
        """The moves from the root to ``slot``, along the states each was first reached from."""
        line = []
        while self._parents[slot] >= 0:
            line.append(int(self._via[slot]))
            slot = int(self._parents[slot])
        return tuple(reversed(line))
