"""Playouts that see one move ahead, for breakthrough-holes' compiled tree.

A uniformly random playout lets a pawn stand one step from the goal row for many
moves, and lets the other side ignore it: its result then says little about the
position (Sancho's "greedy rollouts" fix the same fault in any game, at several times
a random rollout's cost, and beat our random playouts on breakthroughSmallHoles; see
docs/results.md). Here, with bitboards, the look-ahead costs a few instructions a step:

- **decisive**: a side that can reach its goal row now does, and wins;
- **anti-decisive**: with captures, a side whose opponent threatens to reach its goal
  row next move captures a threatening pawn if it can.

Only the tree's leaves are played out this way: the game's ``random_playout`` stays
uniform (the contract, and the tests comparing it with the rules, say so).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ggpkit.games.breakthrough import kernels as k
from ggpkit.games.native.bits import nth_bit, popcount

U = np.uint64
ROW2 = U(0b111111 << 6)
ROW5 = U(0b111111 << 24)


@njit(cache=True, nogil=True)
def _threats(white: np.uint64, black: np.uint64, side: int, capture: bool) -> np.uint64:
    """The pawns of ``side`` that can reach its goal row in one move."""
    near = (white & ROW5) if side == 0 else (black & ROW2)
    if near == U(0):
        return U(0)
    goal = k.ROW6 if side == 0 else k.ROW1
    boards = k.destinations(white, black, side, capture)
    found = U(0)
    for kind in range(3):
        found |= k.source_of(boards[kind] & goal, kind, side)
    return found


@njit(cache=True, nogil=True)
def _draw(rng: np.uint64, n: int) -> tuple[int, np.uint64]:
    """A number below ``n`` (xorshift64*, multiply-shift), and the new generator state."""
    rng ^= rng >> k.S12
    rng ^= rng << k.S25
    rng ^= rng >> k.S27
    return int(np.int64(((rng * k.XS_MUL) >> k.S32) * U(n) >> k.S32)), rng


@njit(cache=True, nogil=True)
def _choose(
    fwd: np.uint64, left: np.uint64, right: np.uint64, rng: np.uint64
) -> tuple[np.uint64, int, np.uint64]:
    """A uniformly random destination among the three boards: (bit, kind, rng)."""
    c0, c1 = popcount(fwd), popcount(left)
    r, rng = _draw(rng, c0 + c1 + popcount(right))
    if r < c0:
        return nth_bit(fwd, r), 0, rng
    if r < c0 + c1:
        return nth_bit(left, r - c0), 1, rng
    return nth_bit(right, r - c0 - c1), 2, rng


@njit(cache=True, nogil=True)
def tactical_playout(
    white: np.uint64, black: np.uint64, control: int, capture: bool, rng: np.uint64
) -> tuple[int, int, int, np.uint64]:
    """One playout with decisive and anti-decisive moves: (white goal, black goal,
    joint moves, new rng state)."""
    steps = 0
    while True:
        white_win, black_win = k.wins(white, black, control, capture)
        if white_win or black_win:
            return 100 * int(white_win), 100 * int(black_win), steps, rng
        fwd, left, right = k.destinations(white, black, control, capture)
        goal = k.ROW6 if control == 0 else k.ROW1
        if ((fwd | left | right) & goal) != U(0):  # decisive: this move wins
            return 100 * int(control == 0), 100 * int(control == 1), steps + 1, rng
        if capture:
            threats = _threats(white, black, 1 - control, capture)
            if (left | right) & threats != U(0):  # anti-decisive: take a threatening pawn
                fwd, left, right = U(0), left & threats, right & threats
        dst, kind, rng = _choose(fwd, left, right, rng)
        src = k.source_of(dst, kind, control)
        white, black, control = k.apply_move(white, black, control, src, dst)
        steps += 1


@njit(cache=True, nogil=True)
def tactical_playout_stats(
    white: int, black: int, control: int, capture: bool, count: int, seed: int
) -> tuple[int, int, int]:
    """``count`` tactical playouts from a position: (joint moves, white goal sum, black
    goal sum)."""
    rng = k._splitmix(U(seed)) | k.ONE
    moves, sum_w, sum_b = 0, 0, 0
    for _ in range(count):
        gw, gb, steps, rng = tactical_playout(U(white), U(black), control, capture, rng)
        moves += steps
        sum_w += gw
        sum_b += gb
    return moves, sum_w, sum_b
