"""A depth-first solver with a transposition table for one-role games on a propnet.

Why: in a deterministic one-role game a state's value is the best goal reachable from
it, whatever led there, so a depth-first search that remembers every state it has
finished visits each reachable state once. Many puzzles are small that way even when
their lines are long and only one of them scores 100 (hanoi: 31 moves, 243 towers x 32
steps), where sampling, however clever, finds the top line by luck. The search stops
as soon as some line reaches the role's best goal.

The table maps a state's bits (kept whole: no hash collision can pass for a state)
to its value, or to "open" while the search is under it. A child that is open lies on
the current path: moving there makes a cycle, which no best line needs (goals depend
on the state reached), so it counts as no value; a state finished while one of its
descendants met an open one is then valued without the states above it, which may
undervalue it when reached another way, so the search reports itself exact only where
no cycle was met (nor a fill plan left a move out: see the end). Its line is real in any
case: every move of it was played.

Where the network has latches that force goals (:mod:`~ggpkit.reasoning.propnet.latches`), a
new state whose latched facts settle the goal is valued at once: a nonogram's grid
with a mark that no solution has is lost however it goes on (nonogram_5x5_1: solved
in 283,000 states). A line then may stop at such a state.

The kernels take a budget of new states per call; the driver calls them until the
root is solved, the table is full or time is up. What a call finished stays in the
table, so the next call (and the next move's search) goes on from there. Until the
root is solved, the line offered is the best the search has seen: the moves down to
the best valued state it met, then that state's own line. With moves ordered by the
goal they lead to (then fewest onward moves first), the first line down is a greedy
one. Where the role's goal never rises (:mod:`~ggpkit.search.puzzles.goal_monotony`), a
state already at its least goal is valued so at once: queens06ug, 600,000 states
unsolved without, is solved in 6,858; and a state whose goal is no better than a line
already found from the root is cut (branch and bound: no line from it can beat that
one; values are no longer exact). In a fill puzzle
(:mod:`~ggpkit.search.puzzles.fill_slots`) each state's moves are those of one slot,
the one with the fewest; elsewhere, where moves commute
(:mod:`~ggpkit.search.puzzles.commuting`), each set of moves is tried in one order.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from numba import njit

from ggpkit.reasoning.propnet.incremental import goal_points, goals, load, settle_goals
from ggpkit.search.propnet.kernels import latch_decided
from ggpkit.search.puzzles.fill_slots import FillPlan, no_plan, one_slot
from ggpkit.search.puzzles.nested import child, legal_moves
from ggpkit.search.puzzles.state_table import StateTable, call_states, find
from ggpkit.search.tree.kernels import row_hash

OPEN = -2.0
"""A table value: the search is under this state now."""
UNSEEN = -3.0
"""A table value: the state is in the table but has no value (a search gave up under it)."""
NO_VALUE = -1.0
"""A state with no line to a goal (every line loops, or the rules give no single goal)."""

SOLVED, OUT_OF_BUDGET, TABLE_FULL, STACK_FULL = 0, 1, 2, 3

MOST_MOVES = 1 << 20
"""More than any state's legal moves: a goal point outweighs any count of them."""

LATCH_TRIAL = 4096
"""States checked for settled goals before the checks stop where none was settled:
a check costs a pass over the network, and a game's latches may never settle a goal."""


@njit(cache=True, nogil=True)
def _insert(row, free, keys, rows, used, values, sizes):  # type: ignore[no-untyped-def]
    keys[free] = row_hash(row)
    rows[free] = row
    used[free] = True
    values[free] = UNSEEN
    sizes[0] += 1
    return free


@njit(cache=True, nogil=True)
def terminal_value(net, work, val, row):  # type: ignore[no-untyped-def]
    """Role 0's goal in terminal state ``row`` / 100 (NO_VALUE unless it has just one)."""
    load(row, net, work, val)
    reward = np.zeros(work[4].shape[0], dtype=np.float64)
    if not goals(net, val, reward):
        return NO_VALUE
    return reward[0]


@njit(cache=True, nogil=True)
def solve(  # type: ignore[no-untyped-def]
    net, work, val, root, top, budget, keys, rows, used, values, done, sizes, frames, moves, tmp,
    latched, scores, seen, path, floor, blocking, fills, fill_count, arg_values, counts, in_order
):  # fmt: skip
    """Search from state ``root`` until its value is known, ``budget`` new states were
    made, or the table (``sizes[0]`` of its slots used, at most half of them) or the move
    stack is full. ``top``: the best value there is (the search stops at a line
    reaching it). ``sizes[1]`` is set to 1 once a value may be inexact (a cycle was met,
    or the fill plan left moves out); ``sizes[2]`` counts the
    states valued, and ``done`` keeps each one's rank in that count. With ``latched``
    (the network's latches in ``work``), a new state whose latched facts settle its
    goal is valued so without a look further; ``sizes[3]`` and ``sizes[4]`` count the
    states checked so and those settled, and after :data:`LATCH_TRIAL` checks that
    settled none the checks stop. With ``scores`` (as long as a level's most moves; empty:
    the rules' order) each level's moves are tried best first by the goal of the state
    each one leads to (:func:`_order_by_goal`). ``seen`` keeps the best value (in
    thousandths) any state reached from the root had, its depth and its slot, and
    ``path`` the moves down to it (:func:`_valued`). With ``floor`` >= 0 (role 0's least
    goal, in a game where its goal never rises), a new state whose goal is already that
    is valued so at once. With a fill plan (``blocking`` not empty: see
    :mod:`~ggpkit.search.puzzles.fill_slots`; ``fills`` and ``fill_count`` its moves'
    slots, ``arg_values`` their values, ``counts`` scratch), each state's moves are those
    of its slot (or value) with the fewest, and a state with a slot no move fills has no
    value. With ``in_order`` (the moves commute:
    :mod:`~ggpkit.search.puzzles.commuting`), a state's moves below the index of the move
    that led to it are left out: each set of moves is tried in one order. Returns a
    status.
    ``frames`` is the path: per level its slot, first move, move count, next move and
    best value so far; ``moves`` holds the levels' legal moves end to end."""
    capacity = keys.shape[0] // 2
    most_moves = net[10][1] - net[10][0]  # role 0's legal literals: a level's most moves
    one = np.zeros(1, dtype=np.int64)
    settled = np.zeros((1, work[4].shape[0]), dtype=np.int64)
    made = 0
    r = find(root, keys, rows, used)
    if r < 0:
        r = _insert(root, -1 - r, keys, rows, used, values, sizes)
    if values[r] >= NO_VALUE:
        return SOLVED
    depth = 0
    top_move = 0
    n = legal_moves(net, work, val, rows[r], moves)
    if n < 0:
        values[r] = terminal_value(net, work, val, rows[r])
        _finish(r, done, sizes)
        return SOLVED
    if blocking.shape[0] > 0:
        n = _fewest_first(net, work, val, rows[r], moves, n, blocking, fills, fill_count,
                          arg_values, counts, tmp, sizes)  # fmt: skip
        if n == 0:
            values[r] = NO_VALUE
            _finish(r, done, sizes)
            return SOLVED
    if scores.shape[0] > 0:
        _order_by_goal(net, work, val, rows[r], moves[:n], scores, tmp)
    frames[0, 0], frames[0, 1], frames[0, 2], frames[0, 3], frames[0, 4] = r, 0, n, 0, -1
    values[r] = OPEN
    top_move = n
    while depth >= 0:
        f = frames[depth]
        slot, first, count, nxt = int(f[0]), int(f[1]), int(f[2]), int(f[3])
        if nxt >= count or f[4] >= top:  # finished (or nothing can beat its best)
            values[slot] = f[4] / 1000.0 if f[4] >= 0 else NO_VALUE
            _finish(slot, done, sizes)
            top_move = first
            depth -= 1
            if depth >= 0:
                frames[depth, 4] = max(frames[depth, 4], f[4])
            continue
        frames[depth, 3] = nxt + 1
        child(net, work, val, rows[slot], moves[first + nxt], tmp)
        c = find(tmp, keys, rows, used)
        if c >= 0 and values[c] == OPEN:
            sizes[1] = 1
            continue
        if c >= 0 and values[c] >= NO_VALUE:
            if values[c] >= 0:
                _valued(frames, depth, moves, c, round(values[c] * 1000.0), seen, path)
            continue
        if c < 0:
            if sizes[0] >= capacity:
                _give_up(frames, depth, values)
                return TABLE_FULL
            if made >= budget:
                _give_up(frames, depth, values)
                return OUT_OF_BUDGET
            c = _insert(tmp, -1 - c, keys, rows, used, values, sizes)
            made += 1
        if depth + 1 >= frames.shape[0] or top_move + most_moves > moves.shape[0]:
            _give_up(frames, depth, values)
            return STACK_FULL
        n = legal_moves(net, work, val, rows[c], moves[top_move:])
        if n < 0:
            values[c] = terminal_value(net, work, val, rows[c])
            _finish(c, done, sizes)
            if values[c] >= 0:
                _valued(frames, depth, moves, c, round(values[c] * 1000.0), seen, path)
            continue
        if in_order:
            sizes[1] = 1
            n = _from_move(moves, top_move, n, moves[first + nxt])
            if n == 0:  # every move of it comes sooner in another order
                values[c] = NO_VALUE
                _finish(c, done, sizes)
                continue
        if latched and (sizes[3] < LATCH_TRIAL or sizes[4] > 0):
            sizes[3] += 1
            one[0] = c
            settled[0, 0] = -1
            latch_decided(net, work, rows, one, settled)
            if settled[0, 0] >= 0:  # every line from here ends with this goal
                sizes[4] += 1
                values[c] = settled[0, 0] / 100.0
                _finish(c, done, sizes)
                _valued(frames, depth, moves, c, settled[0, 0] * 10, seen, path)
                continue
        if floor >= 0:  # ``val`` holds the state: legal_moves loaded it
            settle_goals(net, val)
            points = goal_points(net, val, 0)
            if points == floor:  # it can only stay there
                values[c] = floor / 100.0
                _finish(c, done, sizes)
                _valued(frames, depth, moves, c, floor * 10, seen, path)
                continue
            if points * 10 <= seen[0]:  # no line from here beats one already found
                sizes[1] = 1
                values[c] = NO_VALUE
                _finish(c, done, sizes)
                continue
        if blocking.shape[0] > 0:
            mine = moves[top_move:]
            n = _fewest_first(net, work, val, rows[c], mine, n, blocking, fills, fill_count,
                              arg_values, counts, tmp, sizes)  # fmt: skip
            if n == 0:  # a slot no move fills: no line from here reaches the top
                values[c] = NO_VALUE
                _finish(c, done, sizes)
                continue
        if scores.shape[0] > 0:
            _order_by_goal(net, work, val, rows[c], moves[top_move : top_move + n], scores, tmp)
        depth += 1
        frames[depth, 0], frames[depth, 1], frames[depth, 2] = c, top_move, n
        frames[depth, 3], frames[depth, 4] = 0, -1
        values[c] = OPEN
        top_move += n
    return SOLVED


@njit(cache=True, nogil=True, inline="always")
def _from_move(moves, start, n, move):  # type: ignore[no-untyped-def]
    """Keep of ``moves[start : start + n]`` those of index ``move`` or later, at the
    front: their number."""
    kept = 0
    for i in range(start, start + n):
        if moves[i] >= move:
            moves[start + kept] = moves[i]
            kept += 1
    return kept


@njit(cache=True, nogil=True)
def _fewest_first(  # type: ignore[no-untyped-def]
    net, work, val, bits, moves, n, blocking, fills, fill_count, arg_values, counts, tmp, sizes
):
    """:func:`~ggpkit.search.puzzles.fill_slots.one_slot`, noting in ``sizes[1]`` that
    values are no longer exact where it leaves a move out."""
    kept = one_slot(net, work, val, bits, moves, n, blocking, fills, fill_count, arg_values,
                    counts, tmp)  # fmt: skip
    if kept < n:
        sizes[1] = 1
    return kept


@njit(cache=True, nogil=True)
def next_fill(net, work, val, bits, top, keys, rows, used, values, moves, plan, counts, tmp):  # type: ignore[no-untyped-def]
    """The move the search from state ``bits`` is under: of the moves that fill the slot
    with the fewest ways to fill it (the search's order), the first whose state the
    table has not valued below ``top`` (thousandths); -1 where the state has no choice
    or no slot, or every such move is refuted. ``plan``: (blocking, fills, fill_count,
    values);
    ``moves``: scratch."""
    n = legal_moves(net, work, val, bits, moves)
    if n <= 1:
        return -1
    blocking, fills, fill_count, arg_values = plan
    kept = one_slot(net, work, val, bits, moves, n, blocking, fills, fill_count, arg_values,
                    counts, tmp)  # fmt: skip
    if kept == n:
        return -1
    for i in range(kept):
        child(net, work, val, bits, moves[i], tmp)
        c = find(tmp, keys, rows, used)
        value = values[c] if c >= 0 else UNSEEN
        if value < NO_VALUE or value * 1000 >= top:  # open, unseen, or not refuted
            return moves[i]
    return -1


@njit(cache=True, nogil=True, inline="always")
def _valued(frames, depth, moves, c, value, seen, path):  # type: ignore[no-untyped-def]
    """Child ``c`` of the path's last state is worth ``value`` (thousandths): its parent
    has at least that, and where it beats the best seen from the root (``seen``), the
    moves down to it are kept in ``path``: a line to play while the root is unsolved."""
    frames[depth, 4] = max(frames[depth, 4], value)
    if value > seen[0]:
        for d in range(depth + 1):
            path[d] = moves[frames[d, 1] + frames[d, 3] - 1]
        seen[0], seen[1], seen[2] = value, depth + 1, c


@njit(cache=True, nogil=True)
def _order_by_goal(net, work, val, bits, moves, scores, tmp):  # type: ignore[no-untyped-def]
    """Sort ``moves`` (role 0's legal literals in state ``bits``) by the goal role 0 has
    in the state each leads to, best first, then by the moves legal there, fewest first,
    a terminal state last; ties keep the rules' order (an insertion sort: a level has
    few moves). Why: where goals grow as a puzzle is solved (queens placed, squares
    toured) the first line down is a greedy one, and the search stops sooner at a line
    reaching the top. Among equal goals, a state that goes on may still score more than
    one that ends, and the one with the fewest ways on is the most at risk of being cut
    off later (Warnsdorff's rule for a knight's tour: the square with the fewest onward
    jumps first, which a path would seldom come back for)."""
    scratch = np.empty(net[10][1] - net[10][0], dtype=np.int64)
    for i in range(moves.shape[0]):
        child(net, work, val, bits, moves[i], tmp)
        settle_goals(net, val)
        points = goal_points(net, val, 0)
        onward = legal_moves(net, work, val, tmp, scratch)  # -1: terminal
        scores[i] = points * MOST_MOVES - (onward if onward >= 0 else MOST_MOVES - 1)
    for i in range(1, moves.shape[0]):
        move, score = moves[i], scores[i]
        j = i - 1
        while j >= 0 and scores[j] < score:
            moves[j + 1], scores[j + 1] = moves[j], scores[j]
            j -= 1
        moves[j + 1], scores[j + 1] = move, score


@njit(cache=True, nogil=True, inline="always")
def _finish(slot, done, sizes):  # type: ignore[no-untyped-def]
    done[slot] = sizes[2]
    sizes[2] += 1


@njit(cache=True, nogil=True)
def _give_up(frames, depth, values):  # type: ignore[no-untyped-def]
    """Mark the open states of the path as unvalued (a later search revisits them)."""
    for d in range(depth + 1):
        values[int(frames[d, 0])] = UNSEEN


@njit(cache=True, nogil=True)
def best_line(net, work, val, root, keys, rows, used, values, done, moves, tmp, line):  # type: ignore[no-untyped-def]
    """The moves from ``root`` along children of the root's value into ``line``: their
    number (0 where the root has no value). The line ends in a terminal state or in one
    whose latches settle its value (any move on from there keeps it). Of those children
    it takes the one valued first: a state's value came from a child valued before it,
    so the ranks fall along the line, which thus ends (two states can each have the
    other as a child of equal value: the first found would go round)."""
    r = find(root, keys, rows, used)
    if r < 0 or values[r] < 0:
        return 0
    goal = values[r]
    state = rows[r].copy()
    length = 0
    while length < line.shape[0]:
        n = legal_moves(net, work, val, state, moves)
        if n <= 0:
            return length
        found = -1
        rank = -1
        for i in range(n):
            child(net, work, val, state, moves[i], tmp)
            c = find(tmp, keys, rows, used)
            if c >= 0 and values[c] == goal and (found < 0 or done[c] < rank):
                found, rank = i, done[c]
        if found < 0:
            return length
        line[length] = moves[found]
        length += 1
        child(net, work, val, state, moves[found], state)
    return length


@dataclass
class SolverResult:
    """What a depth-first search found from a state: its best line (role 0's
    legal-literal indices) and that line's value (0..1; -1: none yet); ``exact``: the
    value is the state's (solved, no cycle met)."""

    value: float
    line: tuple[int, ...]
    exact: bool
    states: int
    fill: int = -1
    """Where a fill puzzle's search has no line to the top yet: the legal literal it is
    under (:func:`next_fill`), to play rather than a guess that leaves its work behind;
    where the slot has one way left to fill it, every line to the top plays it (moves
    commute, and one once illegal stays so). -1: none."""


class DepthFirstSolver:
    """The search's table over one network (kept between calls, one thread at a time)."""

    def __init__(
        self, net: tuple[object, ...], nb: int, nmoves: int, top: float, memory: int
    ) -> None:
        table = StateTable(nb, memory, 25)
        capacity = table.capacity
        self._net = net
        self._top = round(top * 1000)
        self._keys, self._rows, self._used = table.keys, table.rows, table.used
        self._values = np.full(capacity, UNSEEN, dtype=np.float64)
        self._done = np.zeros(capacity, dtype=np.int64)
        self._sizes = np.zeros(5, dtype=np.int64)
        self._frames = np.zeros((100_000, 5), dtype=np.int64)
        self._moves = np.zeros(max(1 << 20, 4 * nmoves), dtype=np.int64)
        self._tmp = np.zeros(nb, dtype=np.uint8)
        self._line = np.zeros(100_000, dtype=np.int64)
        self._scores = np.zeros(max(1, nmoves), dtype=np.int64)
        self._seen = np.array([-1, 0, -1], dtype=np.int64)
        self._path = np.zeros(self._frames.shape[0], dtype=np.int64)
        self._seen_from = b""
        """The root that ``_seen`` and ``_path`` are about (see :func:`solve`)."""
        self._full = False
        self._rate = 0.0
        self._no_plan = no_plan(1)
        self._counts = np.zeros(nb + max(1, nmoves), dtype=np.int32)
        """Scratch of the fill plan: one per base fact, then one per value."""

    def search(
        self,
        bits: npt.NDArray[np.uint8],
        seconds: float,
        work: tuple[object, ...],
        val: npt.NDArray[np.uint8],
        budget: int | None = None,
        latched: bool = False,
        ordered: bool = False,
        floor: int = -1,
        plan: FillPlan | None = None,
        in_order: bool = False,
    ) -> SolverResult:
        """Search ``bits`` for about ``seconds`` (on the owner's propagation state), in
        calls of ``budget`` new states each (default: about 50 ms of them); ``latched``:
        ``work`` holds latches that force goals; ``ordered``: each state's moves are
        tried best first by the goal they lead to, then fewest onward moves first
        (:func:`_order_by_goal`); ``floor`` >= 0: a state whose goal is
        that is valued so at once (see :func:`solve`); ``plan``: the game is a fill
        puzzle, searched one slot at a time (:mod:`~ggpkit.search.puzzles.fill_slots`);
        ``in_order``: the moves commute, and each set of them is tried in one order
        (the table is then about one root: a new root that the search has not solved
        starts it afresh, as the sets below it were searched in the old root's orders)."""
        deadline = time.perf_counter() + seconds
        status = OUT_OF_BUDGET
        scores = self._scores if ordered else self._scores[:0]
        fill = plan or self._no_plan
        if bits.tobytes() != self._seen_from:  # a new root: nothing seen from it yet
            self._seen_from, self._seen[:] = bits.tobytes(), (-1, 0, -1)
            if in_order and not self._solved(bits):
                self._used[:] = False
                self._sizes[0] = self._sizes[2] = 0
                self._full = False
        while not self._full:  # one call at least, then while time is left
            states = call_states(budget, self._rate)
            began, before = time.perf_counter(), int(self._sizes[0])
            status = int(solve(
                self._net, work, val, bits, self._top, states, self._keys, self._rows,
                self._used, self._values, self._done, self._sizes, self._frames, self._moves,
                self._tmp, latched, scores, self._seen, self._path, floor, fill.blocking,
                fill.fills, fill.fill_count, fill.values, self._counts, in_order,
            ))  # fmt: skip
            made = int(self._sizes[0]) - before
            if made > 0:
                self._rate = made / max(1e-6, time.perf_counter() - began)
            self._full = status in (TABLE_FULL, STACK_FULL)
            if status == SOLVED or time.perf_counter() >= deadline:
                break
        exact = status == SOLVED and not self._sizes[1]
        value, line = self._line_from(bits, work, val)
        under = -1
        if plan is not None and round(value * 1000) < self._top:
            under = int(next_fill(
                self._net, work, val, bits, self._top, self._keys, self._rows, self._used,
                self._values, self._moves,
                (plan.blocking, plan.fills, plan.fill_count, plan.values),
                self._counts, self._tmp,
            ))  # fmt: skip
        return SolverResult(value, line, exact, int(self._sizes[0]), under)

    def _solved(self, bits: npt.NDArray[np.uint8]) -> bool:
        """Whether the table values state ``bits`` at the top goal."""
        slot = int(find(bits, self._keys, self._rows, self._used))
        return slot >= 0 and round(float(self._values[slot]) * 1000) >= self._top

    def _line_from(
        self, bits: npt.NDArray[np.uint8], work: tuple[object, ...], val: npt.NDArray[np.uint8]
    ) -> tuple[float, tuple[int, ...]]:
        """The root's value and line once it has one; before, the best line seen from
        it: the moves down to the best valued state met, then that state's line."""
        root = int(find(bits, self._keys, self._rows, self._used))
        start, value = bits, float(self._values[root]) if root >= 0 else -1.0
        prefix: tuple[int, ...] = ()
        if value < 0 and self._seen[0] >= 0:
            slot = int(self._seen[2])
            start, value = self._rows[slot], float(self._values[slot])
            prefix = tuple(int(k) for k in self._path[: self._seen[1]])
        if value < 0:
            return -1.0, ()
        length = int(best_line(
            self._net, work, val, start, self._keys, self._rows, self._used, self._values,
            self._done, self._moves, self._tmp, self._line,
        ))  # fmt: skip
        line = prefix + tuple(int(k) for k in self._line[:length])
        return (value, line) if line else (-1.0, ())
