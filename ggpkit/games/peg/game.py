"""Peg solitaire on the English 33-hole cross: the native engine of the game ``peg``.

Rules (as specified for ggpkit's seed games, section 1; the twin ``rules/peg.kif``): one role,
``jumper``; a peg in every hole but ``d c4``; a move ``(jump R1 C1 R2 C2)`` jumps
a peg over a neighbouring peg (row or column) into an empty hole, removing the
jumped peg; the game ends when no jump is left. Goal: one peg left on ``d c4``
scores 100, one peg elsewhere 99, n = 2..10 pegs 100 - 10*(n-1), more pegs 0.

The state is :class:`PegState`, a frozen bitboard (see :mod:`peg_kernels` for
the layout). The peg counter of the GDL rules (``(pegs sN)``) is not stored: it
always equals the number of pegs, so it is computed. Move generation here is
plain Python over the jump table (the reference, and quick enough for play);
random playouts run in the compiled kernels.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from ggpkit.games.api import (
    BatchStepper,
    Dynamics,
    Game,
    GameError,
    GameInfo,
    Utility,
)
from ggpkit.games.capabilities import Capabilities
from ggpkit.games.native.twin import FromTwin
from ggpkit.games.peg import extras
from ggpkit.games.peg import kernels as k
from ggpkit.gdl.terms import Const, Func, Term
from ggpkit.reasoning.base import PlayoutStats

ROLE = "jumper"


@dataclass(frozen=True, slots=True)
class PegState:
    """A position: bit ``row * 7 + col`` of ``board`` is set when that hole holds a peg."""

    board: int

    @property
    def pegs(self) -> int:
        """Number of pegs on the board (the ``(pegs sN)`` counter of the GDL rules)."""
        return self.board.bit_count()


def hole_name(index: int) -> str:
    """``"d c4"`` for the bit index of the centre hole."""
    r, c = divmod(index, k.WIDTH)
    return f"{k.ROWS[r]} {k.COLUMNS[c]}"


def _jump_term(src: int, dst: int) -> Func:
    sr, sc = divmod(src, k.WIDTH)
    dr, dc = divmod(dst, k.WIDTH)
    return Func(
        "jump",
        (Const(k.ROWS[sr]), Const(k.COLUMNS[sc]), Const(k.ROWS[dr]), Const(k.COLUMNS[dc])),
    )


MOVES: tuple[Func, ...] = tuple(_jump_term(src, dst) for src, _, dst in k.JUMPS)
"""The move term of every geometric jump, indexed like ``peg_kernels.JUMPS``."""
MOVE_INDEX: dict[Term, int] = {m: i for i, m in enumerate(MOVES)}
# (src bit, mid bit, dst bit) per jump: the plain-Python generator tests these.
_MASKS: tuple[tuple[int, int, int], ...] = tuple((1 << s, 1 << m, 1 << d) for s, m, d in k.JUMPS)


def legal_jump_indices(board: int) -> list[int]:
    """Indices of the legal jumps, plain Python over the jump table (the reference generator)."""
    empty = k.HOLES & ~board
    return [i for i, (s, m, d) in enumerate(_MASKS) if board & s and board & m and empty & d]


def goal_of(board: int) -> int:
    """The jumper's goal for a board; defined for every board, terminal or not."""
    n = board.bit_count()
    if n == 1:
        return 100 if board == 1 << k.CENTER else 99
    if 2 <= n <= 10:
        return 100 - 10 * (n - 1)
    return 0


class PegGame(FromTwin, Game[PegState]):
    """Peg solitaire, English cross, one role ``jumper``. See the module docstring."""

    name = "peg"
    description = "Peg solitaire on the English 33-hole cross; one role, jumper."
    roles = (ROLE,)
    info = GameInfo(
        Dynamics.TURN_TAKING,
        Utility.GENERAL_SUM,
        goal_range=(0, 100),
        max_length=31,
        capabilities=Capabilities(
            compiled_playouts=True,
            compiled_perft=True,
            notation=extras.PegNotation(),
            board=extras.BOARD,
            solver=extras.solver,
            hint=extras.solver,
            solver_table=extras.build_table,
            end_reason=extras.end_reason,
        ),
    )

    # ---- positions ------------------------------------------------------------------

    def initial_state(self) -> PegState:
        """A peg in every hole except the centre ``d c4``."""
        return PegState(k.START)

    @staticmethod
    def from_holes(holes: Sequence[str]) -> PegState:
        """A position with pegs exactly in the named holes, e.g. ``["d c4", "b c3"]``."""
        board = 0
        for name in holes:
            index = _hole_index(name)
            if index is None:
                raise ValueError(f"{name!r} is not a hole of the board")
            board |= 1 << index
        return PegState(board)

    def state_from_facts(self, facts: Iterable[Term]) -> PegState:
        """The position whose facts are ``facts``: ``(hole R C peg)`` marks a peg."""
        given = frozenset(facts)
        holes = [
            f"{f.args[0]} {f.args[1]}"
            for f in given
            if isinstance(f, Func) and f.name == "hole" and len(f.args) == 3
            and str(f.args[2]) == "peg"
        ]  # fmt: skip
        try:
            state = self.from_holes(holes)
        except ValueError as e:
            raise GameError(str(e)) from None
        return self._exactly(state, given)

    # ---- the rules ------------------------------------------------------------------

    def _legal(self, state: PegState, role_index: int) -> list[Term]:
        return [MOVES[i] for i in legal_jump_indices(state.board)]

    def _next(self, state: PegState, moves: Sequence[Term]) -> PegState:
        s, m, d = _MASKS[MOVE_INDEX[moves[0]]]
        return PegState(state.board ^ (s | m | d))

    def is_terminal(self, state: PegState) -> bool:
        """No legal jump is left."""
        return not legal_jump_indices(state.board)

    def goals(self, state: PegState) -> dict[str, int]:
        """The goal by the peg count (and, for one peg, where it stands)."""
        return {ROLE: goal_of(state.board)}

    def facts(self, state: PegState) -> frozenset[Term]:
        """``(hole R C peg)`` / ``(hole R C empty)`` for the 33 holes, and ``(pegs sN)``."""
        out: list[Term] = [
            Func(
                "hole",
                (
                    Const(k.ROWS[i // k.WIDTH]),
                    Const(k.COLUMNS[i % k.WIDTH]),
                    Const("peg" if state.board >> i & 1 else "empty"),
                ),
            )
            for i in k.HOLES_LIST
        ]
        out.append(Func("pegs", (Const(f"s{state.pegs}"),)))
        return frozenset(out)

    def batch_stepper(self, count: int, max_steps: int) -> BatchStepper:
        """Games stepped together on the native bitboard, in the twin's vocabulary."""
        from ggpkit.games.peg.batch import PegStepper

        return PegStepper(self, count, max_steps)

    def to_move(self, state: PegState) -> str | None:
        """Always the jumper, until the game is over."""
        return None if self.is_terminal(state) else ROLE

    def why_illegal(self, state: PegState, role: str, move: Term) -> str:
        """The first rule of a jump that ``move`` breaks, in words."""
        if not (
            isinstance(move, Func)
            and move.name == "jump"
            and len(move.args) == 4
            and all(isinstance(a, Const) for a in move.args)
        ):
            return "a move of peg solitaire is (jump R1 C1 R2 C2), e.g. (jump b c4 d c4)"
        sr, sc, dr, dc = (a.name for a in move.args)
        src, dst = _hole_index(f"{sr} {sc}"), _hole_index(f"{dr} {dc}")
        for name, index in ((f"{sr} {sc}", src), (f"{dr} {dc}", dst)):
            if index is None:
                return (
                    f"{name} is not a hole of the board "
                    "(rows a..g, columns c1..c7, corners cut away)"
                )
        assert src is not None and dst is not None
        (r1, c1), (r2, c2) = divmod(src, k.WIDTH), divmod(dst, k.WIDTH)
        if not ((r1 == r2 and abs(c1 - c2) == 2) or (c1 == c2 and abs(r1 - r2) == 2)):
            return f"{sr} {sc} and {dr} {dc} are not two holes apart in a row or column"
        mid = (src + dst) // 2
        if not state.board >> src & 1:
            return f"no peg on {sr} {sc}"
        if state.board >> dst & 1:
            return f"{dr} {dc} is not empty"
        if not state.board >> mid & 1:
            return (
                f"no peg between {sr} {sc} and {dr} {dc} to jump over ({hole_name(mid)} is empty)"
            )
        return super().why_illegal(state, role, move)

    # ---- notation for people ---------------------------------------------------------

    def perft_compiled(self, state: PegState, depth: int) -> int:
        """Jump sequences of length ``depth`` from ``state`` (compiled)."""
        return int(k.perft(state.board, depth))

    def render(self, state: PegState) -> str:
        """The cross with row and column labels: ``o`` a peg, ``.`` an empty hole."""
        lines = ["     " + " ".join(f"{c:<2}" for c in k.COLUMNS)]
        for r, row in enumerate(k.ROWS):
            cells = []
            for c in range(7):
                i = r * k.WIDTH + c
                if not k.HOLES >> i & 1:
                    cells.append("  ")
                else:
                    cells.append("o " if state.board >> i & 1 else ". ")
            lines.append(f"  {row}  " + " ".join(cells).rstrip())
        lines.append(f"  pegs: {state.pegs}   goal now: {goal_of(state.board)}")
        return "\n".join(lines)

    # ---- compiled playouts -----------------------------------------------------------

    def random_playout(self, state: PegState, rng: random.Random) -> tuple[dict[str, int], int]:
        """One random playout in the compiled kernel, seeded from ``rng``."""
        final, steps = k.random_playout(state.board, np.uint64(rng.getrandbits(64)))
        return {ROLE: goal_of(int(final))}, int(steps)

    def playout_stats(self, state: PegState, count: int, seed: int) -> PlayoutStats:
        """``count`` random playouts in one compiled call."""
        moves, goals = k.many_playouts(state.board, count, np.uint64(seed % (1 << 64)))
        return PlayoutStats(count, int(moves), (int(goals),))


def _hole_index(name: str) -> int | None:
    """Bit index of a hole named like ``"d c4"``; None when it is not a hole of the cross."""
    parts = name.split()
    if len(parts) != 2 or parts[0] not in k.ROWS or parts[1] not in k.COLUMNS:
        return None
    index = k.ROWS.index(parts[0]) * k.WIDTH + k.COLUMNS.index(parts[1])
    return index if k.HOLES >> index & 1 else None
