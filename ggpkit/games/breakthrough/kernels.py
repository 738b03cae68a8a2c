"""Compiled (numba) kernels of breakthrough with holes: move generation, next, playouts, perft.

The board is a 36-bit bitboard per colour; cell (x, y), both 1..6, is bit
``(y - 1) * 6 + (x - 1)``::

    y=6 | 30 31 32 33 34 35      black starts on y = 5, 6 and moves down (y - 1)
    y=5 | 24 25 26 27 28 29
    y=4 | 18 19 ## 21 ## 23      ## = holes (3,4) (5,4)
    y=3 | 12 ## 14 ## 16 17      ## = holes (2,3) (4,3)
    y=2 |  6  7  8  9 10 11
    y=1 |  0  1  2  3  4  5      white starts on y = 1, 2 and moves up (y + 1)
          x=1 ...        x=6

A move's destinations are whole boards computed by shifts (forward = 6 bits,
diagonals = 5 or 7 bits with the edge column masked out), so a random move is
"count the destinations, draw an index, take that set bit" with no move list.
The capture flag only widens the diagonal targets to opponent cells.

Every function takes and returns plain integers so that the interpreter side
(:mod:`ggpkit.games.breakthrough.game`) keeps Python ints in its immutable states.
``control`` is 0 for white, 1 for black. A playout never returns to the
interpreter between moves.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ggpkit.games.native.bits import nth_bit, popcount

U = np.uint64

FULL = U((1 << 36) - 1)
ROW1 = U(0b111111)
ROW6 = U(0b111111 << 30)
COL1 = U(sum(1 << (6 * r) for r in range(6)))
COL6 = U(sum(1 << (6 * r + 5) for r in range(6)))
NOT_COL1 = U(int(FULL) & ~int(COL1))
NOT_COL6 = U(int(FULL) & ~int(COL6))
HOLES = U((1 << 13) | (1 << 20) | (1 << 15) | (1 << 22))  # (2,3) (3,4) (4,3) (5,4)
ONE = U(1)
S5 = U(5)
S6 = U(6)
S7 = U(7)
S12 = U(12)
S13 = U(13)
S17 = U(17)
S25 = U(25)
S27 = U(27)
S32 = U(32)
XS_MUL = U(0x2545F4914F6CDD1D)
SM_GAMMA = U(0x9E3779B97F4A7C15)
SM_MUL1 = U(0xBF58476D1CE4E5B9)
SM_MUL2 = U(0x94D049BB133111EB)
S30 = U(30)
S31 = U(31)


@njit(cache=True, nogil=True)
def destinations(
    white: np.uint64, black: np.uint64, control: int, capture: bool
) -> tuple[np.uint64, np.uint64, np.uint64]:
    """Destination boards of the side ``control``: (straight, towards x-1, towards x+1)."""
    empty = FULL & ~(white | black | HOLES)
    if control == 0:
        diag = (empty | black) if capture else empty
        fwd = (white << S6) & empty
        left = ((white & NOT_COL1) << S5) & diag
        right = ((white & NOT_COL6) << S7) & diag
    else:
        diag = (empty | white) if capture else empty
        fwd = (black >> S6) & empty
        left = ((black & NOT_COL1) >> S7) & diag
        right = ((black & NOT_COL6) >> S5) & diag
    return fwd, left, right


@njit(cache=True, nogil=True)
def source_of(dest: np.uint64, kind: int, control: int) -> np.uint64:
    """The source bit of a destination bit, for kind 0 (straight), 1 (x-1), 2 (x+1)."""
    if control == 0:
        if kind == 0:
            return dest >> S6
        if kind == 1:
            return dest >> S5
        return dest >> S7
    if kind == 0:
        return dest << S6
    if kind == 1:
        return dest << S7
    return dest << S5


@njit(cache=True, nogil=True)
def count_moves(white: np.uint64, black: np.uint64, control: int, capture: bool) -> int:
    """Number of legal moves of the side ``control`` (ignoring whether the game is over)."""
    fwd, left, right = destinations(white, black, control, capture)
    return popcount(fwd) + popcount(left) + popcount(right)


@njit(cache=True, nogil=True)
def wins(white: np.uint64, black: np.uint64, control: int, capture: bool) -> tuple[bool, bool]:
    """(white wins, black wins), exactly as the rules define them, in any position.

    White wins with a piece on y = 6 or when black has control and no move;
    black symmetrically. Both can hold only in hand-built positions.
    """
    white_win = (white & ROW6) != 0
    black_win = (black & ROW1) != 0
    if control == 1 and not white_win:
        white_win = count_moves(white, black, 1, capture) == 0
    if control == 0 and not black_win:
        black_win = count_moves(white, black, 0, capture) == 0
    return white_win, black_win


@njit(cache=True, nogil=True)
def game_wins(white: int, black: int, control: int, capture: bool) -> tuple[bool, bool]:
    """:func:`wins` on plain ints, for the interpreter side."""
    return wins(U(white), U(black), control, capture)


@njit(cache=True, nogil=True)
def apply_move(
    white: np.uint64, black: np.uint64, control: int, src: np.uint64, dst: np.uint64
) -> tuple[np.uint64, np.uint64, int]:
    """The next (white, black, control) after the side ``control`` moves src -> dst (bits)."""
    if control == 0:
        return white ^ (src | dst), black & ~dst, 1
    return white & ~dst, black ^ (src | dst), 0


@njit(cache=True, nogil=True)
def next_state(
    white: int, black: int, control: int, src_cell: int, dst_cell: int
) -> tuple[int, int, int]:
    """:func:`apply_move` on cell indices 0..35, for the interpreter side."""
    w, b, c = apply_move(U(white), U(black), control, ONE << U(src_cell), ONE << U(dst_cell))
    return int(w), int(b), c


@njit(cache=True, nogil=True)
def _bit_index(bit: np.uint64) -> int:
    i = 0
    while bit > ONE:
        bit >>= ONE
        i += 1
    return i


@njit(cache=True, nogil=True)
def legal_moves(white: int, black: int, control: int, capture: bool) -> np.ndarray:
    """The legal moves of the side ``control`` as an (n, 2) array of (source, destination) cells.

    Ordered by source cell, then destination cell.
    """
    fwd, left, right = destinations(U(white), U(black), control, capture)
    n = popcount(fwd) + popcount(left) + popcount(right)
    out = np.empty((n, 2), dtype=np.int64)
    k = 0
    boards = (fwd, left, right)
    for kind in range(3):
        b = boards[kind]
        while b != U(0):
            low = b & (~b + ONE)
            b ^= low
            out[k, 0] = _bit_index(source_of(low, kind, control))
            out[k, 1] = _bit_index(low)
            k += 1
    order = np.argsort(out[:, 0] * 64 + out[:, 1])
    return out[order]


@njit(cache=True, nogil=True)
def _splitmix(x: np.uint64) -> np.uint64:
    z = x + SM_GAMMA
    z = (z ^ (z >> S30)) * SM_MUL1
    z = (z ^ (z >> U(27))) * SM_MUL2
    return z ^ (z >> S31)


@njit(cache=True, nogil=True, inline="always")
def _random_turn(
    own: np.uint64, opp: np.uint64, up: bool, capture: bool, rng: np.uint64
) -> tuple[bool, np.uint64, np.uint64, np.uint64]:
    """One uniformly random move of the side whose pieces are ``own``, moving ``up`` (white)
    or down: (moved, own, opp, rng); ``moved`` is False when that side has no move.

    The generator is xorshift64, an index drawn from its high 32 bits by multiply-shift;
    the index is an int64, so every comparison stays in integers (numba's ``int`` of a
    uint64 is a uint64, and comparing that with an int64 goes through floats).
    """
    empty = FULL & ~(own | opp | HOLES)
    diag = (empty | opp) if capture else empty
    if up:
        fwd = (own << S6) & empty
        left = ((own & NOT_COL1) << S5) & diag
        right = ((own & NOT_COL6) << S7) & diag
    else:
        fwd = (own >> S6) & empty
        left = ((own & NOT_COL1) >> S7) & diag
        right = ((own & NOT_COL6) >> S5) & diag
    c0 = popcount(fwd)
    c1 = popcount(left)
    n = c0 + c1 + popcount(right)
    if n == 0:
        return False, own, opp, rng
    rng ^= rng << S13
    rng ^= rng >> S7
    rng ^= rng << S17
    r = int(np.int64(((rng >> S32) * U(n)) >> S32))
    if r < c0:
        board, shift = fwd, S6
    elif r < c0 + c1:
        board, shift, r = left, (S5 if up else S7), r - c0
    else:
        board, shift, r = right, (S7 if up else S5), r - c0 - c1
    dst = nth_bit(board, r)
    own ^= ((dst >> shift) if up else (dst << shift)) | dst
    if capture:
        opp &= ~dst
    return True, own, opp, rng


@njit(cache=True, nogil=True, inline="always")
def _playout_turns(
    white: np.uint64, black: np.uint64, control: int, capture: bool, rng: np.uint64
) -> tuple[bool, int, np.uint64]:
    """Random turns from a position that is not over, to the end: (white won, joint moves,
    rng). Written out per side and inlined with ``capture`` a constant, so the compiled
    loop has no test of whose turn it is or of the variant."""
    steps = 0
    if control == 1:
        moved, black, white, rng = _random_turn(black, white, False, capture, rng)
        if not moved:
            return True, steps, rng
        steps += 1
        if black & ROW1:
            return False, steps, rng
    while True:
        moved, white, black, rng = _random_turn(white, black, True, capture, rng)
        if not moved:
            return False, steps, rng
        steps += 1
        if white & ROW6:
            return True, steps, rng
        moved, black, white, rng = _random_turn(black, white, False, capture, rng)
        if not moved:
            return True, steps, rng
        steps += 1
        if black & ROW1:
            return False, steps, rng


@njit(cache=True, nogil=True)
def _playout_plain(
    white: np.uint64, black: np.uint64, control: int, rng: np.uint64
) -> tuple[bool, int, np.uint64]:
    return _playout_turns(white, black, control, False, rng)


@njit(cache=True, nogil=True)
def _playout_capture(
    white: np.uint64, black: np.uint64, control: int, rng: np.uint64
) -> tuple[bool, int, np.uint64]:
    return _playout_turns(white, black, control, True, rng)


@njit(cache=True, nogil=True)
def _random_playout(
    white: np.uint64, black: np.uint64, control: int, capture: bool, rng: np.uint64
) -> tuple[int, int, int, np.uint64]:
    """One uniformly random playout: (white goal, black goal, joint moves, new rng state).

    A position with a piece on its goal row is over (:func:`wins` then says who won);
    one whose side to move is blocked ends in the first turn of the loop.
    """
    if (white & ROW6) != U(0) or (black & ROW1) != U(0):
        white_win, black_win = wins(white, black, control, capture)
        return 100 * int(white_win), 100 * int(black_win), 0, rng
    if capture:
        white_won, steps, rng = _playout_capture(white, black, control, rng)
    else:
        white_won, steps, rng = _playout_plain(white, black, control, rng)
    return 100 * int(white_won), 100 * int(not white_won), steps, rng


@njit(cache=True, nogil=True)
def random_playout(
    white: int, black: int, control: int, capture: bool, seed: int
) -> tuple[int, int, int]:
    """One random playout from a position: (white goal, black goal, joint moves)."""
    rng = _splitmix(U(seed)) | ONE
    gw, gb, steps, _ = _random_playout(U(white), U(black), control, capture, rng)
    return gw, gb, steps


@njit(cache=True, nogil=True)
def playout_stats(
    white: int, black: int, control: int, capture: bool, count: int, seed: int
) -> tuple[int, int, int]:
    """``count`` random playouts from a position: (joint moves, white goal sum, black goal sum)."""
    rng = _splitmix(U(seed)) | ONE
    w0 = U(white)
    b0 = U(black)
    moves = 0
    sum_w = 0
    sum_b = 0
    for _ in range(count):
        gw, gb, steps, rng = _random_playout(w0, b0, control, capture, rng)
        moves += steps
        sum_w += gw
        sum_b += gb
    return moves, sum_w, sum_b


@njit(cache=True, nogil=True)
def _perft(white: np.uint64, black: np.uint64, control: int, capture: bool, depth: int) -> int:
    if depth == 0:
        return 1
    if (white & ROW6) != 0 or (black & ROW1) != 0:
        return 0
    boards = destinations(white, black, control, capture)
    n = popcount(boards[0]) + popcount(boards[1]) + popcount(boards[2])
    if n == 0 or depth == 1:
        return n
    total = 0
    for kind in range(3):
        b = boards[kind]
        while b != U(0):
            dst = b & (~b + ONE)
            b ^= dst
            src = source_of(dst, kind, control)
            w2, b2, c2 = apply_move(white, black, control, src, dst)
            total += _perft(w2, b2, c2, capture, depth - 1)
    return total


@njit(cache=True, nogil=True)
def perft(white: int, black: int, control: int, capture: bool, depth: int) -> int:
    """Joint-move sequences of length ``depth`` from a position (terminal states end a line).

    A position with a piece on its goal row, or whose mover has no move, is terminal.
    """
    return _perft(U(white), U(black), control, capture, depth)
