"""Pawn checkers in the native compiled tree (:mod:`ggpkit.games.native_tree`).

A state is the row (black, red, black captures, red captures, step, control). A move
of the side with control is its landing square, whether it jumps and its direction
``d`` (:func:`kernels.advance`), index ``4 * square + 2 * jump + d``: the source square
is one step back (two for a jump). Index 256 is the noop of the side without control.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import numpy.typing as npt
from numba import njit

from ggpkit.games.checkers import kernels as k
from ggpkit.games.native_tree import BoardBits, NativeTreeKernels
from ggpkit.gdl.terms import Const, Term, func

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


def state_row(state: tuple[int, ...]) -> npt.NDArray[np.uint64]:
    """The row of a position (black, red, black captures, red captures, step, control)."""
    return np.array(state, dtype=np.uint64)


def move_term(wrap: bool, role: int, index: int) -> Term:
    """The term of move ``index`` of role ``role`` (see the module docstring)."""
    if index == NOOP_INDEX:
        return Const("noop")
    square, rest = divmod(index, 4)
    jump, d = divmod(rest, 2)
    source = _ONE << np.uint64(square)
    for _ in range(1 + jump):
        source = k.retreat(source, role, d, wrap)
    frm = int(source).bit_length() - 1
    return func(
        "jump" if jump else "move", frm % 8 + 1, frm // 8 + 1, square % 8 + 1, square // 8 + 1
    )


fact_bit = BoardBits("location", (("blackPawn", 0), ("redPawn", 1)), 8, 8)
"""A pawn's fact ``(location x y blackPawn|redPawn)`` -> its (row word, bit)."""


PLAIN = NativeTreeKernels(
    6, MOVE_START, state_row, partial(move_term, False), describe, children, playouts, False,
    fact_bit,
)  # fmt: skip
"""Pawn checkers on the plain board."""
BARREL = NativeTreeKernels(
    6, MOVE_START, state_row, partial(move_term, True), describe, children, playouts, True,
    fact_bit,
)  # fmt: skip
"""Pawn checkers on the barrel (rows wrap)."""
