"""The compiled kernels of pawn checkers' native tree (see :mod:`.tree`).

Apart from :mod:`.tree` because numba caches a function that passes these to
:func:`~ggpkit.search.native.kernels.run_batches` only when it names them through
their module (as plain globals of its own module they become dynamic globals).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ggpkit.games.checkers import kernels as k

NOOP_INDEX = 4 * 64
MOVE_START = (0, NOOP_INDEX + 1, 2 * (NOOP_INDEX + 1))
_ZERO = np.uint64(0)
_ONE = np.uint64(1)


@njit(cache=True, nogil=True)
def _describe_row(row, legal, term, goal, wrap):  # type: ignore[no-untyped-def]
    """Legal flags, terminal flag and goals of the state ``row``."""
    black, red, control = row[0], row[1], int(np.int64(row[5]))
    goal[0] = k.GOAL_TABLE[int(np.int64(row[2]))]
    goal[1] = k.GOAL_TABLE[int(np.int64(row[3]))]
    term[0] = black == _ZERO or red == _ZERO or int(np.int64(row[4])) >= k.STEP_LIMIT
    if term[0]:
        return
    own, opp = (black, red) if control == 0 else (red, black)
    legal[:] = 0
    legal[(1 - control) * (NOOP_INDEX + 1) + NOOP_INDEX] = 1
    base = control * (NOOP_INDEX + 1)
    count = 0
    for jump in (1, 0):
        for d in range(2):
            if jump:
                targets = k.jump_targets(own, opp, control, d, wrap)
            else:
                targets = k.step_targets(own, opp, control, d, wrap)
            while targets != _ZERO:
                low = targets & (~targets + _ONE)
                targets ^= low
                legal[base + 4 * k.bit_index(low) + 2 * jump + d] = 1
                count += 1
        if count > 0:  # jumps are compulsory
            break
    term[0] = count == 0  # the side with control is blocked


@njit(cache=True, nogil=True)
def describe(rows, idx, legal, term, goal, wrap):  # type: ignore[no-untyped-def]
    for j in range(idx.shape[0]):
        _describe_row(rows[idx[j]], legal[j], term[j : j + 1], goal[j], wrap)


@njit(cache=True, nogil=True)
def children(rows, idx, joint, legal, term, goal, wrap):  # type: ignore[no-untyped-def]
    for j in range(idx.shape[0]):
        row = rows[idx[j]]
        control = int(np.int64(row[5]))
        code = joint[j, control] - control * (NOOP_INDEX + 1)
        to = _ONE << np.uint64(code // 4)
        jump, d = (code % 4) // 2, code % 2
        back = k.retreat(to, control, d, wrap)
        own, opp = (row[0], row[1]) if control == 0 else (row[1], row[0])
        if jump:
            opp ^= back
            own ^= k.retreat(back, control, d, wrap) | to
            row[2 + control] += _ONE
        else:
            own ^= back | to
        row[0], row[1] = (own, opp) if control == 0 else (opp, own)
        row[4] += _ONE
        row[5] = np.uint64(1 - control)
        _describe_row(row, legal[j], term[j : j + 1], goal[j], wrap)


@njit(cache=True, nogil=True)
def playouts(rows, count, seed, sums, wrap):  # type: ignore[no-untyped-def]
    moves = 0
    for j in range(rows.shape[0]):
        r = rows[j]
        captures_black, captures_red = int(np.int64(r[2])), int(np.int64(r[3]))
        step, control = int(np.int64(r[4])), int(np.int64(r[5]))
        played, black_sum, red_sum = k.playouts(
            r[0], r[1], captures_black, captures_red, step, control, wrap, count,
            np.uint64(seed) + np.uint64(7919 * j),
        )  # fmt: skip
        sums[j, 0] += black_sum
        sums[j, 1] += red_sum
        moves += played
    return moves
