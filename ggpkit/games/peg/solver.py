"""The exact peg solitaire solver: the best score reachable from any position, and its moves.

Why a search and not a table: all 23.5 million positions reachable from the start
(up to symmetry) would need a ~200 MB table built once; a depth-first search that
remembers every position it has finished, under the 8 symmetries of the cross,
answers a query in a fraction of a second instead, for any position (reachable
from the start or not), with nothing stored on disk.

The search computes the exact value ``v(p)`` = the best goal the jumper can still
reach from ``p``: the goal of ``p`` itself when no jump is left, else the max over
the jumps. 100 is the highest goal there is, so a node stops at the first child
worth 100; everywhere else it sees all children. Every value it stores is
therefore exact, and a table filled by one query serves the next.

Board layout: the one of :mod:`ggpkit.games.peg.kernels` (bit ``row * 7 + col``,
row a=0..g=6, column c1=0..c7=6), whose geometry tables this module imports; the
solver still reads a position only through ``game.facts``, so it needs no native state.

A position's key is the smallest of its 8 symmetric images; an image is 7 table
lookups (one per row byte), so a key costs 56 lookups.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ggpkit.errors import GgpkitError
from ggpkit.games.api import Game
from ggpkit.games.peg.game import goal_of
from ggpkit.games.peg.kernels import CENTER, COLUMNS, HOLES_LIST, ROWS, WIDTH
from ggpkit.games.peg.kernels import JUMPS as GAME_JUMPS
from ggpkit.gdl.terms import Const, Func, Term
from ggpkit.reasoning.jit import kernel

# The solver's kernels take the jump table as an (n, 3) int64 array: (src, mid, dst) bits,
# in the order of the game's own table, so jump number j means the same move in both.
HOLES: tuple[int, ...] = HOLES_LIST
JUMPS = np.array(GAME_JUMPS, dtype=np.int64)


def _transform(s: int, r: int, c: int) -> tuple[int, int]:
    """The image of hole (r, c) under symmetry ``s`` of the square (0 is the identity)."""
    if s & 4:
        r, c = c, r
    if s & 2:
        r = 6 - r
    if s & 1:
        c = 6 - c
    return r, c


def _symmetry_tables() -> np.ndarray[Any, Any]:
    """``tab[s, row, bits]``: the image under symmetry ``s`` of the pegs ``bits`` of ``row``."""
    tab = np.zeros((8, 7, 128), dtype=np.uint64)
    for s in range(8):
        for r in range(7):
            for bits in range(128):
                img = 0
                for c in range(7):
                    if bits >> c & 1:
                        r2, c2 = _transform(s, r, c)
                        img |= 1 << (r2 * WIDTH + c2)
                tab[s, r, bits] = img
    return tab


SYM_TABLES = _symmetry_tables()


# ---- compiled kernels ----------------------------------------------------------------


@kernel
def goal_kernel(board: np.uint64) -> int:
    n = 0
    x = board
    while x:
        x &= x - np.uint64(1)
        n += 1
    if n == 1:
        return 100 if board == np.uint64(1) << np.uint64(CENTER) else 99
    if 2 <= n <= 10:
        return 100 - 10 * (n - 1)
    return 0


@kernel
def canon_key(board: np.uint64, tab: np.ndarray[Any, Any]) -> np.uint64:
    best = np.uint64(0xFFFFFFFFFFFFFFFF)
    for s in range(8):
        img = np.uint64(0)
        for r in range(7):
            img |= tab[s, r, (board >> np.uint64(7 * r)) & np.uint64(127)]
        if img < best:
            best = img
    return best


@kernel
def gen_jumps(board: np.uint64, jumps: np.ndarray[Any, Any], out: np.ndarray[Any, Any]) -> int:
    n = 0
    one = np.uint64(1)
    for j in range(jumps.shape[0]):
        s = one << np.uint64(jumps[j, 0])
        m = one << np.uint64(jumps[j, 1])
        d = one << np.uint64(jumps[j, 2])
        if (board & s) and (board & m) and not (board & d):
            out[n] = j
            n += 1
    return n


@kernel
def after_jump(board: np.uint64, jumps: np.ndarray[Any, Any], j: int) -> np.uint64:
    """The board after jump ``j`` of ``jumps`` (known legal): its source, middle and
    destination bits all flip, so one xor plays it."""
    one = np.uint64(1)
    return board ^ (
        (one << np.uint64(jumps[j, 0]))
        | (one << np.uint64(jumps[j, 1]))
        | (one << np.uint64(jumps[j, 2]))
    )


@kernel
def _tt_find(keys: np.ndarray[Any, Any], key: np.uint64) -> int:
    """Slot of ``key`` in the open-addressing table, or of the empty slot where it would go."""
    mask = keys.shape[0] - 1
    h: int = int((key * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(40)) & mask
    while keys[h] != 0 and keys[h] != key:
        h = (h + 1) & mask
    return h


@kernel
def _store(
    keys: np.ndarray[Any, Any],
    vals: np.ndarray[Any, Any],
    stats: np.ndarray[Any, Any],
    slot: int,
    key: np.uint64,
    v: int,
    limit: int,
) -> None:
    """Remember an exact value; a table 3/4 full is emptied first (it is only a cache)."""
    if stats[1] >= limit:
        keys[:] = 0
        stats[1] = 0
        slot = _tt_find(keys, key)
    keys[slot] = key
    vals[slot] = v
    stats[1] += 1


@kernel
def _known(
    board: np.uint64, tab: np.ndarray[Any, Any], keys: np.ndarray[Any, Any], vals: Any
) -> int:
    """The stored value of a position, or -1."""
    key = canon_key(board, tab)
    slot = _tt_find(keys, key)
    return int(vals[slot]) if keys[slot] == key else -1


@kernel
def _search(
    root: np.uint64,
    jumps: np.ndarray[Any, Any],
    tab: np.ndarray[Any, Any],
    keys: np.ndarray[Any, Any],
    vals: np.ndarray[Any, Any],
    stats: np.ndarray[Any, Any],
) -> int:
    """Exact value of ``root``; fills the table. ``stats`` = [nodes expanded, table entries].

    An explicit stack (depth <= 32 jumps) instead of recursion keeps the kernel simple to
    compile. The table is emptied when 3/4 full (see ``_store``).
    """
    limit = (keys.shape[0] * 3) // 4
    boards = np.zeros(34, dtype=np.uint64)
    bkeys = np.zeros(34, dtype=np.uint64)
    moves = np.zeros((34, 80), dtype=np.int64)
    count = np.zeros(34, dtype=np.int64)
    nxt = np.zeros(34, dtype=np.int64)
    best = np.zeros(34, dtype=np.int64)
    n0 = gen_jumps(root, jumps, moves[0])
    if n0 == 0:
        return goal_kernel(root)
    boards[0] = root
    count[0] = n0
    nxt[0] = 0
    best[0] = -1
    stats[0] += 1
    depth = 0
    while True:
        if nxt[depth] < count[depth] and best[depth] < 100:
            j = moves[depth, nxt[depth]]
            nxt[depth] += 1
            child = after_jump(boards[depth], jumps, j)
            key = canon_key(child, tab)
            slot = _tt_find(keys, key)
            if keys[slot] == key:
                v = int(vals[slot])
            else:
                n = gen_jumps(child, jumps, moves[depth + 1])
                if n == 0:
                    v = goal_kernel(child)
                    _store(keys, vals, stats, slot, key, v, limit)
                else:
                    depth += 1
                    boards[depth] = child
                    bkeys[depth] = key
                    count[depth] = n
                    nxt[depth] = 0
                    best[depth] = -1
                    stats[0] += 1
                    continue
            if v > best[depth]:
                best[depth] = v
        else:
            v = best[depth]
            if depth == 0:
                return int(v)
            key = bkeys[depth]
            slot = _tt_find(keys, key)
            if keys[slot] != key:
                _store(keys, vals, stats, slot, key, v, limit)
            depth -= 1
            if v > best[depth]:
                best[depth] = v


# ---- the solver -------------------------------------------------------------------


class PegPositionError(GgpkitError, ValueError):
    """A state that is not a peg solitaire position (its facts do not describe the cross)."""


@dataclass(frozen=True, slots=True)
class PegAnswer:
    """The solver's answer for one position.

    ``value`` is the best goal reachable; ``moves`` maps every legal move (the game
    API's terms) to the best goal reachable after it; ``best_moves`` are those that keep
    ``value``, in the game's legal-move order. ``nodes`` counts positions expanded.
    """

    value: int
    moves: dict[Term, int]
    best_moves: tuple[Term, ...]
    nodes: int


def board_of_facts(facts: frozenset[Term]) -> int:
    """The bitboard of a position given as GDL facts ``(hole R C peg)`` / ``(hole R C empty)``."""
    board = 0
    seen = 0
    for f in facts:
        if not (isinstance(f, Func) and f.name == "hole" and len(f.args) == 3):
            continue
        r, c, what = (str(a) for a in f.args)
        if r not in ROWS or c not in COLUMNS:
            raise PegPositionError(f"(hole {r} {c} {what}) names no hole of the cross")
        index = ROWS.index(r) * WIDTH + COLUMNS.index(c)
        if index not in HOLES:
            raise PegPositionError(f"(hole {r} {c} {what}) names no hole of the cross")
        seen |= 1 << index
        if what == "peg":
            board |= 1 << index
    if seen != sum(1 << i for i in HOLES):
        raise PegPositionError("the facts do not give the contents of all 33 holes")
    return board


def jump_term(j: int) -> Func:
    """The GDL term ``(jump R1 C1 R2 C2)`` of jump number ``j`` of :data:`JUMPS`."""
    s, _, d = (int(x) for x in JUMPS[j])
    return Func(
        "jump",
        (
            Const(ROWS[s // WIDTH]),
            Const(COLUMNS[s % WIDTH]),
            Const(ROWS[d // WIDTH]),
            Const(COLUMNS[d % WIDTH]),
        ),
    )


class PegSolver:
    """Exact values of peg solitaire positions. Keeps its table of solved positions.

    ``table_bits`` sizes the search's memo (2**bits entries, 9 bytes each; 2**23 is
    72 MB; at most 24). Values in it are exact, so it is kept between queries;
    :meth:`clear` empties it. ``lookup`` is an optional source of exact values tried
    first (the built table of :mod:`peg_table`: ``PegTable.lookup``); it answers None for
    positions it does not hold, which the search then solves.
    """

    def __init__(
        self, table_bits: int = 23, lookup: Callable[[int], int | None] | None = None
    ) -> None:
        if not 10 <= table_bits <= 24:
            raise ValueError(f"table_bits must be in 10..24, not {table_bits}")
        self._keys = np.zeros(1 << table_bits, dtype=np.uint64)
        self._vals = np.zeros(1 << table_bits, dtype=np.int8)
        self._stats = np.zeros(2, dtype=np.int64)
        self._lookup = lookup
        self._moves = np.zeros(80, dtype=np.int64)

    def clear(self) -> None:
        """Forget every solved position (to time a query from scratch)."""
        self._keys[:] = 0
        self._stats[:] = 0

    @property
    def stored(self) -> int:
        """Number of positions in the table."""
        return int(self._stats[1])

    def value(self, board: int) -> tuple[int, int]:
        """(best reachable goal, positions expanded by the search) of a bitboard."""
        if self._lookup is not None:
            known = self._lookup(board)
            if known is not None:
                return known, 0
        before = int(self._stats[0])
        v = _search(np.uint64(board), JUMPS, SYM_TABLES, self._keys, self._vals, self._stats)
        return int(v), int(self._stats[0]) - before

    def solve(self, game: Game[Any], state: Any) -> PegAnswer:
        """The best goal from ``state`` of the peg ``game`` and the value of every legal move.

        Moves are the game's own terms; each is matched to a jump by the position it
        leads to, so the solver never assumes how the engine names or orders moves.
        """
        board = board_of_facts(game.facts(state))
        role = game.roles[0]
        legal = game.legal_moves(state, role)
        if not legal:
            return PegAnswer(goal_of(board), {}, (), 0)
        values: dict[Term, int] = {}
        nodes = 0
        for move in legal:
            child = board_of_facts(game.facts(game.next_state(state, {role: move})))
            v, n = self.value(child)
            values[move] = v
            nodes += n
        best = max(values.values())
        return PegAnswer(best, values, tuple(m for m in legal if values[m] == best), nodes)

    def known(self, board: int) -> int | None:
        """The value of a position if the table or the memo holds it (no search)."""
        if self._lookup is not None:
            v = self._lookup(board)
            if v is not None:
                return v
        if board.bit_count() <= 1 or not gen_jumps(np.uint64(board), JUMPS, self._moves):
            return goal_of(board)
        found = _known(np.uint64(board), SYM_TABLES, self._keys, self._vals)
        return None if found < 0 else found

    def best_move(self, game: Game[Any], state: Any) -> Term:
        """One move that keeps the value of ``state`` (cheaper than :meth:`solve`).

        Computing the value leaves the child that gave it in the memo, so the move is
        usually found by lookups alone; only when the memo lost it are children searched.
        """
        role = game.roles[0]
        legal = game.legal_moves(state, role)
        if not legal:
            raise PegPositionError("the game is over: there is no move to choose")
        value, _ = self.value(board_of_facts(game.facts(state)))
        children = [
            (move, board_of_facts(game.facts(game.next_state(state, {role: move}))))
            for move in legal
        ]
        for move, child in children:
            if self.known(child) == value:
                return move
        for move, child in children:
            if self.value(child)[0] == value:
                return move
        raise AssertionError(f"no move keeps the value {value}: the solver is inconsistent")

    def solution(self, game: Game[Any], state: Any) -> list[Term]:
        """A line of best moves from ``state`` to the end of the game."""
        line: list[Term] = []
        role = game.roles[0]
        while not game.is_terminal(state):
            move = self.best_move(game, state)
            line.append(move)
            state = game.next_state(state, {role: move})
        return line
