"""The compiled kernels of breakthrough-holes' native tree (see :mod:`.tree`).

Apart from :mod:`.tree` because numba caches a function that passes these to
:func:`~ggpkit.search.native.kernels.run_batches` only when it names them through
their module (as plain globals of its own module they become dynamic globals).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ggpkit.games.breakthrough import kernels as k
from ggpkit.games.breakthrough.tactical import tactical_playout_stats

CELLS = 36
NOOP_INDEX = 3 * CELLS
MOVE_START = (0, NOOP_INDEX + 1, 2 * (NOOP_INDEX + 1))


@njit(cache=True, nogil=True)
def _describe_row(row, legal, term, goal, capture):  # type: ignore[no-untyped-def]
    """Legal flags, terminal flag and goals of the state ``row``."""
    white, black, control = row[0], row[1], int(np.int64(row[2]))
    white_win, black_win = k.wins(white, black, control, capture)
    term[0] = white_win or black_win
    goal[0] = 100 * int(white_win)
    goal[1] = 100 * int(black_win)
    if term[0]:
        return
    legal[:] = 0
    legal[(1 - control) * (NOOP_INDEX + 1) + NOOP_INDEX] = 1
    base = control * (NOOP_INDEX + 1)
    boards = k.destinations(white, black, control, capture)
    for kind in range(3):
        b = boards[kind]
        while b != k.U(0):
            low = b & (~b + k.ONE)
            b ^= low
            legal[base + 3 * k._bit_index(low) + kind] = 1


@njit(cache=True, nogil=True)
def describe(rows, idx, legal, term, goal, capture):  # type: ignore[no-untyped-def]
    for j in range(idx.shape[0]):
        _describe_row(rows[idx[j]], legal[j], term[j : j + 1], goal[j], capture)


@njit(cache=True, nogil=True)
def children(rows, idx, joint, legal, term, goal, capture):  # type: ignore[no-untyped-def]
    for j in range(idx.shape[0]):
        row = rows[idx[j]]
        control = int(np.int64(row[2]))
        code = joint[j, control] - control * (NOOP_INDEX + 1)
        dst = k.ONE << k.U(code // 3)
        src = k.source_of(dst, code % 3, control)
        white, black, nxt = k.apply_move(row[0], row[1], control, src, dst)
        row[0] = white
        row[1] = black
        row[2] = k.U(nxt)
        _describe_row(row, legal[j], term[j : j + 1], goal[j], capture)


@njit(cache=True, nogil=True)
def playouts(rows, count, seed, sums, capture):  # type: ignore[no-untyped-def]
    """The leaves' playouts: tactical ones (:mod:`~ggpkit.games.breakthrough.tactical`),
    not uniformly random."""
    moves = 0
    for j in range(rows.shape[0]):
        row = rows[j]
        played, sum_w, sum_b = tactical_playout_stats(
            int(np.int64(row[0])),
            int(np.int64(row[1])),
            int(np.int64(row[2])),
            capture,
            count,
            (seed + 7919 * j) & (2**62 - 1),
        )
        sums[j, 0] += sum_w
        sums[j, 1] += sum_b
        moves += played
    return moves
