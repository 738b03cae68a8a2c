"""Compiled (numba) kernels of peg solitaire: move generation, random playouts, batches.

The board is a 49-bit int: bit ``row * 7 + col`` (row a=0..g=6, column c1=0..c7=6)
is set when that hole holds a peg. Only the 33 holes of the English cross are used::

        c1 c2 c3 c4 c5 c6 c7
    a         o  o  o
    b         o  o  o
    c   o  o  o  o  o  o  o
    d   o  o  o  .  o  o  o
    e   o  o  o  o  o  o  o
    f         o  o  o
    g         o  o  o

Legal jumps are found bit-parallel, one mask per direction: for a shift ``s``
(``+1`` right, ``-1`` left, ``+7`` down, ``-7`` up) the sources with a legal jump
are ``pegs & (pegs >> s) & (empty >> 2s) & VALID[dir]`` where ``VALID[dir]``
keeps only sources whose middle and destination are holes of the cross (so no
wrap-around across rows). Counting them is four popcounts; a random jump is
the k-th set bit. A whole playout runs inside one compiled call, with an
xorshift generator, so it never returns to the interpreter between moves.

This module holds only the geometry and the kernels; :mod:`ggpkit.games.peg.game`
is the game API around them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numpy as np
from numba import njit

from ggpkit.games.native import bits

ROWS = "abcdefg"
COLUMNS = tuple(f"c{i}" for i in range(1, 8))
WIDTH = 7
CENTER = 3 * WIDTH + 3  # the hole d c4


def _on_cross(row: int, col: int) -> bool:
    """True for the 33 holes of the English cross (the 3x3 corners are cut away)."""
    if not (0 <= row < 7 and 0 <= col < 7):
        return False
    return 2 <= row <= 4 or 2 <= col <= 4


HOLES_LIST: tuple[int, ...] = tuple(
    r * WIDTH + c for r in range(7) for c in range(7) if _on_cross(r, c)
)
HOLES = sum(1 << i for i in HOLES_LIST)
START = HOLES & ~(1 << CENTER)

# Directions in the order the kernels test them: (row step, column step) and bit shift.
DIRECTIONS: tuple[tuple[int, int], ...] = ((0, 1), (0, -1), (1, 0), (-1, 0))
SHIFTS: tuple[int, ...] = tuple(dr * WIDTH + dc for dr, dc in DIRECTIONS)


def _jump_table() -> tuple[tuple[tuple[int, int, int], ...], np.ndarray[Any, Any], list[int]]:
    """Every geometric jump (src, mid, dst), ordered by source then direction.

    Also returns ``ids[dir, src]``, the jump index of the jump from ``src`` in
    direction ``dir`` (-1 if none), and the per-direction masks of valid sources.
    """
    jumps: list[tuple[int, int, int]] = []
    ids = np.full((4, 49), -1, dtype=np.int64)
    valid = [0, 0, 0, 0]
    for src in HOLES_LIST:
        r, c = divmod(src, WIDTH)
        for d, (dr, dc) in enumerate(DIRECTIONS):
            if _on_cross(r + dr, c + dc) and _on_cross(r + 2 * dr, c + 2 * dc):
                ids[d, src] = len(jumps)
                jumps.append((src, src + SHIFTS[d], src + 2 * SHIFTS[d]))
                valid[d] |= 1 << src
    return tuple(jumps), ids, valid


JUMPS, JUMP_IDS, VALID = _jump_table()
JUMP_SRC = np.array([j[0] for j in JUMPS], dtype=np.int64)
JUMP_MID = np.array([j[1] for j in JUMPS], dtype=np.int64)
JUMP_DST = np.array([j[2] for j in JUMPS], dtype=np.int64)

# Plain ints become compile-time constants of the kernels.
_HOLES = HOLES
_CENTER_BIT = 1 << CENTER
_V0, _V1, _V2, _V3 = VALID


F = TypeVar("F", bound=Callable[..., Any])


def _kernel(fn: F) -> F:
    """``numba.njit(cache=True)`` with its type kept for mypy (numba has no stubs)."""
    return cast(F, njit(cache=True, nogil=True)(fn))


popcount = bits.popcount
ctz = bits.lowest_bit_index


@njit(cache=True, nogil=True, inline="always")
def _nth_bit(mask: int, k: int) -> int:
    """The ``k``-th lowest set bit of an int64 mask (the bits kept as an int64)."""
    return int(np.int64(bits.nth_bit(np.uint64(mask), k)))


@_kernel
def goal_of(board: int) -> int:
    """The jumper's goal for a board (same formula as ``PegGame.goals``)."""
    n = popcount(board)
    if n == 1:
        return 100 if board == _CENTER_BIT else 99
    if 2 <= n <= 10:
        return 100 - 10 * (n - 1)
    return 0


@_kernel
def legal_jumps(board: int, out: np.ndarray[Any, Any]) -> int:
    """Write the indices (into ``JUMPS``) of the legal jumps into ``out``; return their number.

    The order is by direction, then source; callers that compare sort first.
    """
    empty = _HOLES & ~board
    masks = (
        board & (board >> 1) & (empty >> 2) & _V0,
        board & (board << 1) & (empty << 2) & _V1,
        board & (board >> 7) & (empty >> 14) & _V2,
        board & (board << 7) & (empty << 14) & _V3,
    )
    n = 0
    for d in range(4):
        m = masks[d]
        while m:
            src = ctz(m)
            out[n] = JUMP_IDS[d, src]
            n += 1
            m &= m - 1
    return n


@_kernel
def apply_jump(board: int, jump: int) -> int:
    """The board after jump number ``jump`` (assumed legal)."""
    return int(board ^ ((1 << JUMP_SRC[jump]) | (1 << JUMP_MID[jump]) | (1 << JUMP_DST[jump])))


@_kernel
def _seed(seed: np.uint64) -> np.uint64:
    """A non-zero xorshift state from any 64-bit seed (splitmix64 finaliser)."""
    z = seed + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    if z == np.uint64(0):
        z = np.uint64(0x2545F4914F6CDD1D)
    return z


@_kernel
def _playout(board: int, rng: np.uint64) -> tuple[int, int, np.uint64]:
    """One random playout: (final board, jumps played, generator state)."""
    steps = 0
    while True:
        empty = _HOLES & ~board
        m0 = board & (board >> 1) & (empty >> 2) & _V0
        m1 = board & (board << 1) & (empty << 2) & _V1
        m2 = board & (board >> 7) & (empty >> 14) & _V2
        m3 = board & (board << 7) & (empty << 14) & _V3
        n0 = popcount(m0)
        n1 = popcount(m1)
        n2 = popcount(m2)
        n3 = popcount(m3)
        n = n0 + n1 + n2 + n3
        if n == 0:
            return board, steps, rng
        # xorshift64
        rng ^= rng << np.uint64(13)
        rng ^= rng >> np.uint64(7)
        rng ^= rng << np.uint64(17)
        k = int((np.int64(rng >> np.uint64(33)) * n) >> 31)
        if k < n0:
            src = _nth_bit(m0, k)
            board ^= src | (src << 1) | (src << 2)
        elif k < n0 + n1:
            src = _nth_bit(m1, k - n0)
            board ^= src | (src >> 1) | (src >> 2)
        elif k < n0 + n1 + n2:
            src = _nth_bit(m2, k - n0 - n1)
            board ^= src | (src << 7) | (src << 14)
        else:
            src = _nth_bit(m3, k - n0 - n1 - n2)
            board ^= src | (src >> 7) | (src >> 14)
        steps += 1


@_kernel
def random_playout(board: int, seed: np.uint64) -> tuple[int, int]:
    """One random playout from ``board``: (final board, number of jumps)."""
    final, steps, _ = _playout(board, _seed(seed))
    return final, steps


@_kernel
def many_playouts(board: int, count: int, seed: np.uint64) -> tuple[int, int]:
    """``count`` random playouts from ``board``: (total jumps, sum of the jumper's goals)."""
    rng = _seed(seed)
    moves = 0
    goals = 0
    for _ in range(count):
        final, steps, rng = _playout(board, rng)
        moves += steps
        goals += goal_of(final)
    return moves, goals


@_kernel
def perft(board: int, depth: int) -> int:
    """Number of jump sequences of length ``depth`` from ``board`` (the generator's oracle)."""
    if depth == 0:
        return 1
    out = np.empty(76, dtype=np.int64)
    n = legal_jumps(board, out)
    if depth == 1:
        return n
    total = 0
    for i in range(n):
        total += perft(apply_jump(board, out[i]), depth - 1)
    return total
