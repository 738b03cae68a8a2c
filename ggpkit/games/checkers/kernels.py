"""Compiled (numba) kernels of pawn checkers: legal moves, next state, random playouts, perft.

The board is a 64-bit bitboard, one bit per square: bit ``(y - 1) * 8 + (x - 1)``
holds square (x, y), so row 1 is the low byte and row 8 the high byte::

    y=8 | 56 57 58 59 60 61 62 63
    ... |
    y=2 |  8  9 10 11 12 13 14 15
    y=1 |  0  1  2  3  4  5  6  7
           x=1 ...             x=8

A pawn steps diagonally forward: black (up) by +9 (x+1) or +7 (x-1), red (down)
by -7 (x+1) or -9 (x-1). Pawns on the x = 8 (x = 1) file are masked out before a
step to the right (left), so x never wraps. Vertically the plain board uses
shifts (a pawn stepping past row 8 or row 1 falls off the 64 bits: no move),
while the barrel board uses rotations: bit 56 + k rotated left by 9 lands on
bit k + 1, i.e. row 8 continues on row 1 and row 1 continues on row 8. That one
``wrap`` flag is the only difference between the two variants.

Every kernel works on ``np.uint64`` bitboards, because numba turns mixed
``uint64``/``int64`` arithmetic into floats; every constant here is a uint64.

A random playout picks a joint move uniformly: the role without control has the
single move ``noop``, so that is a uniform pick among the mover's legal moves
(jumps when there is one, compulsory, else steps). It never leaves compiled code.
Random numbers come from xorshift64, its state set from a seed by the splitmix64
finaliser, so that a seed gives the same playouts on every machine; each side's
turn is inlined with its mover and the board variant as constants.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ggpkit.games.native.bits import nth_bit, popcount

# Move kinds in the arrays the kernels return.
KIND_MOVE = 0
KIND_JUMP = 1

STEP_LIMIT = 100  # the game is over when the step counter reaches this
GOAL_TABLE = np.array([0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 90, 100], dtype=np.int64)

_ZERO = np.uint64(0)
_ONE = np.uint64(1)
_SEVEN = np.uint64(7)
_NINE = np.uint64(9)
_FIFTY_FIVE = np.uint64(55)  # 64 - 9
_FIFTY_SEVEN = np.uint64(57)  # 64 - 7
_NOT_FILE1 = np.uint64(0xFEFEFEFEFEFEFEFE)  # every square except x = 1
_NOT_FILE8 = np.uint64(0x7F7F7F7F7F7F7F7F)  # every square except x = 8

_S13 = np.uint64(13)
_S17 = np.uint64(17)
_S32 = np.uint64(32)

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S27 = np.uint64(27)
_S30 = np.uint64(30)
_S31 = np.uint64(31)


@njit(cache=True, nogil=True, inline="always")
def bit_index(bit: np.uint64) -> int:
    """Index of a single set bit (the bit below it, all ones, counted)."""
    return popcount(bit - _ONE)


@njit(cache=True, nogil=True, inline="always")
def _up(bb: np.uint64, k: np.uint64, inv: np.uint64, wrap: bool) -> np.uint64:
    if wrap:
        return (bb << k) | (bb >> inv)
    return bb << k


@njit(cache=True, nogil=True, inline="always")
def _down(bb: np.uint64, k: np.uint64, inv: np.uint64, wrap: bool) -> np.uint64:
    if wrap:
        return (bb >> k) | (bb << inv)
    return bb >> k


@njit(cache=True, nogil=True, inline="always")
def advance(bb: np.uint64, mover: int, d: int, wrap: bool) -> np.uint64:
    """Every pawn of ``bb`` stepped one square diagonally forward for ``mover``.

    ``mover`` 0 is black (forward = up), 1 is red (down); ``d`` 0 is towards
    x + 1, 1 towards x - 1. Pawns that would leave the board in x vanish.
    """
    if d == 0:
        bb = bb & _NOT_FILE8
        if mover == 0:
            return _up(bb, _NINE, _FIFTY_FIVE, wrap)
        return _down(bb, _SEVEN, _FIFTY_SEVEN, wrap)
    bb = bb & _NOT_FILE1
    if mover == 0:
        return _up(bb, _SEVEN, _FIFTY_SEVEN, wrap)
    return _down(bb, _NINE, _FIFTY_FIVE, wrap)


@njit(cache=True, nogil=True, inline="always")
def retreat(bb: np.uint64, mover: int, d: int, wrap: bool) -> np.uint64:
    """The inverse of :func:`advance` for squares reached by it (no file masking needed)."""
    if d == 0:
        if mover == 0:
            return _down(bb, _NINE, _FIFTY_FIVE, wrap)
        return _up(bb, _SEVEN, _FIFTY_SEVEN, wrap)
    if mover == 0:
        return _down(bb, _SEVEN, _FIFTY_SEVEN, wrap)
    return _up(bb, _NINE, _FIFTY_FIVE, wrap)


@njit(cache=True, nogil=True, inline="always")
def jump_targets(own: np.uint64, opp: np.uint64, mover: int, d: int, wrap: bool) -> np.uint64:
    """Landing squares of the mover's jumps in direction ``d``: over an opponent, onto empty."""
    empty = ~(own | opp)
    return advance(advance(own, mover, d, wrap) & opp, mover, d, wrap) & empty


@njit(cache=True, nogil=True, inline="always")
def step_targets(own: np.uint64, opp: np.uint64, mover: int, d: int, wrap: bool) -> np.uint64:
    """Target squares of the mover's plain steps in direction ``d`` (onto empty squares)."""
    return advance(own, mover, d, wrap) & ~(own | opp)


@njit(cache=True, nogil=True)
def legal_moves(black: np.uint64, red: np.uint64, mover: int, wrap: bool) -> np.ndarray:
    """Legal moves of the role with control: rows (kind, from square, to square).

    Jumps when any exists (they are compulsory), else steps. Squares are bit
    indexes. An empty array means the mover is blocked (a terminal state).
    """
    own = black if mover == 0 else red
    opp = red if mover == 0 else black
    out = np.empty((48, 3), dtype=np.int64)
    n = 0
    for d in range(2):
        targets = jump_targets(own, opp, mover, d, wrap)
        while targets:
            to = targets & (~targets + _ONE)
            targets ^= to
            frm = retreat(retreat(to, mover, d, wrap), mover, d, wrap)
            out[n, 0] = KIND_JUMP
            out[n, 1] = bit_index(frm)
            out[n, 2] = bit_index(to)
            n += 1
    if n == 0:
        for d in range(2):
            targets = step_targets(own, opp, mover, d, wrap)
            while targets:
                to = targets & (~targets + _ONE)
                targets ^= to
                frm = retreat(to, mover, d, wrap)
                out[n, 0] = KIND_MOVE
                out[n, 1] = bit_index(frm)
                out[n, 2] = bit_index(to)
                n += 1
    return out[:n].copy()


@njit(cache=True, nogil=True)
def next_state(
    black: np.uint64,
    red: np.uint64,
    black_captures: int,
    red_captures: int,
    step: int,
    control: int,
    kind: int,
    frm: int,
    to: int,
    wrap: bool,
) -> tuple[np.uint64, np.uint64, int, int, int, int]:
    """The state after the role with control plays (kind, from, to), known to be legal."""
    from_bit = _ONE << np.uint64(frm)
    to_bit = _ONE << np.uint64(to)
    own = black if control == 0 else red
    opp = red if control == 0 else black
    own ^= from_bit | to_bit
    if kind == KIND_JUMP:
        # The jumped pawn is the one square back from the landing square.
        d = 0 if advance(advance(from_bit, control, 0, wrap), control, 0, wrap) == to_bit else 1
        opp ^= retreat(to_bit, control, d, wrap)
        if control == 0:
            black_captures += 1
        else:
            red_captures += 1
    if control == 0:
        return own, opp, black_captures, red_captures, step + 1, 1
    return opp, own, black_captures, red_captures, step + 1, 0


@njit(cache=True, nogil=True)
def seed_state(seed: np.uint64) -> np.uint64:
    """A non-zero generator state from any seed (the splitmix64 finaliser), so that
    neighbouring seeds give unrelated playouts."""
    z = seed + _GOLDEN
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return (z ^ (z >> _S31)) | _ONE


@njit(cache=True, nogil=True, inline="always")
def _draw(rng: np.uint64, n: int) -> tuple[np.uint64, int]:
    """The next xorshift64 state and a number in [0, n) from its high 32 bits
    (multiply-shift; bias below 2**-26), as an int64."""
    rng ^= rng << _S13
    rng ^= rng >> _SEVEN
    rng ^= rng << _S17
    return rng, int(np.int64(((rng >> _S32) * np.uint64(n)) >> _S32))


@njit(cache=True, nogil=True, inline="always")
def _random_turn(
    own: np.uint64, opp: np.uint64, mover: int, wrap: bool, rng: np.uint64
) -> tuple[bool, np.uint64, np.uint64, int, np.uint64]:
    """One uniformly random move of ``mover``, whose pawns are ``own``: (moved, own, opp,
    pawns captured, rng); ``moved`` is False when the mover is blocked.

    Jumps when there is one (compulsory), else steps; the two directions' target boards
    are counted and one index drawn over their sum, an int64 so that the comparisons
    stay in integers.
    """
    t0 = jump_targets(own, opp, mover, 0, wrap)
    t1 = jump_targets(own, opp, mover, 1, wrap)
    jumping = (t0 | t1) != _ZERO
    if not jumping:
        t0 = step_targets(own, opp, mover, 0, wrap)
        t1 = step_targets(own, opp, mover, 1, wrap)
    n0 = popcount(t0)
    n = n0 + popcount(t1)
    if n == 0:
        return False, own, opp, 0, rng
    rng, k = _draw(rng, n)
    if k < n0:
        d = 0
        to = nth_bit(t0, k)
    else:
        d = 1
        to = nth_bit(t1, k - n0)
    back = retreat(to, mover, d, wrap)
    if jumping:
        return True, own ^ (retreat(back, mover, d, wrap) | to), opp ^ back, 1, rng
    return True, own ^ (back | to), opp, 0, rng


@njit(cache=True, nogil=True, inline="always")
def _playout_turns(
    black: np.uint64,
    red: np.uint64,
    black_captures: int,
    red_captures: int,
    step: int,
    control: int,
    wrap: bool,
    rng: np.uint64,
) -> tuple[np.uint64, np.uint64, int, int, int, int, int, np.uint64]:
    """:func:`playout`'s loop, inlined with ``wrap`` a constant; each side's turn written
    out with its mover a constant."""
    moves = 0
    while black != _ZERO and red != _ZERO and step < STEP_LIMIT:
        if control == 0:
            moved, black, red, captured, rng = _random_turn(black, red, 0, wrap, rng)
            if not moved:
                break  # the role with control is blocked
            black_captures += captured
        else:
            moved, red, black, captured, rng = _random_turn(red, black, 1, wrap, rng)
            if not moved:
                break
            red_captures += captured
        control ^= 1
        step += 1
        moves += 1
    return black, red, black_captures, red_captures, step, control, moves, rng


@njit(cache=True, nogil=True)
def _playout_flat(
    black: np.uint64, red: np.uint64, bc: int, rc: int, step: int, control: int, rng: np.uint64
) -> tuple[np.uint64, np.uint64, int, int, int, int, int, np.uint64]:
    return _playout_turns(black, red, bc, rc, step, control, False, rng)


@njit(cache=True, nogil=True)
def _playout_barrel(
    black: np.uint64, red: np.uint64, bc: int, rc: int, step: int, control: int, rng: np.uint64
) -> tuple[np.uint64, np.uint64, int, int, int, int, int, np.uint64]:
    return _playout_turns(black, red, bc, rc, step, control, True, rng)


@njit(cache=True, nogil=True)
def playout(
    black: np.uint64,
    red: np.uint64,
    black_captures: int,
    red_captures: int,
    step: int,
    control: int,
    wrap: bool,
    rng: np.uint64,
) -> tuple[np.uint64, np.uint64, int, int, int, int, int, np.uint64]:
    """One uniformly random playout to the end, from an xorshift64 state ``rng`` (not 0).

    Returns the terminal state (black, red, black captures, red captures, step,
    control), the number of joint moves played and the new rng state.
    """
    if wrap:
        return _playout_barrel(black, red, black_captures, red_captures, step, control, rng)
    return _playout_flat(black, red, black_captures, red_captures, step, control, rng)


@njit(cache=True, nogil=True)
def playouts(
    black: np.uint64,
    red: np.uint64,
    black_captures: int,
    red_captures: int,
    step: int,
    control: int,
    wrap: bool,
    count: int,
    seed: np.uint64,
) -> tuple[int, int, int]:
    """``count`` random playouts: (total joint moves, sum of black goals, sum of red goals)."""
    rng = seed_state(seed)
    total_moves = 0
    black_sum = 0
    red_sum = 0
    for _ in range(count):
        _, _, bc, rc, _, _, moves, rng = playout(
            black, red, black_captures, red_captures, step, control, wrap, rng
        )
        total_moves += moves
        black_sum += GOAL_TABLE[bc]
        red_sum += GOAL_TABLE[rc]
    return total_moves, black_sum, red_sum


@njit(cache=True, nogil=True)
def perft(black: np.uint64, red: np.uint64, step: int, control: int, depth: int, wrap: bool) -> int:
    """Number of move sequences of length ``depth`` (terminal states have no moves)."""
    if depth == 0:
        return 1
    if black == _ZERO or red == _ZERO or step >= STEP_LIMIT:
        return 0
    moves = legal_moves(black, red, control, wrap)
    if depth == 1:
        return int(moves.shape[0])
    total = 0
    for i in range(moves.shape[0]):
        b, r, _, _, s, c = next_state(
            black, red, 0, 0, step, control, moves[i, 0], moves[i, 1], moves[i, 2], wrap
        )
        total += perft(b, r, s, c, depth - 1, wrap)
    return total
