"""The exact breakthrough-holes solver: who wins with perfect play, and in how many plies.

The game (rules.md section 3, no captures) cannot repeat a position: every move
takes a piece one row forward. So the game graph is a finite DAG of depth at most
~100 plies, and a plain alpha-beta search with a transposition table solves it
from the start, with no depth limit and no draw handling (there are no draws: a
side with no legal move loses).

Scores are distance-to-end scores, from the side to move: ``WIN - d`` for a win
in ``d`` plies, ``-(WIN - d)`` for a loss in ``d`` plies. Maximising them makes
the winner take the fastest win and the loser the longest defence, so the value
of the start says both who wins and the number of plies the game lasts under
perfect play. The table stores node-relative scores with bounds (``lo``, ``hi``);
since a position's distance to the end does not depend on the path to it, an
entry is valid wherever the position recurs.

Board (read from ``game.facts``: ``(cell X Y white|black)``, ``(control R)``):
bit ``(y - 1) * 6 + (x - 1)`` of a 36-bit int per colour; holes at (2,3),
(3,4), (4,3), (5,4). White moves to y + 1, black to y - 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ggpkit.errors import GgpkitError
from ggpkit.games.api import Game
from ggpkit.gdl.terms import Func, Term
from ggpkit.reasoning.jit import kernel

SIZE = 6
HOLE_CELLS = ((2, 3), (3, 4), (4, 3), (5, 4))
WIN = 1000
"""A win at the end of the current ply; a win in ``d`` plies scores ``WIN - d``."""
ROLES = ("white", "black")


def cell_bit(x: int, y: int) -> int:
    """Bit of cell (x, y), both 1..6."""
    return (y - 1) * SIZE + (x - 1)


HOLES = sum(1 << cell_bit(x, y) for x, y in HOLE_CELLS)
GOAL_ROWS = np.array(
    [sum(1 << cell_bit(x, 6) for x in range(1, 7)), sum(1 << cell_bit(x, 1) for x in range(1, 7))],
    dtype=np.uint64,
)


def _destinations() -> np.ndarray[Any, Any]:
    """``dst[side, bit, k]``: the k-th cell a piece of ``side`` on ``bit`` may move to, or -1.

    Ordered straight first, then the diagonals, so ties in ordering favour the
    straight advance.
    """
    dst = np.full((2, 36, 3), -1, dtype=np.int64)
    for side, dy in ((0, 1), (1, -1)):
        for x in range(1, 7):
            for y in range(1, 7):
                k = 0
                for dx in (0, -1, 1):
                    x2, y2 = x + dx, y + dy
                    if 1 <= x2 <= 6 and 1 <= y2 <= 6 and (x2, y2) not in HOLE_CELLS:
                        dst[side, cell_bit(x, y), k] = cell_bit(x2, y2)
                        k += 1
    return dst


DESTINATIONS = _destinations()


# ---- compiled search -----------------------------------------------------------------


@kernel
def _slot(own: np.uint64, other: np.uint64, side: int, mask: int) -> int:
    h = own * np.uint64(0x9E3779B97F4A7C15) ^ (other + np.uint64(side)) * np.uint64(
        0xC2B2AE3D27D4EB4F
    )
    h ^= h >> np.uint64(29)
    return int(h & np.uint64(mask))


@kernel
def _negamax(
    own: np.uint64,
    other: np.uint64,
    side: int,
    ply: int,
    alpha: int,
    beta: int,
    dst: np.ndarray[Any, Any],
    goal_rows: np.ndarray[Any, Any],
    tkeys: np.ndarray[Any, Any],
    tvals: np.ndarray[Any, Any],
    hist: np.ndarray[Any, Any],
    stats: np.ndarray[Any, Any],
) -> int:
    """Score of the position (``own`` = pieces of the side to move) from the mover's view.

    The position is not terminal: no piece stands on its goal row. ``stats[0]``
    counts the positions searched, ``stats[1]`` the table entries written.

    Table: buckets of two entries (``tkeys[i] = (own | side << 40, other)``,
    ``tvals[i] = (lo, hi, best move, work)``): the first keeps the entry with the
    most work below it (log2 of the positions searched), the second always takes
    the newest. Move order: the table's move, then the history heuristic.
    """
    stats[0] += 1
    start_nodes = stats[0]
    one = np.uint64(1)
    occupied = own | other
    n = 0
    src_list = np.empty(40, dtype=np.int64)
    dst_list = np.empty(40, dtype=np.int64)
    rank = np.empty(40, dtype=np.int64)
    bits = own
    goal = goal_rows[side]
    while bits:
        low = bits & (~bits + one)
        s = 0
        t = low
        while t > one:
            t >>= one
            s += 1
        bits ^= low
        for k in range(3):
            d = dst[side, s, k]
            if d < 0:
                break
            dbit = one << np.uint64(d)
            if occupied & dbit:
                continue
            if goal & dbit:
                return WIN - ply - 1
            src_list[n] = s
            dst_list[n] = d
            rank[n] = hist[side, s, d]
            n += 1
    if n == 0:
        return -(WIN - ply)
    key_own = own | (np.uint64(side) << np.uint64(40))
    base = _slot(own, other, side, tkeys.shape[0] - 1) & ~1
    hit = -1
    for e in range(base, base + 2):
        if tkeys[e, 0] == key_own and tkeys[e, 1] == other:
            hit = e
    tt_move = -1
    if hit >= 0:
        lo = int(tvals[hit, 0])
        hi = int(tvals[hit, 1])
        lo = lo - ply if lo > 0 else lo + ply
        hi = hi - ply if hi > 0 else hi + ply
        if lo >= beta:
            return lo
        if hi <= alpha:
            return hi
        if lo == hi:
            return lo
        alpha = max(alpha, lo)
        beta = min(beta, hi)
        tt_move = int(tvals[hit, 2])
    big = np.int64(1) << np.int64(60)
    for i in range(n):
        if src_list[i] * 64 + dst_list[i] == tt_move:
            rank[i] = big
    for i in range(1, n):
        j = i
        while j > 0 and rank[j] > rank[j - 1]:
            rank[j], rank[j - 1] = rank[j - 1], rank[j]
            src_list[j], src_list[j - 1] = src_list[j - 1], src_list[j]
            dst_list[j], dst_list[j - 1] = dst_list[j - 1], dst_list[j]
            j -= 1
    a0 = alpha
    best = -WIN - 1
    best_i = 0
    for i in range(n):
        moved = own ^ (one << np.uint64(src_list[i])) ^ (one << np.uint64(dst_list[i]))
        v = -_negamax(
            other,
            moved,
            1 - side,
            ply + 1,
            -beta,
            -alpha,
            dst,
            goal_rows,
            tkeys,
            tvals,
            hist,
            stats,
        )
        if v > best:
            best = v
            best_i = i
            if v > alpha:
                alpha = v
                if alpha >= beta:
                    break
    hist[side, src_list[best_i], dst_list[best_i]] += stats[0] - start_nodes + 1
    rel = best + ply if best > 0 else best - ply
    new_lo = -WIN - 1
    new_hi = WIN + 1
    if best <= a0:
        new_hi = rel
    elif best >= beta:
        new_lo = rel
    else:
        new_lo = rel
        new_hi = rel
    work = 0
    w = stats[0] - start_nodes
    while w > 0:
        w >>= 1
        work += 1
    if hit >= 0:
        new_lo = max(new_lo, int(tvals[hit, 0]))
        new_hi = min(new_hi, int(tvals[hit, 1]))
        work = max(work, int(tvals[hit, 3]))
        e = hit
    elif work >= int(tvals[base, 3]):
        e = base
        if tkeys[base, 0] != np.uint64(0):  # keep the displaced deep entry in the second slot
            tkeys[base + 1, 0] = tkeys[base, 0]
            tkeys[base + 1, 1] = tkeys[base, 1]
            for c in range(4):
                tvals[base + 1, c] = tvals[base, c]
        stats[1] += 1
    else:
        e = base + 1
        stats[1] += 1
    tkeys[e, 0] = key_own
    tkeys[e, 1] = other
    tvals[e, 0] = new_lo
    tvals[e, 1] = new_hi
    tvals[e, 2] = src_list[best_i] * 64 + dst_list[best_i]
    tvals[e, 3] = work
    return best


# ---- the solver ---------------------------------------------------------------------


class BreakthroughPositionError(GgpkitError, ValueError):
    """A state whose facts do not describe a breakthrough-holes position."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """A solved result: the ``winner`` with perfect play and the game's length in ``plies``.

    ``plies`` counts moves from the position to the end when the winner wins as fast
    as possible and the loser holds out as long as possible.
    """

    winner: str
    plies: int

    def goals(self) -> dict[str, int]:
        """The goal values this outcome gives (winner 100, loser 0)."""
        return {r: 100 if r == self.winner else 0 for r in ROLES}


@dataclass(frozen=True, slots=True)
class BtAnswer:
    """The solver's answer for one position: its outcome and the outcome after each move.

    ``moves`` holds the legal moves of the side to move (game API terms) with the
    outcome after each; ``best_moves`` are the moves that win fastest (or, in a lost
    position, lose slowest). ``nodes`` counts positions searched for this answer.
    """

    outcome: Outcome
    moves: dict[Term, Outcome]
    best_moves: tuple[Term, ...]
    nodes: int


@dataclass(frozen=True, slots=True)
class BtPosition:
    """A position in the solver's terms: bitboards and the side to move (0 white, 1 black)."""

    white: int
    black: int
    side: int


def position_of_facts(facts: frozenset[Term]) -> BtPosition:
    """The position described by ``(cell X Y white|black)`` and ``(control R)`` facts."""
    boards = [0, 0]
    side = -1
    for f in facts:
        if not isinstance(f, Func):
            continue
        if f.name == "control" and len(f.args) == 1 and str(f.args[0]) in ROLES:
            side = ROLES.index(str(f.args[0]))
        elif f.name == "cell" and len(f.args) == 3 and str(f.args[2]) in ROLES:
            x, y = str(f.args[0]), str(f.args[1])
            if not (x.isdigit() and y.isdigit() and 1 <= int(x) <= 6 and 1 <= int(y) <= 6):
                raise BreakthroughPositionError(f"{f} names no cell of the 6x6 board")
            boards[ROLES.index(str(f.args[2]))] |= 1 << cell_bit(int(x), int(y))
    if side < 0:
        raise BreakthroughPositionError("the facts name no side in control: no (control R)")
    if boards[0] & boards[1] or (boards[0] | boards[1]) & HOLES:
        raise BreakthroughPositionError("two pieces share a cell, or a piece stands on a hole")
    return BtPosition(boards[0], boards[1], side)


def terminal_outcome(pos: BtPosition) -> Outcome | None:
    """The outcome of a position that is already over, else None (rules.md section 3)."""
    white_home = bool(pos.white & int(GOAL_ROWS[0]))
    black_home = bool(pos.black & int(GOAL_ROWS[1]))
    if white_home or black_home:
        if white_home and black_home:
            raise BreakthroughPositionError("both sides stand on their goal rows")
        return Outcome("white" if white_home else "black", 0)
    return None


class BreakthroughSolver:
    """Exact values of breakthrough-holes positions, with a table kept between queries.

    ``table_bits`` sizes the transposition table (2**bits entries of 24 bytes;
    2**24 is 400 MB). Entries are exact facts about positions, so keeping the table
    between queries (one match) only saves work.
    """

    def __init__(self, table_bits: int = 24) -> None:
        self._keys = np.zeros((1 << table_bits, 2), dtype=np.uint64)
        self._vals = np.zeros((1 << table_bits, 4), dtype=np.int16)
        self._hist = np.zeros((2, 36, 36), dtype=np.int64)
        self._stats = np.zeros(2, dtype=np.int64)

    def clear(self) -> None:
        """Forget everything (to time a solve from scratch)."""
        self._keys[:] = 0
        self._vals[:] = 0
        self._hist[:] = 0
        self._stats[:] = 0

    @property
    def stored(self) -> int:
        """Table entries written since the last clear (including overwritten ones)."""
        return int(self._stats[1])

    def score(self, pos: BtPosition, alpha: int = -WIN - 1, beta: int = WIN + 1) -> tuple[int, int]:
        """(score for the side to move, positions searched) of a position that is not over.

        Fail-soft alpha-beta: a result ``<= alpha`` is an upper bound, ``>= beta`` a lower
        bound, anything between exact.
        """
        before = int(self._stats[0])
        own, other = (pos.white, pos.black) if pos.side == 0 else (pos.black, pos.white)
        v = _negamax(
            np.uint64(own),
            np.uint64(other),
            pos.side,
            0,
            alpha,
            beta,
            DESTINATIONS,
            GOAL_ROWS,
            self._keys,
            self._vals,
            self._hist,
            self._stats,
        )
        return int(v), int(self._stats[0]) - before

    def exact_score(self, pos: BtPosition) -> tuple[int, int]:
        """(exact score, positions searched) of a position that is not over.

        Who wins is settled first by a null-window search around 0 (cheap: it needs
        no distances); then the distance by a binary search of null windows, each
        reusing the bounds the table holds (the MTD idea). A single full-window
        search gives the same number but cuts far less.
        """
        v, nodes = self.score(pos, -1, 1)
        lo, hi = (1, WIN) if v > 0 else (-WIN, -1)  # the exact score lies in [lo, hi]
        while lo < hi:
            mid = (lo + hi + 1) // 2
            v, n = self.score(pos, mid - 1, mid)
            nodes += n
            if v >= mid:
                lo = mid
            else:
                hi = mid - 1
        return lo, nodes

    def outcome(self, pos: BtPosition) -> tuple[Outcome, int]:
        """(outcome, positions searched) of any position, over or not."""
        done = terminal_outcome(pos)
        if done is not None:
            return done, 0
        v, nodes = self.exact_score(pos)
        mover, waiter = ROLES[pos.side], ROLES[1 - pos.side]
        if v > 0:
            return Outcome(mover, WIN - v), nodes
        return Outcome(waiter, WIN + v), nodes

    def solve(self, game: Game[Any], state: Any) -> BtAnswer:
        """The outcome of ``state`` and of every legal move of the side to move.

        Moves are the game's own terms, matched to positions through ``game.facts``.
        """
        pos = position_of_facts(game.facts(state))
        outcome, nodes = self.outcome(pos)
        if game.is_terminal(state):
            return BtAnswer(outcome, {}, (), nodes)
        role = ROLES[pos.side]
        moves: dict[Term, Outcome] = {}
        for move in game.legal_moves(state, role):
            child = game.play(state, move, role)
            child_outcome, n = self.outcome(position_of_facts(game.facts(child)))
            moves[move] = Outcome(child_outcome.winner, child_outcome.plies + 1)
            nodes += n

        def merit(o: Outcome) -> int:
            return WIN - o.plies if o.winner == role else -(WIN - o.plies)

        best = max(merit(o) for o in moves.values())
        best_moves = tuple(m for m, o in moves.items() if merit(o) == best)
        return BtAnswer(outcome, moves, best_moves, nodes)

    def best_move(self, game: Game[Any], state: Any) -> Term:
        """One move of the side to move that keeps the exact value (fastest win, slowest loss).

        Cheaper than :meth:`solve`: after the exact score of ``state``, each move needs only
        a null-window test (does the position after it score at most the mirror of that
        value?), and the first that passes is played.
        """
        pos = position_of_facts(game.facts(state))
        if terminal_outcome(pos) is not None or game.is_terminal(state):
            raise BreakthroughPositionError("the game is over: there is no move to choose")
        role = ROLES[pos.side]
        v, _ = self.exact_score(pos)
        target = -v - 1 if v > 0 else -v + 1  # the child's score that gives the parent v
        legal = game.legal_moves(state, role)
        for move in legal:
            child = position_of_facts(game.facts(game.play(state, move, role)))
            if terminal_outcome(child) is not None:
                if v == WIN - 1:
                    return move
                continue
            c, _ = self.score(child, target, target + 1)
            if c <= target:
                return move
        raise AssertionError(f"no move keeps the value {v}: the solver is inconsistent")
