"""Compiled (numba) alpha-beta for native pawn checkers and its barrel variant.

The generic alpha-beta of :mod:`ggpkit.agents.alphabeta` goes through the game API
and terms, which limits it to a few thousand nodes a second: too shallow to
out-capture MCTS, whose playouts are compiled. This module searches the bitboard
state directly with the move kernels of :mod:`ggpkit.games.checkers.kernels`
(never a second copy of the rules): negamax with principal-variation windows,
iterative deepening, a Zobrist-hashed transposition table in numpy arrays,
killer and history move ordering, and quiescence on jumps (they are compulsory,
so a pending jump is always searched past the horizon, without standing pat).

Scores are integers in thousandths of a goal point, from the mover's view: the
goal difference decides the match (each side is scored by its own captures), so
it is the main term, and terminal values are shaded by the ply exactly like the
generic search (``diff +- (0.5 - ply / 1000)``), which lets the tests compare the
two searches' values exactly. Evaluation mode 0 is that goal difference alone
(for those tests); mode 1 adds threats and safe mobility.

Numba cannot read the clock cheaply, so the time limit is kept with a node
budget per iteration, computed in Python from the measured nodes per second;
when the budget runs out the iteration is abandoned and the previous depth's
move is kept.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from numba import njit

from ggpkit.games.checkers import kernels
from ggpkit.games.checkers.game import CheckersState
from ggpkit.games.native.bits import popcount

STEP_LIMIT = kernels.STEP_LIMIT
GOALS = kernels.GOAL_TABLE
MAX_PLY = 160
INF = 1_000_000_000
SCALE = 1000
"""Score units per goal point."""

MODE_GOALS = 0
"""Evaluation: goal difference only, no quiescence (the generic search with a bare evaluation)."""
MODE_FULL = 1
"""Evaluation: goal difference, threats and safe mobility, with quiescence on jumps."""

_TT_BITS = 20
_TT_SIZE = 1 << _TT_BITS
_EXACT, _LOWER, _UPPER = 0, 1, 2

_ZERO = np.uint64(0)
_ONE = np.uint64(1)
_NOT_FILE1 = np.uint64(0xFEFEFEFEFEFEFEFE)
_NOT_FILE8 = np.uint64(0x7F7F7F7F7F7F7F7F)

# Zobrist keys: pawns (2 x 64), captures (2 x 13), step (STEP_LIMIT + 1), side to move.
_Z_PAWN = 0
_Z_CAPS = 128
_Z_STEP = _Z_CAPS + 26
_Z_SIDE = _Z_STEP + STEP_LIMIT + 1
_ZOBRIST = np.random.default_rng(20261122).integers(
    0, np.iinfo(np.uint64).max, size=_Z_SIDE + 1, dtype=np.uint64, endpoint=True
)

# Stats slots.
_NODES, _BUDGET, _ABORTED = 0, 1, 2


@njit(cache=True, nogil=True)
def zobrist(
    black: np.uint64,
    red: np.uint64,
    bc: int,
    rc: int,
    step: int,
    control: int,
    zob: np.ndarray,
) -> np.uint64:
    """The position's hash key from scratch (the search updates it move by move)."""
    key = _ZERO
    for side in range(2):
        bb = black if side == 0 else red
        while bb:
            low = bb & (~bb + _ONE)
            bb ^= low
            key ^= zob[_Z_PAWN + side * 64 + kernels.bit_index(low)]
    key ^= zob[_Z_CAPS + bc] ^ zob[_Z_CAPS + 13 + rc] ^ zob[_Z_STEP + step]
    if control == 1:
        key ^= zob[_Z_SIDE]
    return np.uint64(key)


@njit(cache=True, nogil=True, inline="always")
def _behind(bb: np.uint64, mover: int, d: int, wrap: bool) -> np.uint64:
    """Squares X with ``advance(X, mover, d)`` in ``bb`` (retreat with the file kept honest)."""
    back = kernels.retreat(bb, mover, d, wrap)
    return back & (_NOT_FILE8 if d == 0 else _NOT_FILE1)


@njit(cache=True, nogil=True)
def _generate(
    own: np.uint64, opp: np.uint64, mover: int, wrap: bool, buf: np.ndarray, ply: int
) -> tuple[int, bool]:
    """The mover's legal moves into ``buf[ply]`` as rows (from, to, direction); jumps if any."""
    n = 0
    for d in range(2):
        targets = kernels.jump_targets(own, opp, mover, d, wrap)
        while targets:
            to = targets & (~targets + _ONE)
            targets ^= to
            frm = kernels.retreat(kernels.retreat(to, mover, d, wrap), mover, d, wrap)
            buf[ply, n, 0] = kernels.bit_index(frm)
            buf[ply, n, 1] = kernels.bit_index(to)
            buf[ply, n, 2] = d
            n += 1
    if n > 0:
        return n, True
    for d in range(2):
        targets = kernels.step_targets(own, opp, mover, d, wrap)
        while targets:
            to = targets & (~targets + _ONE)
            targets ^= to
            frm = kernels.retreat(to, mover, d, wrap)
            buf[ply, n, 0] = kernels.bit_index(frm)
            buf[ply, n, 1] = kernels.bit_index(to)
            buf[ply, n, 2] = d
            n += 1
    return n, False


@njit(cache=True, nogil=True, inline="always")
def _terminal(own_caps: int, opp_caps: int, ply: int) -> int:
    """Exact value for the mover: goal difference, shaded so that faster wins come first."""
    diff = int(GOALS[own_caps] - GOALS[opp_caps]) * SCALE
    shade = 500 - min(ply, 400)
    if diff > 0:
        return diff + shade
    if diff < 0:
        return diff - shade
    return 0


@njit(cache=True, nogil=True)
def _attacked(own: np.uint64, opp: np.uint64, opp_mover: int, wrap: bool) -> np.uint64:
    """Squares of ``own`` pawns (or empty squares) the opponent could jump into next turn.

    A square X is attacked when an opponent pawn stands diagonally behind it (as
    the opponent moves) and the square diagonally beyond it is empty.
    """
    empty = ~(own | opp)
    att = _ZERO
    for d in range(2):
        att |= kernels.advance(opp, opp_mover, d, wrap) & _behind(empty, opp_mover, d, wrap)
    return att


@njit(cache=True, nogil=True)
def evaluate(
    own: np.uint64, opp: np.uint64, own_caps: int, opp_caps: int, mover: int, wrap: bool, mode: int
) -> int:
    """Static value of a quiet position (the mover has no jump) for the mover."""
    score = int(GOALS[own_caps] - GOALS[opp_caps]) * SCALE
    if mode == MODE_GOALS:
        return score
    other = 1 - mover
    # Pawns the opponent threatens: the mover can parry one, rarely two.
    hanging = popcount(own & _attacked(own, opp, other, wrap))
    if hanging == 1:
        score -= 1500
    elif hanging >= 2:
        score -= 5000
    # Safe steps: onto squares the other side cannot jump next turn.
    my_safe = 0
    their_safe = 0
    my_danger = _attacked(own, opp, other, wrap)
    their_danger = _attacked(opp, own, mover, wrap)
    for d in range(2):
        my_safe += popcount(kernels.step_targets(own, opp, mover, d, wrap) & ~my_danger)
        their_safe += popcount(kernels.step_targets(opp, own, other, d, wrap) & ~their_danger)
    score += 250 * (min(my_safe, 8) - min(their_safe, 8))
    # Out of safe moves: the mover has to give a pawn away (the tempo fight of no-king checkers).
    if my_safe == 0:
        score -= 3000
    return score


@njit(cache=True, nogil=True)
def _search(
    black: np.uint64,
    red: np.uint64,
    bc: int,
    rc: int,
    step: int,
    control: int,
    key: np.uint64,
    depth: int,
    alpha: int,
    beta: int,
    ply: int,
    wrap: bool,
    mode: int,
    zob: np.ndarray,
    tt_key: np.ndarray,
    tt_val: np.ndarray,
    tt_depth: np.ndarray,
    tt_flag: np.ndarray,
    tt_move: np.ndarray,
    killers: np.ndarray,
    history: np.ndarray,
    buf: np.ndarray,
    scores: np.ndarray,
    stats: np.ndarray,
) -> int:
    """Negamax value of the state for the role with control (``control``)."""
    stats[_NODES] += 1
    if stats[_NODES] > stats[_BUDGET]:
        stats[_ABORTED] = 1
        return 0
    own = black if control == 0 else red
    opp = red if control == 0 else black
    own_caps = bc if control == 0 else rc
    opp_caps = rc if control == 0 else bc
    if own == _ZERO or opp == _ZERO or step >= STEP_LIMIT or ply >= MAX_PLY - 1:
        return _terminal(own_caps, opp_caps, ply)
    n, jumping = _generate(own, opp, control, wrap, buf, ply)
    if n == 0:
        return _terminal(own_caps, opp_caps, ply)
    if depth <= 0 and (not jumping or mode == MODE_GOALS):
        return evaluate(own, opp, own_caps, opp_caps, control, wrap, mode)
    if depth < 0:
        depth = 0  # quiescence: the compulsory jumps, searched without a horizon

    slot = int(key & np.uint64(_TT_SIZE - 1))
    tt_best = -1
    if tt_key[slot] == key:
        tt_best = tt_move[slot]
        if tt_depth[slot] >= depth:
            v = int(tt_val[slot])
            f = tt_flag[slot]
            if f == _EXACT or (f == _LOWER and v >= beta) or (f == _UPPER and v <= alpha):
                return v

    # Order: TT move, then (jumps are all alike) killers, then history.
    for i in range(n):
        frm = buf[ply, i, 0]
        to = buf[ply, i, 1]
        code = frm * 64 + to
        if code == tt_best:
            s = 1 << 40
        elif code == killers[ply, 0]:
            s = 1 << 38
        elif code == killers[ply, 1]:
            s = 1 << 37
        else:
            s = history[control, frm, to]
        scores[ply, i] = s

    alpha0 = alpha
    best = -INF
    best_code = -1
    kid_control = 1 - control
    for i in range(n):
        # selection sort: the best remaining move to position i
        top = i
        for j in range(i + 1, n):
            if scores[ply, j] > scores[ply, top]:
                top = j
        if top != i:
            for c in range(3):
                tmp = buf[ply, i, c]
                buf[ply, i, c] = buf[ply, top, c]
                buf[ply, top, c] = tmp
            tmp_s = scores[ply, i]
            scores[ply, i] = scores[ply, top]
            scores[ply, top] = tmp_s
        frm = buf[ply, i, 0]
        to = buf[ply, i, 1]
        d = buf[ply, i, 2]
        from_bit = _ONE << np.uint64(frm)
        to_bit = _ONE << np.uint64(to)
        new_own = own ^ (from_bit | to_bit)
        new_opp = opp
        kid_key = key ^ zob[_Z_PAWN + control * 64 + frm] ^ zob[_Z_PAWN + control * 64 + to]
        kid_key ^= zob[_Z_STEP + step] ^ zob[_Z_STEP + step + 1] ^ zob[_Z_SIDE]
        nbc = bc
        nrc = rc
        if jumping:
            jumped = kernels.retreat(to_bit, control, d, wrap)
            new_opp = opp ^ jumped
            kid_key ^= zob[_Z_PAWN + kid_control * 64 + kernels.bit_index(jumped)]
            if control == 0:
                kid_key ^= zob[_Z_CAPS + bc] ^ zob[_Z_CAPS + bc + 1]
                nbc = bc + 1
            else:
                kid_key ^= zob[_Z_CAPS + 13 + rc] ^ zob[_Z_CAPS + 13 + rc + 1]
                nrc = rc + 1
        nb = new_own if control == 0 else new_opp
        nr = new_opp if control == 0 else new_own
        if i == 0:
            value = -_search(
                nb, nr, nbc, nrc, step + 1, kid_control, kid_key, depth - 1, -beta, -alpha,
                ply + 1, wrap, mode, zob, tt_key, tt_val, tt_depth, tt_flag, tt_move,
                killers, history, buf, scores, stats,
            )  # fmt: skip
        else:
            value = -_search(
                nb, nr, nbc, nrc, step + 1, kid_control, kid_key, depth - 1, -alpha - 1,
                -alpha, ply + 1, wrap, mode, zob, tt_key, tt_val, tt_depth, tt_flag, tt_move,
                killers, history, buf, scores, stats,
            )  # fmt: skip
            if alpha < value < beta and stats[_ABORTED] == 0:
                value = -_search(
                    nb, nr, nbc, nrc, step + 1, kid_control, kid_key, depth - 1, -beta,
                    -alpha, ply + 1, wrap, mode, zob, tt_key, tt_val, tt_depth, tt_flag,
                    tt_move, killers, history, buf, scores, stats,
                )  # fmt: skip
        if stats[_ABORTED]:
            return 0
        if value > best:
            best = value
            best_code = frm * 64 + to
            if value > alpha:
                alpha = value
                if alpha >= beta:
                    if not jumping:
                        if killers[ply, 0] != best_code:
                            killers[ply, 1] = killers[ply, 0]
                            killers[ply, 0] = best_code
                        history[control, frm, to] += depth * depth
                    break
    flag = _UPPER if best <= alpha0 else (_LOWER if best >= beta else _EXACT)
    if tt_key[slot] != key or tt_depth[slot] <= depth:
        tt_key[slot] = key
        tt_val[slot] = best
        tt_depth[slot] = depth
        tt_flag[slot] = flag
        tt_move[slot] = best_code
    return best


@njit(cache=True, nogil=True)
def search_root(
    black: np.uint64,
    red: np.uint64,
    bc: int,
    rc: int,
    step: int,
    control: int,
    depth: int,
    alpha: int,
    beta: int,
    ply: int,
    wrap: bool,
    mode: int,
    zob: np.ndarray,
    tt_key: np.ndarray,
    tt_val: np.ndarray,
    tt_depth: np.ndarray,
    tt_flag: np.ndarray,
    tt_move: np.ndarray,
    killers: np.ndarray,
    history: np.ndarray,
    buf: np.ndarray,
    scores: np.ndarray,
    stats: np.ndarray,
) -> tuple[int, int, int]:
    """One iteration at ``depth``: (value for the mover, from square, to square).

    The best move is read back from the transposition table slot of the root;
    the caller checks ``stats`` for an abandoned iteration. ``alpha``, ``beta``
    and ``ply`` (-INF, INF, 0) come from Python on purpose: constants here would
    compile a second, literal-typed overload of the recursive search, and numba's
    cache reloads such a pair wrongly (a segmentation fault).
    """
    key = zobrist(black, red, bc, rc, step, control, zob)
    value = _search(
        black, red, bc, rc, step, control, key, depth, alpha, beta, ply, wrap, mode, zob,
        tt_key, tt_val, tt_depth, tt_flag, tt_move, killers, history, buf, scores, stats,
    )  # fmt: skip
    slot = int(key & np.uint64(_TT_SIZE - 1))
    code = tt_move[slot] if tt_key[slot] == key else -1
    if code < 0:
        return value, -1, -1
    return value, code // 64, code % 64


@dataclass
class SearchResult:
    """What one :meth:`CheckersSearch.search` found."""

    frm: int
    """From square (bit index), or -1 when no iteration finished (then any legal move)."""
    to: int
    value: int
    """Value for the mover in thousandths of a goal point."""
    depth: int
    nodes: int


class CheckersSearch:
    """The tables of one player (kept across the moves of a match) and the deepening loop."""

    def __init__(self, wrap: bool, mode: int = MODE_FULL) -> None:
        self.wrap = wrap
        self.mode = mode
        self.tt_key = np.zeros(_TT_SIZE, dtype=np.uint64)
        self.tt_val = np.zeros(_TT_SIZE, dtype=np.int64)
        self.tt_depth = np.full(_TT_SIZE, -1, dtype=np.int16)
        self.tt_flag = np.zeros(_TT_SIZE, dtype=np.int8)
        self.tt_move = np.full(_TT_SIZE, -1, dtype=np.int16)
        self.killers = np.full((MAX_PLY, 2), -1, dtype=np.int16)
        self.history = np.zeros((2, 64, 64), dtype=np.int64)
        self.buf = np.zeros((MAX_PLY, 48, 3), dtype=np.int64)
        self.scores = np.zeros((MAX_PLY, 48), dtype=np.int64)
        self.nps = 300_000.0
        """Measured nodes per second, refined after each iteration (the time budget)."""

    def clear(self) -> None:
        """Forget every stored position (positions then searched from scratch)."""
        self.tt_key[:] = 0
        self.tt_depth[:] = -1
        self.tt_move[:] = -1
        self.killers[:] = -1
        self.history[:] = 0

    def _iteration(
        self, state: CheckersState, depth: int, budget: int
    ) -> tuple[int, int, int, int, bool]:
        stats = np.array([0, budget, 0], dtype=np.int64)
        self.killers[:] = -1
        value, frm, to = search_root(
            np.uint64(state.black), np.uint64(state.red), state.black_captures,
            state.red_captures, state.step, state.control, depth, -INF, INF, 0,
            self.wrap, self.mode,
            _ZOBRIST, self.tt_key, self.tt_val, self.tt_depth, self.tt_flag, self.tt_move,
            self.killers, self.history, self.buf, self.scores, stats,
        )  # fmt: skip
        return int(value), int(frm), int(to), int(stats[_NODES]), bool(stats[_ABORTED])

    def search(
        self, state: CheckersState, seconds: float | None, max_depth: int | None = None
    ) -> SearchResult:
        """Deepen until the time (wall clock from now) or depth limit; the last full depth wins."""
        started = time.perf_counter()
        deadline = None if seconds is None else started + seconds
        limit = max_depth if max_depth is not None else STEP_LIMIT + 30
        self.history //= 8  # old history still orders well, but should not dominate
        result = SearchResult(-1, -1, 0, 0, 0)
        total_nodes = 0
        depth = 1
        while depth <= limit:
            now = time.perf_counter()
            if deadline is None:
                budget = 1 << 62
            else:
                budget = int((deadline - now) * self.nps)
                if budget < 1000 and result.depth > 0:
                    break
                budget = max(budget, 1000)
            value, frm, to, nodes, aborted = self._iteration(state, depth, budget)
            elapsed = time.perf_counter() - now
            total_nodes += nodes
            if elapsed > 0.01 and nodes > 0:
                self.nps = 0.5 * self.nps + 0.5 * nodes / elapsed
            if aborted:
                if deadline is not None and time.perf_counter() < deadline - 0.01:
                    continue  # the node rate was underestimated: same depth, new budget
                break
            result = SearchResult(frm, to, value, depth, total_nodes)
            if frm < 0 or depth >= STEP_LIMIT - state.step:
                break  # the whole game is inside the horizon: deeper search changes nothing
            if deadline is not None and time.perf_counter() + 1.5 * elapsed > deadline:
                break  # the next depth would not finish
            depth += 1
        result.nodes = total_nodes
        return result
