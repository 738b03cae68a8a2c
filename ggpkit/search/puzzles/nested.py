"""Nested Monte Carlo search (Cazenave 2009) for one-role games on a propnet.

Why: a puzzle is won by one line. UCT spreads its playouts by averages, which suits a
game against an opponent; nested Monte Carlo search instead follows the best line it
has found so far and tries every move along it, each followed by a lower-level
search: level 1 plays one random playout after each move of the current position,
moves on along the best line found and does it again; level n does the same with
level n - 1 searches in place of playouts. It is the usual strongest simple method on
single-player games (Morpion solitaire, SameGame), and its best line only gets better.

Level 1 runs in compiled code (:func:`level_one`, on the tree's own propagation
state); higher levels step through Python, whose cost is small beside the level-1
searches each of their steps runs. A search is bounded by a deadline; it returns the
best line found so far.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from numba import njit

from ggpkit.reasoning.jit import seed_stream
from ggpkit.reasoning.propnet.incremental import lit, load, step
from ggpkit.search.propnet.kernels import random_playout
from ggpkit.search.tree.kernels import STOP_DONE

MAX_LEVEL = 4
"""The highest level tried: a level costs about (moves x plies) / 2 times the one below."""

FIRST_BUDGET = 8
"""Playouts of the first level-1 call, which times the game's playouts (a long game's
playout can take milliseconds: the first call must not eat a play clock)."""


@njit(cache=True, nogil=True)
def legal_moves(net, work, val, bits, out):  # type: ignore[no-untyped-def]
    """Role 0's legal literals in state ``bits`` into ``out``: their number, or -1 if the
    state is terminal."""
    legal_lits, move_start, terminal_lit = net[8], net[10], net[11]
    load(bits, net, work, val)
    if lit(terminal_lit, val) != 0:
        return -1
    n = 0
    for k in range(move_start[0], move_start[1]):
        if lit(legal_lits[k], val) != 0:
            out[n] = k
            n += 1
    return n


@njit(cache=True, nogil=True)
def child(net, work, val, bits, k, out):  # type: ignore[no-untyped-def]
    """The state after role 0 plays legal literal ``k`` in ``bits``, into ``out``."""
    load(bits, net, work, val)
    ks = work[4]
    ks[0] = k
    step(ks, out, net, work, val)


@njit(cache=True, nogil=True)
def level_one(  # type: ignore[no-untyped-def]
    net, work, val, start, rng, max_steps, budget, line, prefix, best, best_line, own_line, moves,
    cur
):  # fmt: skip
    """A level-1 nested search from state ``start``, reached by ``line[:prefix]``.

    After each legal move of the current position one random playout; then one move
    along this search's best line, and again, until the end of the game or ``budget``
    playouts. Lines are whole, from the caller's root (``line[:prefix]`` must lead to
    ``start``): this search's best goes to ``own_line``, and where it beats ``best[0]``
    (a value in 0..1; ``best[1]`` its length) to ``best_line`` too. Returns (rng,
    playouts played, its best line's value or -1 if no playout ended, its length).
    """
    reward = np.zeros(work[4].shape[0], dtype=np.float64)
    played = np.zeros(0, dtype=np.int64)
    no_mast = np.zeros((0, 2), dtype=np.float64)
    cur[:] = start
    ply = prefix
    used = 0
    own = -1.0
    own_len = 0
    while ply < max_steps:
        n = legal_moves(net, work, val, cur, moves)
        if n <= 0:
            break
        for i in range(n):
            if used >= budget:
                return rng, used, own, own_len
            child(net, work, val, cur, moves[i], work[7])
            line[ply] = moves[i]
            code, rng, length, _ = random_playout(
                net, work, val, rng, max_steps - ply - 1, reward, line, ply + 1, True,
                no_mast, played, False,
            )  # fmt: skip
            used += 1
            if code != STOP_DONE or reward[0] <= own:
                continue
            own = reward[0]
            own_len = length
            own_line[:length] = line[:length]
            if own > best[0]:
                best[0] = own
                best[1] = length
                best_line[:length] = line[:length]
        if own_len <= ply:
            break
        line[ply] = own_line[ply]
        child(net, work, val, cur, own_line[ply], cur)
        ply += 1
    return rng, used, own, own_len


@dataclass
class NestedResult:
    """The best line a nested search found: its value (0..1, -1 if none ended) and its
    moves as role 0's legal-literal indices, with the work it took."""

    value: float
    line: tuple[int, ...]
    playouts: int
    level: int


class NestedSearch:
    """Nested Monte Carlo search over one network's propagation state (shared with the
    tree that owns it: one thread at a time)."""

    def __init__(self, net: tuple[object, ...], nb: int, nmoves: int, max_steps: int) -> None:
        self._net = net
        self._work: tuple[object, ...] = ()
        self._val = np.zeros(0, dtype=np.uint8)
        self._max_steps = max_steps
        self._line = np.zeros(max_steps + 1, dtype=np.int64)
        self._best_line = np.zeros(max_steps + 1, dtype=np.int64)
        self._own_line = np.zeros(max_steps + 1, dtype=np.int64)
        self._best = np.array([-1.0, 0.0])
        self._moves = np.zeros(max(1, nmoves), dtype=np.int64)
        self._scratch = np.zeros(nb, dtype=np.uint8)
        self._rng = np.uint64(1)
        self._playouts = 0
        self._rate = 0.0
        """Playouts per second, measured by the first level-1 call."""
        self._deadline = 0.0

    def search(
        self,
        bits: npt.NDArray[np.uint8],
        seconds: float,
        seed: int,
        work: tuple[object, ...],
        val: npt.NDArray[np.uint8],
    ) -> NestedResult:
        """The best line from ``bits`` found within ``seconds``: level 1 first, then one
        level higher whenever its estimated cost fits the time left, again and again.
        ``work`` and ``val`` are the owner's propagation state, consistent with ``val``'s
        state (:func:`~ggpkit.search.propnet.kernels.prepare`)."""
        self._deadline = time.perf_counter() + seconds
        self._work, self._val = work, val
        self._rng = np.uint64(seed_stream(seed, 0))
        self._best[:] = (-1.0, 0.0)
        self._playouts = 0
        level = 1
        best_level = 0
        while True:  # one call at least (a search of no time loads the kernels)
            began, before = time.perf_counter(), self._playouts
            self._nested(level, bits, 0)
            best_level = max(best_level, level)
            took = time.perf_counter() - began
            left = self._deadline - time.perf_counter()
            if self._playouts > before and took > 0 and level < MAX_LEVEL:
                branching = max(2, self._count_moves(bits))
                depth = max(1, int(self._best[1]))
                if took * branching * depth / 2 < left:
                    level += 1
            if left <= 0 or self._best[0] >= 1.0:
                break
        length = int(self._best[1])
        line = tuple(int(k) for k in self._best_line[:length])
        return NestedResult(float(self._best[0]), line, self._playouts, best_level)

    def _count_moves(self, bits: npt.NDArray[np.uint8]) -> int:
        return int(legal_moves(self._net, self._work, self._val, bits, self._moves))

    def _budget(self) -> int:
        """Playouts the time left allows (a first call times them)."""
        if self._rate <= 0:
            return FIRST_BUDGET
        return max(1, int(self._rate * (self._deadline - time.perf_counter())))

    def _nested(
        self, level: int, bits: npt.NDArray[np.uint8], prefix: int
    ) -> tuple[float, npt.NDArray[np.int64]]:
        """A level-``level`` search from ``bits``, reached by ``self._line[:prefix]``: the
        value of its own best line (-1: none ended) and that line, whole from the root."""
        if level == 1:
            return self._level_one(bits, prefix)
        own, own_line = -1.0, self._line[:0].copy()
        cur = bits.copy()
        after = np.empty_like(cur)
        moves = np.zeros_like(self._moves)
        ply = prefix
        while ply < self._max_steps:
            n = int(legal_moves(self._net, self._work, self._val, cur, moves))
            for k in moves[: max(0, n)]:
                if time.perf_counter() >= self._deadline:
                    return own, own_line
                child(self._net, self._work, self._val, cur, k, after)
                self._line[ply] = k
                value, line = self._nested(level - 1, after, ply + 1)
                if value > own:
                    own, own_line = value, line
            if n <= 0 or len(own_line) <= ply:
                break
            self._line[ply] = own_line[ply]
            child(self._net, self._work, self._val, cur, own_line[ply], cur)
            ply += 1
        return own, own_line

    def _level_one(
        self, bits: npt.NDArray[np.uint8], prefix: int
    ) -> tuple[float, npt.NDArray[np.int64]]:
        began = time.perf_counter()
        rng, used, own, length = level_one(
            self._net, self._work, self._val, bits, self._rng, self._max_steps, self._budget(),
            self._line, prefix, self._best, self._best_line, self._own_line, self._moves,
            self._scratch,
        )  # fmt: skip
        self._rng = np.uint64(rng)  # numba hands a uint64 back as a Python int
        self._playouts += int(used)
        if self._rate <= 0 and used > 0:
            self._rate = used / max(1e-6, time.perf_counter() - began)
        return float(own), self._own_line[: int(length)].copy()
