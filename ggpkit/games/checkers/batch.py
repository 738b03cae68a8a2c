"""Many pawn checkers matches stepped at once on the native bitboards (``Game.batch_stepper``).

Each match is six numbers (black and red bitboards, both capture counts, the step
counter, the side in control), as in :mod:`ggpkit.games.checkers.kernels`;
:func:`advance` plays one joint move in every match in one compiled call, restarting
the matches that end, and writes the arrays in the twin's vocabulary
(``propositions()``), so the vector environment sees the same layout whichever engine
runs underneath.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from ggpkit.games.api import GameError
from ggpkit.games.checkers import kernels as k
from ggpkit.games.native.batch import ERR_ILLEGAL, ERR_NOT_ONLY, NativeStepper
from ggpkit.gdl.terms import Func

BLACK, RED, BC, RC, STEP, CONTROL = range(6)
"""Columns of a match's row in the state array."""
READS_CONTROL = 6
"""A base fact's kind beyond the columns: ``(control R)`` reads CONTROL == its argument;
kinds BLACK and RED read a square's bit, BC, RC and STEP compare with the argument."""


@njit(cache=True, nogil=True)
def _moves(s, wrap):  # type: ignore[no-untyped-def]
    return k.legal_moves(np.uint64(s[BLACK]), np.uint64(s[RED]), s[CONTROL], wrap)


@njit(cache=True, nogil=True)
def _over(s, moves):  # type: ignore[no-untyped-def]
    """The match is over (``moves``: the legal moves of the side in control)."""
    return s[BLACK] == 0 or s[RED] == 0 or s[STEP] >= k.STEP_LIMIT or moves.shape[0] == 0


@njit(cache=True, nogil=True)
def check(states, actions, kind_of, src_of, dst_of, noop, wrap):  # type: ignore[no-untyped-def]
    """0 if every match's actions are legal, else an error code (nothing has moved yet)."""
    for m in range(states.shape[0]):
        c = states[m, CONTROL]
        other = actions[m, 1 - c]
        if other >= 0 and other != noop[1 - c]:
            return ERR_ILLEGAL
        legal = _moves(states[m], wrap)
        a = actions[m, c]
        if a < 0:
            if legal.shape[0] != 1:
                return ERR_NOT_ONLY
            continue
        found = False
        for j in range(legal.shape[0]):
            if (legal[j, 0], legal[j, 1], legal[j, 2]) == (
                kind_of[c, a],
                src_of[c, a],
                dst_of[c, a],
            ):
                found = True
        if not found:
            return ERR_ILLEGAL
    return 0


@njit(cache=True, nogil=True)
def write(m, states, moves, base_kind, base_arg, index, noop, offsets, bits, legal):  # type: ignore[no-untyped-def]
    """Match ``m``'s base bits and legal mask (``moves``: its legal moves)."""
    s = states[m]
    for i in range(base_kind.shape[0]):
        kind, arg = base_kind[i], base_arg[i]
        if kind in (BLACK, RED):
            bits[m, i] = (s[kind] >> arg) & 1
        elif kind == READS_CONTROL:
            bits[m, i] = 1 if s[CONTROL] == arg else 0
        else:
            bits[m, i] = 1 if s[kind] == arg else 0
    legal[m, :] = 0
    if _over(s, moves):
        return
    c = s[CONTROL]
    legal[m, offsets[1 - c] + noop[1 - c]] = 1
    for j in range(moves.shape[0]):
        key = (moves[j, 0] * 64 + moves[j, 1]) * 64 + moves[j, 2]
        legal[m, offsets[c] + index[c, key]] = 1


@njit(cache=True, nogil=True)
def advance(  # type: ignore[no-untyped-def]
    states, steps, actions, kind_of, src_of, dst_of, index, noop, offsets, base_kind, base_arg,
    wrap, max_steps, start, bits, legal, ended, cut, goals, final,
):  # fmt: skip
    """One joint move in every match (actions already checked); ended matches restart."""
    ended[:] = 0
    cut[:] = 0
    goals[:] = 0
    for m in range(states.shape[0]):
        s = states[m]
        c = s[CONTROL]
        a = actions[m, c]
        if a < 0:
            only = _moves(s, wrap)
            kind, frm, to = only[0, 0], only[0, 1], only[0, 2]
        else:
            kind, frm, to = kind_of[c, a], src_of[c, a], dst_of[c, a]
        b, r, bc, rc, step, control = k.next_state(
            np.uint64(s[BLACK]), np.uint64(s[RED]), s[BC], s[RC], s[STEP], c, kind, frm, to, wrap
        )
        s[BLACK], s[RED], s[BC], s[RC], s[STEP], s[CONTROL] = b, r, bc, rc, step, control
        steps[m] += 1
        moves = _moves(s, wrap)
        over = _over(s, moves)
        if over or steps[m] >= max_steps:
            write(m, states, moves, base_kind, base_arg, index, noop, offsets, final, legal)
            if over:
                ended[m] = 1
                goals[m, 0] = k.GOAL_TABLE[s[BC]]
                goals[m, 1] = k.GOAL_TABLE[s[RC]]
            else:
                cut[m] = 1
            s[:] = start
            steps[m] = 0
            moves = _moves(s, wrap)
        write(m, states, moves, base_kind, base_arg, index, noop, offsets, bits, legal)


class CheckersStepper(NativeStepper):
    """``count`` pawn checkers matches on the native bitboards (a BatchStepper)."""

    def __init__(self, game: Any, count: int, max_steps: int) -> None:
        from ggpkit.games.checkers.game import START, decode_move

        props = game.propositions()
        super().__init__(props, count, max_steps)
        self.wrap = bool(game.wrap)
        self._tables(props, decode_move)
        # Boards use all 64 bits: kept as int64 with the same bits (the kernels cast back).
        self._start = np.array(list(START), dtype=np.uint64).view(np.int64)
        self._states = np.zeros((count, 6), dtype=np.int64)

    def _tables(self, props: Any, decode: Any) -> None:
        """Move numbers <-> (kind, from, to) squares, and what each base fact reads."""
        width = max(len(ms) for ms in props.moves)
        self._kind_of = np.full((2, width), -1, dtype=np.int64)
        self._src = np.full((2, width), -1, dtype=np.int64)
        self._dst = np.full((2, width), -1, dtype=np.int64)
        self._index = np.full((2, 2 * 64 * 64), -1, dtype=np.int64)
        self._noop = np.zeros(2, dtype=np.int64)
        self._offsets = np.array([0, len(props.moves[0])], dtype=np.int64)
        for r, moves in enumerate(props.moves):
            for i, move in enumerate(moves):
                plain = decode(move)
                if plain is None:
                    self._noop[r] = i
                    continue
                name, x1, y1, x2, y2 = plain
                kind = k.KIND_JUMP if name == "jump" else k.KIND_MOVE
                frm, to = (y1 - 1) * 8 + (x1 - 1), (y2 - 1) * 8 + (x2 - 1)
                self._kind_of[r, i], self._src[r, i], self._dst[r, i] = kind, frm, to
                self._index[r, (kind * 64 + frm) * 64 + to] = i
        read = [_reads(fact) for fact in props.base]
        self._kind = np.array([kind for kind, _ in read], dtype=np.int64)
        self._arg = np.array([arg for _, arg in read], dtype=np.int64)

    def _restart_all(self) -> None:
        self._states[:] = self._start
        out = self._out
        for m in range(self.count):
            moves = _moves(self._states[m], self.wrap)
            write(m, self._states, moves, self._kind, self._arg, self._index, self._noop,
                  self._offsets, out.bits, out.legal)  # fmt: skip

    def _check(self, actions: npt.NDArray[np.int64]) -> int:
        return int(check(self._states, actions, self._kind_of, self._src, self._dst,
                         self._noop, self.wrap))  # fmt: skip

    def _advance(self, actions: npt.NDArray[np.int64]) -> None:
        out = self._out
        advance(
            self._states, self._steps, actions, self._kind_of, self._src, self._dst,
            self._index, self._noop, self._offsets, self._kind, self._arg, self.wrap,
            self.max_steps, self._start, out.bits, out.legal, out.ended, out.cut, out.goals,
            out.final,
        )  # fmt: skip


def _reads(fact: Any) -> tuple[int, int]:
    """(kind, argument) of a base fact of pawn checkers (see :data:`READS_CONTROL`)."""
    if not isinstance(fact, Func):
        raise GameError(f"{fact} is no pawn checkers fact")
    args = [str(a) for a in fact.args]
    if fact.name == "location" and len(args) == 3:
        side = BLACK if args[2] == "blackPawn" else RED
        return side, (int(args[1]) - 1) * 8 + (int(args[0]) - 1)
    if fact.name == "captureCount" and len(args) == 2:
        return (BC if args[0] == "black" else RC), int(args[1])
    if fact.name == "step" and len(args) == 1:
        return STEP, int(args[0])
    if fact.name == "control" and len(args) == 1:
        return READS_CONTROL, (0 if args[0] == "black" else 1)
    raise GameError(f"{fact} is no pawn checkers fact")
