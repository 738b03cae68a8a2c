"""Many peg solitaire games stepped at once on the native bitboard (``Game.batch_stepper``).

Each game is one board number, as in :mod:`ggpkit.games.peg.kernels`; :func:`advance`
plays one jump in every game in one compiled call, restarting the games that end,
and writes the arrays in the twin's vocabulary (``propositions()``), so the vector
environment sees the same layout whichever engine runs underneath.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from ggpkit.games.api import GameError
from ggpkit.games.native.batch import ERR_ILLEGAL, ERR_NOT_ONLY, NativeStepper
from ggpkit.games.peg import kernels as k
from ggpkit.gdl.terms import Func

KIND_PEG, KIND_EMPTY, KIND_COUNT = 0, 1, 2
"""What a base fact reads: a peg in a hole, an empty hole, the number of pegs."""


@njit(cache=True, nogil=True)
def _is_legal(board, jump):  # type: ignore[no-untyped-def]
    src, mid, dst = k.JUMP_SRC[jump], k.JUMP_MID[jump], k.JUMP_DST[jump]
    return (board >> src) & 1 and (board >> mid) & 1 and not (board >> dst) & 1


@njit(cache=True, nogil=True)
def check(boards, actions, jump_of, scratch):  # type: ignore[no-untyped-def]
    """0 if every game's action is legal, else an error code (nothing has moved yet)."""
    for m in range(boards.shape[0]):
        a = actions[m, 0]
        if a < 0:
            if k.legal_jumps(boards[m], scratch) != 1:
                return ERR_NOT_ONLY
        elif a >= jump_of.shape[0] or not _is_legal(boards[m], jump_of[a]):
            return ERR_ILLEGAL
    return 0


@njit(cache=True, nogil=True)
def write(m, boards, base_kind, base_arg, move_of, scratch, bits, legal):  # type: ignore[no-untyped-def]
    """Game ``m``'s base bits and legal mask."""
    board = boards[m]
    pegs = k.popcount(board)
    for i in range(base_kind.shape[0]):
        kind, arg = base_kind[i], base_arg[i]
        if kind == KIND_PEG:
            bits[m, i] = (board >> arg) & 1
        elif kind == KIND_EMPTY:
            bits[m, i] = 1 - ((board >> arg) & 1)
        else:
            bits[m, i] = 1 if pegs == arg else 0
    legal[m, :] = 0
    for j in range(k.legal_jumps(board, scratch)):
        legal[m, move_of[scratch[j]]] = 1


@njit(cache=True, nogil=True)
def advance(  # type: ignore[no-untyped-def]
    boards, steps, actions, jump_of, move_of, base_kind, base_arg, max_steps, start, scratch,
    bits, legal, ended, cut, goals, final,
):  # fmt: skip
    """One jump in every game (actions already checked); ended games restart."""
    ended[:] = 0
    cut[:] = 0
    goals[:] = 0
    for m in range(boards.shape[0]):
        a = actions[m, 0]
        if a < 0:
            k.legal_jumps(boards[m], scratch)
            jump = scratch[0]
        else:
            jump = jump_of[a]
        boards[m] = k.apply_jump(boards[m], jump)
        steps[m] += 1
        over = k.legal_jumps(boards[m], scratch) == 0
        if over or steps[m] >= max_steps:
            write(m, boards, base_kind, base_arg, move_of, scratch, final, legal)
            if over:
                ended[m] = 1
                goals[m, 0] = k.goal_of(boards[m])
            else:
                cut[m] = 1
            boards[m], steps[m] = start, 0
        write(m, boards, base_kind, base_arg, move_of, scratch, bits, legal)


class PegStepper(NativeStepper):
    """``count`` peg solitaire games on the native bitboard (a BatchStepper)."""

    def __init__(self, game: Any, count: int, max_steps: int) -> None:
        from ggpkit.games.peg.game import MOVE_INDEX

        props = game.propositions()
        super().__init__(props, count, max_steps)
        moves = props.moves[0]
        self._jump_of = np.array([MOVE_INDEX[m] for m in moves], dtype=np.int64)
        self._move_of = np.full(len(k.JUMPS), -1, dtype=np.int64)
        self._move_of[self._jump_of] = np.arange(len(moves))
        read = [_reads(fact) for fact in props.base]
        self._kind = np.array([kind for kind, _ in read], dtype=np.int64)
        self._arg = np.array([arg for _, arg in read], dtype=np.int64)
        self._boards = np.zeros(count, dtype=np.int64)
        self._scratch = np.zeros(len(k.JUMPS), dtype=np.int64)

    def _restart_all(self) -> None:
        self._boards[:] = k.START
        for m in range(self.count):
            write(m, self._boards, self._kind, self._arg, self._move_of, self._scratch,
                  self._out.bits, self._out.legal)  # fmt: skip

    def _check(self, actions: npt.NDArray[np.int64]) -> int:
        return int(check(self._boards, actions, self._jump_of, self._scratch))

    def _advance(self, actions: npt.NDArray[np.int64]) -> None:
        out = self._out
        advance(
            self._boards, self._steps, actions, self._jump_of, self._move_of, self._kind,
            self._arg, self.max_steps, k.START, self._scratch, out.bits, out.legal, out.ended,
            out.cut, out.goals, out.final,
        )  # fmt: skip


def _reads(fact: Any) -> tuple[int, int]:
    """(kind, argument) of a base fact: ``(hole R C peg|empty)`` (bit) or ``(pegs sN)`` (N)."""
    if isinstance(fact, Func) and fact.name == "hole" and len(fact.args) == 3:
        row, col, what = (str(a) for a in fact.args)
        bit = k.ROWS.index(row) * k.WIDTH + k.COLUMNS.index(col)
        return (KIND_PEG if what == "peg" else KIND_EMPTY), bit
    if isinstance(fact, Func) and fact.name == "pegs" and len(fact.args) == 1:
        return KIND_COUNT, int(str(fact.args[0])[1:])
    raise GameError(f"{fact} is no peg solitaire fact")
