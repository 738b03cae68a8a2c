"""Many breakthrough matches stepped at once on the native bitboards (``Game.batch_stepper``).

Each match is three numbers (white and black bitboards, the side in control), as in
:mod:`ggpkit.games.breakthrough.kernels`; :func:`step_all` plays one joint move in
every match in one compiled call, restarting the matches that end, and writes the
arrays of :class:`~ggpkit.reasoning.base.BatchStep` in the twin's vocabulary
(``propositions()``: base facts and moves sorted by text), so the vector environment
sees the same layout whichever engine runs underneath.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from ggpkit.games.api import GameError
from ggpkit.games.breakthrough import kernels as k
from ggpkit.games.native.batch import ERR_ILLEGAL, ERR_NOT_ONLY, NativeStepper
from ggpkit.gdl.terms import Func

KIND_WHITE, KIND_BLACK, KIND_ON, KIND_CONTROL0, KIND_CONTROL1 = 0, 1, 2, 3, 4
"""What a base fact reads: a white piece, a black piece, always true (holes), whose turn."""


@njit(cache=True, nogil=True)
def _legal_bits(white, black, control, capture):  # type: ignore[no-untyped-def]
    """(straight, x-1, x+1) destination boards of the side to move."""
    return k.destinations(np.uint64(white), np.uint64(black), control, capture)


@njit(cache=True, nogil=True)
def _is_legal(white, black, control, capture, src, dst):  # type: ignore[no-untyped-def]
    boards = _legal_bits(white, black, control, capture)
    d = np.uint64(1) << np.uint64(dst)
    for kind in range(3):
        if boards[kind] & d and k.source_of(d, kind, control) == np.uint64(1) << np.uint64(src):
            return True
    return False


@njit(cache=True, nogil=True)
def _check(white, black, control, actions, src_of, dst_of, noop, capture):  # type: ignore[no-untyped-def]
    """0 if every match's actions are legal, else an error code (nothing has moved yet)."""
    for m in range(white.shape[0]):
        c = control[m]
        other = actions[m, 1 - c]
        if other >= 0 and other != noop[1 - c]:
            return ERR_ILLEGAL
        a = actions[m, c]
        if a < 0:
            if k.count_moves(np.uint64(white[m]), np.uint64(black[m]), c, capture) != 1:
                return ERR_NOT_ONLY
        elif src_of[c, a] < 0 or not _is_legal(
            white[m], black[m], c, capture, src_of[c, a], dst_of[c, a]
        ):
            return ERR_ILLEGAL
    return 0


@njit(cache=True, nogil=True)
def _only_move(white, black, control, capture):  # type: ignore[no-untyped-def]
    boards = _legal_bits(white, black, control, capture)
    for kind in range(3):
        if boards[kind]:
            d = boards[kind] & (~boards[kind] + np.uint64(1))
            return k.source_of(d, kind, control), d
    return np.uint64(0), np.uint64(0)


@njit(cache=True, nogil=True)
def _write(  # type: ignore[no-untyped-def]
    m, white, black, control, base_kind, base_cell, move_index, noop, offsets, capture, bits, legal
):
    """Match ``m``'s base bits and legal mask."""
    w, b, c = white[m], black[m], control[m]
    for i in range(base_kind.shape[0]):
        kind = base_kind[i]
        cell = np.uint64(1) << np.uint64(base_cell[i])
        if kind == KIND_WHITE:
            bits[m, i] = 1 if np.uint64(w) & cell else 0
        elif kind == KIND_BLACK:
            bits[m, i] = 1 if np.uint64(b) & cell else 0
        elif kind == KIND_ON:
            bits[m, i] = 1
        else:
            bits[m, i] = 1 if c == kind - KIND_CONTROL0 else 0
    legal[m, :] = 0
    legal[m, offsets[1 - c] + noop[1 - c]] = 1
    boards = _legal_bits(w, b, c, capture)
    for kind in range(3):
        rest = boards[kind]
        while rest:
            d = rest & (~rest + np.uint64(1))
            rest ^= d
            s = k.source_of(d, kind, c)
            src, dst = k._bit_index(s), k._bit_index(d)
            legal[m, offsets[c] + move_index[c, src * 36 + dst]] = 1


@njit(cache=True, nogil=True)
def step_all(  # type: ignore[no-untyped-def]
    white, black, control, steps, actions, src_of, dst_of, move_index, noop, offsets,
    base_kind, base_cell, capture, max_steps, start, bits, legal, ended, cut, goals, final,
):  # fmt: skip
    """One joint move in every match (actions already checked); ended matches restart."""
    ended[:] = 0
    cut[:] = 0
    goals[:] = 0
    for m in range(white.shape[0]):
        c = control[m]
        a = actions[m, c]
        if a < 0:
            s, d = _only_move(white[m], black[m], c, capture)
        else:
            s = np.uint64(1) << np.uint64(src_of[c, a])
            d = np.uint64(1) << np.uint64(dst_of[c, a])
        w, b, c2 = k.apply_move(np.uint64(white[m]), np.uint64(black[m]), c, s, d)
        white[m], black[m], control[m] = w, b, c2
        steps[m] += 1
        white_win, black_win = k.wins(w, b, c2, capture)
        if white_win or black_win or steps[m] >= max_steps:
            _write(m, white, black, control, base_kind, base_cell, move_index, noop, offsets,
                   capture, final, legal)  # fmt: skip
            if white_win or black_win:
                ended[m] = 1
                goals[m, 0] = 100 if white_win else 0
                goals[m, 1] = 100 if black_win else 0
            else:
                cut[m] = 1
            white[m], black[m], control[m], steps[m] = start[0], start[1], start[2], 0
        _write(m, white, black, control, base_kind, base_cell, move_index, noop, offsets,
               capture, bits, legal)  # fmt: skip


class BreakthroughStepper(NativeStepper):
    """``count`` matches of a breakthrough game on the native bitboards (a BatchStepper)."""

    def __init__(self, game: Any, count: int, max_steps: int) -> None:
        from ggpkit.games.breakthrough.game import MOVE_CELLS, initial_position

        props = game.propositions()
        super().__init__(props, count, max_steps)
        self.capture = bool(game.capture)
        self._tables(props, MOVE_CELLS)
        start = initial_position()
        self._start = np.array([start.white, start.black, start.control], dtype=np.int64)
        self._white = np.zeros(count, dtype=np.int64)
        self._black = np.zeros(count, dtype=np.int64)
        self._control = np.zeros(count, dtype=np.int64)

    def _tables(self, props: Any, move_cells: dict[Any, tuple[int, int]]) -> None:
        """Move numbers <-> (source, destination) cells, and what each base fact reads."""
        width = max(len(ms) for ms in props.moves)
        self._src = np.full((2, width), -1, dtype=np.int64)
        self._dst = np.full((2, width), -1, dtype=np.int64)
        self._index = np.full((2, 36 * 36), -1, dtype=np.int64)
        self._noop = np.zeros(2, dtype=np.int64)
        self._offsets = np.array([0, len(props.moves[0])], dtype=np.int64)
        for r, moves in enumerate(props.moves):
            for i, move in enumerate(moves):
                if str(move) == "noop":
                    self._noop[r] = i
                    continue
                src, dst = move_cells[move]
                self._src[r, i], self._dst[r, i] = src, dst
                self._index[r, src * 36 + dst] = i
        read = [_reads(fact) for fact in props.base]
        self._kind = np.array([kind for kind, _ in read], dtype=np.int64)
        self._cell = np.array([cell for _, cell in read], dtype=np.int64)

    def _restart_all(self) -> None:
        self._white[:], self._black[:], self._control[:] = self._start
        tables = (self._kind, self._cell, self._index, self._noop, self._offsets, self.capture)
        for m in range(self.count):
            _write(m, self._white, self._black, self._control, *tables, self._out.bits,
                   self._out.legal)  # fmt: skip

    def _check(self, actions: npt.NDArray[np.int64]) -> int:
        return int(_check(self._white, self._black, self._control, actions, self._src,
                          self._dst, self._noop, self.capture))  # fmt: skip

    def _advance(self, actions: npt.NDArray[np.int64]) -> None:
        out = self._out
        step_all(
            self._white, self._black, self._control, self._steps, actions, self._src, self._dst,
            self._index, self._noop, self._offsets, self._kind, self._cell, self.capture,
            self.max_steps, self._start, out.bits, out.legal, out.ended, out.cut, out.goals,
            out.final,
        )  # fmt: skip


def _reads(fact: Any) -> tuple[int, int]:
    """(kind, cell index) of a base fact: ``(cell X Y white|black|hole)`` or ``(control R)``."""
    if isinstance(fact, Func) and fact.name == "cell" and len(fact.args) == 3:
        x, y, what = (str(a) for a in fact.args)
        cell = (int(y) - 1) * 6 + (int(x) - 1)
        kind = {"white": KIND_WHITE, "black": KIND_BLACK, "hole": KIND_ON}[what]
        return kind, cell
    if isinstance(fact, Func) and fact.name == "control" and len(fact.args) == 1:
        return (KIND_CONTROL0 if str(fact.args[0]) == "white" else KIND_CONTROL1), 0
    raise GameError(f"{fact} is no breakthrough fact")
